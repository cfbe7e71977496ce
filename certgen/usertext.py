"""The one gate for user text: every string a user chose (a board's file name, a deal code, a mutation's
name, a standalone file's name) reaches a generated Lean or Coq file only through :func:`user_text`.

It keeps ASCII letters, digits, space and ``_.,#:=+-`` and replaces every other character by ``_``, then
cuts the text to LIMIT characters. What that rules out, in the comments the text stands in:

  Coq   ``(*`` and ``*)`` (no parenthesis, no star): the text can neither open a nested comment nor close
        the one it is in; no ``"`` (Coq reads string literals inside comments, so a quote would make the
        lexer skip past the comment's end)
  Lean  ``/-`` and ``-/`` (no slash): no nested or closed block comment; no newline, so a ``--`` line
        comment ends where the renderer ends it
  both  no newline, backslash, backtick, quote, bracket or non-ASCII character (no look-alike letters)

The gate does not make the text meaningful, only inert: the statement a proof tool checks never depends
on it (certgen/coqcheck.py checks the statement in a driver file holding no user text at all)."""
import string

ALLOWED = frozenset(string.ascii_letters + string.digits + " _.,#:=+-")
LIMIT = 100


def user_text(text) -> str:
    """``text`` (any object, as str) with every character outside ALLOWED replaced by ``_``, cut to LIMIT
    characters (the last three ``...`` when cut)."""
    out = "".join(ch if ch in ALLOWED else "_" for ch in str(text))
    return out if len(out) <= LIMIT else out[:LIMIT - 3] + "..."
