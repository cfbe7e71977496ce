"""Freecell Solver's board and position text formats.

Board (what ``make-microsoft-freecell-board -t N`` prints): one line per column, bottom card first, cards
separated by spaces, ranks ``A 2..9 T J Q K`` and suits ``C D H S``. On input ``10`` is accepted for
ten, lowercase too, blank lines and trailing spaces are ignored, and a line may start with ``:`` as
fc-solve's own output does (``:`` alone is an empty column).

Full position (a game in progress), as fc-solve prints it::

    Foundations: H-0 C-2 D-A S-0
    Freecells:  3D  -  JH
    : 4C 2C 9C 8C QS 4S 2H
    ...

The ``Foundations:`` line gives the top rank per suit (``0`` empty, ``A``, ``2``..``9``, ``T``, ``J``,
``Q``, ``K``; suits not named are empty); ``Freecells:`` lists the free cell cards, ``-`` for an empty
cell. Both lines are optional and may come before, between or after the columns; there must be exactly
eight columns. A valid position holds every card exactly once: on the foundations (A up to the height
of each suit), in a free cell (at most 8), or in a column.

Every problem is reported as one :class:`FreecellError` line starting with ``board:``.
"""

import sys

from .cards import SUITS, card, card_name, cards_text, parse_card, parse_rank, rank_name, shown
from .errors import FreecellError
from .rules import MAX_CELLS as MAX_FREECELLS

NCOLS = 8
_FOUND_ORDER = (2, 0, 1, 3)     # fc-solve prints the foundations as H C D S
_FOUND_WORDS = ("foundations:", "founds:")
_CELL_WORDS = ("freecells:", "fc:")


def _startswith_word(line, words):
    low = line.lower()
    for w in words:
        if low.startswith(w):
            return line[len(w):]
    return None


def _card(token, lineno):
    try:
        return parse_card(token)
    except FreecellError:
        raise FreecellError(f"board: line {lineno}: {shown(token)} is not a card "
                            f"(expected a rank A 2-9 T J Q K and a suit C D H S, e.g. TS)") from None


def _parse_foundations(rest, lineno):
    home = [0, 0, 0, 0]
    seen = set()
    for tok in rest.split():
        s, dash, r = tok.partition("-")
        su = SUITS.find(s.upper()) if len(s) == 1 else -1
        if not dash or su < 0:
            raise FreecellError(f"board: line {lineno}: bad foundation {shown(tok)} (expected e.g. H-0, C-2, D-A)")
        if su in seen:
            raise FreecellError(f"board: line {lineno}: foundation {SUITS[su]} given twice")
        seen.add(su)
        try:
            home[su] = parse_rank(r)
        except FreecellError:
            raise FreecellError(f"board: line {lineno}: bad foundation {shown(tok)} "
                                f"(rank must be 0, A, 2-9, T, J, Q or K)") from None
    return tuple(home)


def _parse_cells(rest, lineno):
    cells = []
    for tok in rest.split():
        if tok.strip("-") == "":
            continue                    # "-" or "--": an empty cell
        cells.append(_card(tok, lineno))
    return cells


def parse_board(text):
    """Parse a board or a full position; returns a Position ``(cols, cells, home)``."""
    if not isinstance(text, str):
        raise FreecellError("board: expected text")
    text = text[1:] if text.startswith("\ufeff") else text   # a byte order mark (Windows editors write one)
    cols = []
    cells = None
    home = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        rest = _startswith_word(line, _FOUND_WORDS)
        if rest is not None:
            if home is not None:
                raise FreecellError(f"board: line {lineno}: a second Foundations line")
            home = _parse_foundations(rest, lineno)
            continue
        rest = _startswith_word(line, _CELL_WORDS)
        if rest is not None:
            if cells is not None:
                raise FreecellError(f"board: line {lineno}: a second Freecells line")
            cells = _parse_cells(rest, lineno)
            continue
        if line.startswith(":"):
            line = line[1:]
        cols.append(tuple(_card(tok, lineno) for tok in line.split()))
    if not cols and cells is None and home is None:
        raise FreecellError("board: empty input, expected 8 columns of cards")
    if len(cols) != NCOLS:
        raise FreecellError(f"board: {len(cols)} column{'s' if len(cols) != 1 else ''}, expected {NCOLS}")
    pos = (tuple(cols), tuple(sorted(cells or ())), home or (0, 0, 0, 0))
    validate_position(pos)
    return pos


