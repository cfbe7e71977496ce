"""Whole numbers read from people's text: deal numbers, --cells, --max-states, --jobs, ranges, deal codes.

One reading for all of them: ASCII digits only -- no sign, no spaces (around the digits either: ``" 3"`` is
refused), no exponent, and no ``_`` or ``,`` between digits (refused everywhere, so ``1_000`` means the same to
every option: nothing) -- and a length bound so that a huge input cannot become a huge number. A bad value
is one :class:`FreecellError` line naming the option and the value; a value past the maximum names the
maximum. The command-line argument types built on this are in solver/cliargs.py.
"""
from .errors import FreecellError

MAX_DIGITS = 40          # longer digit strings are not read (they are past every maximum anyway)


def digits(text, max_digits=MAX_DIGITS):
    """The whole number ``text`` spells, or None (``text`` may also be an int; a bool is not a number)."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return text
    if not isinstance(text, str):
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= max_digits):
        return None
    return int(text)


def quoted(text, limit=40):
    """``repr`` of ``text`` for an error message, cut to ``limit`` characters (a huge input, a short line)."""
    if isinstance(text, str) and len(text) > limit:
        text = text[:limit - 3] + "..."
    return repr(text)


def whole_number(text, what, lo, hi=None, shown=None):
    """``text`` as a whole number from ``lo`` to ``hi`` (no upper bound when ``hi`` is None), else one
    FreecellError line naming ``what`` and the value: "<what> must be a whole number from lo to hi, got
    '<text>'" (so a value past the maximum is told the maximum); digits with ``_`` or ``,`` between them:
    "... written with digits only (no '_' or ',')". ``shown``: the value as the message quotes it."""
    said = quoted(text) if shown is None else repr(shown)
    span = f"of at least {lo}" if hi is None else f"from {lo} to {hi}"
    t = text if isinstance(text, str) else ""
    if t.isascii() and any(c in t for c in "_,") and t.replace("_", "").replace(",", "").isdigit():
        raise FreecellError(f"{what} must be a whole number written with digits only (no '_' or ','), "
                            f"got {said}")
    n = digits(text)
    if n is None or n < lo or (hi is not None and n > hi):
        raise FreecellError(f"{what} must be a whole number {span}, got {said}")
    return n
