"""Lines of moves: legality, replay against the spec, notation.

A move is a tuple ``(card, src, dst)``: card index 0..51; ``src`` and ``dst`` 0..7 a column, ``CELL`` the
free cells, ``HOME`` the card's foundation (as a source: foundation returns only) -- the C core's
destinations (``FC_TO_CELL``, ``FC_TO_HOME``). A move code is ``card | dst << 8``: the source is wherever
the card is, so a line of codes replays unambiguously from its start.

Two replays, both written from the spec (solver/spec.py) and tested against it:

  * :func:`check_line` / :func:`codes_to_moves` (fast, the survey's): each move's own legality test;
  * :func:`verify_spec` (strict): every step's position must be an element of ``spec.moves`` -- the
    transliteration of the Lean rules itself -- and the last one ``spec.won``.

:func:`step_indices` gives a line of positions as indices into ``spec.moves`` (what a Lean winnability
module replays); :func:`replay` and :func:`check_win` are the Python twins of Lean's ``replay`` and
``checkWin``; :func:`real_columns` takes a line found up to the order of the columns onto the real ones.
What a replayed line makes of a search is solver.verdict's rule.
"""
from . import spec
from .cards import card_name, is_red
from .errors import InternalError
from .rules import STANDARD, Rules
from .search import CELL, HOME


class LineError(InternalError):
    """A move list that does not replay to a won position (always a bug when it comes from the solver)."""


_RED = tuple(is_red(c) for c in range(52))     # a table: the survey replays millions of moves


# --- lines up to the order of the columns ----------------------------------------------------------------

def column_blind(s: spec.State):
    """A spec State with its columns taken as a multiset: equal for two positions that differ only in the
    order of their columns."""
    return tuple(sorted(s.cols)), s.cells, s.home


def real_columns(rules: spec.Rules, start: spec.State, path):
    """The line from ``start`` that follows ``path`` (spec States from ``start`` up to the order of the
    columns, each one move from the one before up to that order: a search up to column order stores them so)
    on ``start``'s real columns: at each step the first of ``spec.moves`` whose result is the next position up
    to column order. [] when ``path[0]`` is not ``start`` up to column order or a step has no such move."""
    if not path or column_blind(path[0]) != column_blind(start):
        return []
    out = [start]
    for want in map(column_blind, path[1:]):
        nxt = next((t for t in spec.moves(rules, out[-1]) if column_blind(t) == want), None)
        if nxt is None:
            return []
        out.append(nxt)
    return out


def is_a_line(rules: spec.Rules, path) -> bool:
    """Whether ``path`` (spec States) is a line: each step one of ``spec.moves`` of the one before."""
    try:
        step_indices(rules, path[0], path[1:])
    except LineError:
        return False
    return True


# --- legality: one replay for moves and move codes -----------------------------------------------------

def _replay(start, steps, rules, need_won, with_src):
    """Replay ``steps`` ((card, src, dst) when ``with_src``, else move codes) from the Position ``start``
    under ``rules``, each move checked the way ``spec.moves`` allows it:

    * the card is the top card of a column, or in the free cells, or -- with foundation returns -- the
      top card of its foundation (and, for a (card, src, dst) move, it is where ``src`` says);
    * to its foundation: not from a foundation, and the foundation's height is rank - 1;
    * to a column other than its own: the column is empty, or its top card is one rank higher and of
      the other colour;
    * into the free cells: only from a column, and fewer than ``rules.cells`` cards there.

    Returns (the moves as (card, src, dst), the final Position); raises :class:`LineError` naming the
    first bad move (and, with ``need_won``, when the final position is not won)."""
    cols = [list(c) for c in start[0]]
    loc = [HOME] * 52                 # where each card is: a column, CELL, or HOME (on its foundation)
    for i, col in enumerate(cols):
        for c in col:
            loc[c] = i
    for c in start[1]:
        loc[c] = CELL
    ncell = len(start[1])
    home = list(start[2])
    out = []
    for n, step in enumerate(steps, 1):
        if with_src:
            try:
                card, given, dst = step
            except (TypeError, ValueError):
                raise LineError(f"move {n}: not a (card, from, to) triple: {step!r}") from None
            if not (isinstance(card, int) and 0 <= card < 52):
                raise LineError(f"move {n}: not a card: {card!r}")
            if not (isinstance(given, int) and 0 <= given <= HOME):
                raise LineError(f"move {n}: bad source {given!r}")
            if not (isinstance(dst, int) and 0 <= dst <= HOME):
                raise LineError(f"move {n}: bad destination {dst!r}")
        else:
            card, dst = step & 0xFF, step >> 8
            if card >= 52 or dst > HOME:
                raise LineError(f"move {n}: bad move code {step:#x}")
            given = None
        src = loc[card]
        r, s = card >> 2, card & 3
        if given is not None and given != src:
            src = given
            if given == CELL:
                raise LineError(f"move {n}: {card_name(card)} is not in the free cells")
        if src < 8:
            col = cols[src]
            if not col or col[-1] != card:
                raise LineError(f"move {n}: {card_name(card)} is not the top card of column {src + 1}")
        elif src == HOME and (not rules.foundation_return or home[s] != r + 1):
            raise LineError(f"move {n}: {card_name(card)} cannot come back from its foundation")
        if dst == HOME:
            if src == HOME or home[s] != r:
                raise LineError(f"move {n}: {card_name(card)} cannot go to its foundation")
            home[s] += 1
        elif dst == CELL:
            if src >= 8 or ncell >= rules.cells:
                raise LineError(f"move {n}: {card_name(card)} cannot go to a free cell")
            ncell += 1
        else:
            if dst == src:
                raise LineError(f"move {n}: {card_name(card)} is already in column {dst + 1}")
            t = cols[dst]
            if t and ((t[-1] >> 2) != r + 1 or _RED[t[-1]] == _RED[card]):
                raise LineError(f"move {n}: {card_name(card)} does not go on {card_name(t[-1])} "
                                f"(column {dst + 1})")
            t.append(card)
        if src < 8:
            cols[src].pop()
        elif src == CELL:
            ncell -= 1
        else:
            home[s] -= 1
        loc[card] = dst
        out.append((card, src, dst))
    if need_won and home != [13, 13, 13, 13]:
        raise LineError(f"the line of {len(out)} moves ends with {sum(home)} cards on the foundations, "
                        f"not a won position")
    cells_left = tuple(sorted(c for c in range(52) if loc[c] == CELL))
    return out, (tuple(tuple(c) for c in cols), cells_left, tuple(home))