def validate_position(pos):
    """Check that a Position holds each of the 52 cards exactly once; one-line error otherwise."""
    cols, cells, home = pos
    if len(cols) != NCOLS:
        raise FreecellError(f"board: {len(cols)} columns, expected {NCOLS}")
    if len(home) != 4 or any(not 0 <= h <= 13 for h in home):
        raise FreecellError(f"board: foundation heights must be 0..13, got {tuple(home)}")
    if len(cells) > MAX_FREECELLS:
        raise FreecellError(f"board: {len(cells)} cards in the free cells, at most {MAX_FREECELLS}")
    where = {}
    for su in range(4):
        for r in range(1, home[su] + 1):
            where[card(r, su)] = ["on the foundations"]
    places = [(c, "in the free cells") for c in cells]
    places += [(c, f"in column {i + 1}") for i, col in enumerate(cols) for c in col]
    for c, place in places:
        where.setdefault(c, []).append(place)
    for c, ps in sorted(where.items()):
        if len(ps) > 1:
            counts = dict.fromkeys(ps, 0)
            for p in ps:
                counts[p] += 1
            parts = [p if k == 1 else f"{p} {_times(k)}" for p, k in counts.items()]
            raise FreecellError(f"board: card {card_name(c)} appears {_times(len(ps))}: {' and '.join(parts)}")
    missing = [c for c in range(52) if c not in where]
    if missing:
        names = ", ".join(card_name(c) for c in missing[:12])
        more = f" and {len(missing) - 12} more" if len(missing) > 12 else ""
        raise FreecellError(f"board: missing card{'s' if len(missing) != 1 else ''}: {names}{more}")
    return pos


def _times(n):
    return "twice" if n == 2 else f"{n} times"


def format_board(pos):
    """The columns in fc-solve's board format: one line per column, bottom card first."""
    cols = pos[0]
    return "".join(cards_text(col) + "\n" for col in cols)


def format_position(pos):
    """Board format for a plain deal; the full position format when there are free cell cards, cards on
    the foundations or empty columns (``:``-prefixed column lines, as fc-solve prints them)."""
    cols, cells, home = pos
    if not cells and not any(home) and all(cols):
        return format_board(pos)
    found = " ".join(f"{SUITS[su]}-{rank_name(home[su])}" for su in _FOUND_ORDER)
    fc = "".join(f"  {card_name(c)}" for c in cells)
    lines = [f"Foundations: {found}", f"Freecells:{fc}"]
    lines += [(": " + cards_text(col)) if col else ":" for col in cols]
    return "\n".join(lines) + "\n"


def read_board_arg(arg):
    """Read and parse the board in file ``arg`` (``-`` for stdin)."""
    if arg == "-":
        if sys.stdin is None:
            raise FreecellError("board: there is no standard input to read")
        try:
            text = sys.stdin.read()
        except UnicodeDecodeError:
            raise FreecellError("board: standard input is not UTF-8 text") from None
        except IsADirectoryError:
            raise FreecellError("board: cannot read standard input: it is a directory") from None
        except OSError as exc:
            raise FreecellError(f"board: cannot read standard input: {exc.strerror or exc}") from None
        return parse_board(text)
    try:
        with open(arg, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise FreecellError(f"board: cannot read {arg}: no such file") from None
    except IsADirectoryError:
        raise FreecellError(f"board: cannot read {arg}: it is a directory") from None
    except PermissionError:
        raise FreecellError(f"board: cannot read {arg}: permission denied") from None
    except UnicodeDecodeError:
        raise FreecellError(f"board: {arg} is not UTF-8 text") from None
    except OSError as exc:
        raise FreecellError(f"board: cannot read {arg}: {exc.strerror or exc}") from None
    return parse_board(text)