def check_line(start, moves, rules: Rules = STANDARD, need_won=True):
    """Replay (card, src, dst) ``moves`` from ``start``; returns the final Position (see :func:`_replay`)."""
    return _replay(start, moves, rules, need_won, with_src=True)[1]


def apply_move(pos, move, rules: Rules = STANDARD):
    """The Position after one legal move (LineError if it is not legal)."""
    return check_line(pos, [move], rules, need_won=False)


def codes_to_moves(start, codes, rules: Rules = STANDARD, need_won=True):
    """C move codes -> (card, src, dst) moves, checked on the way: returns (moves, final Position)."""
    return _replay(start, codes, rules, need_won, with_src=False)


# --- replay against spec.moves -----------------------------------------------------------------------------

def step_indices(rules: spec.Rules, start: spec.State, path) -> list:
    """The index into ``spec.moves(rules, s)`` of each step of ``path`` (positions, each one move from the
    one before; it may begin with ``start`` itself). LineError names the first step that is no move."""
    states = list(path)
    if states and states[0] == start:
        states = states[1:]
    out, s = [], start
    for n, t in enumerate(states, 1):
        try:
            out.append(spec.moves(rules, s).index(t))
        except ValueError:
            raise LineError(f"move {n}: the position it gives is not in spec.moves") from None
        s = t
    return out


def verify_spec(start, moves, rules: Rules = STANDARD):
    """The strict check: each step's position is an element of ``spec.moves`` and the last is
    ``spec.won``. Returns the positions as ``spec.State`` values, start first; raises :class:`LineError`."""
    path = [spec.from_position(start)]
    pos = start
    for mv in moves:
        pos = apply_move(pos, mv, rules)          # the position the move names
        path.append(spec.from_position(pos))
    step_indices(rules.spec(), path[0], path[1:])
    if not spec.won(path[-1]):
        raise LineError(f"the line of {len(moves)} moves does not end in a won position (spec.won)")
    return path


def replay(rules: spec.Rules, start: spec.State, indices):
    """Python twin of FreeCell.replay: follow move indices into ``spec.moves``; None at a bad index."""
    s = start
    for i in indices:
        succ = spec.moves(rules, s)
        if not 0 <= i < len(succ):
            return None
        s = succ[i]
    return s


def check_win(rules: spec.Rules, start: spec.State, indices) -> bool:
    """Python twin of FreeCell.checkWin."""
    t = replay(rules, start, indices)
    return t is not None and spec.won(t)


# --- notation ----------------------------------------------------------------------------------------------

def place_name(p):
    return "freecell" if p == CELL else "foundation" if p == HOME else f"col {p + 1}"


def standard_notation(start, moves, cells=4):
    """Freecell Solver's standard notation, one string per move: columns 1-8, free cells a, b, c, ...
    (a card going into the free cells takes the leftmost empty one and keeps it until it leaves), the
    foundations h: "1h" column 1 -> foundation, "1a" column 1 -> free cell a, "a1" free cell a ->
    column 1, "12" column 1 -> column 2, "ah" free cell a -> foundation; "h1" (foundation returns only)
    foundation -> column 1."""
    slots = sorted(start[1]) + [None] * max(0, cells - len(start[1]))   # the start's cards in a, b, ...

    def place(p, card, leaving):
        if p == HOME:
            return "h"
        if p != CELL:
            return str(p + 1)
        i = slots.index(card if leaving else None)
        slots[i] = None if leaving else card
        return chr(ord("a") + i)
    return [place(src, card, True) + place(dst, card, False) for card, src, dst in moves]


def move_objects(start, moves, cells=4):
    """The --json form: one object per move (card, from, to, and the standard notation)."""
    notes = standard_notation(start, moves, cells)
    return [{"card": card_name(card), "from": place_name(src), "to": place_name(dst), "notation": nt}
            for (card, src, dst), nt in zip(moves, notes)]
