"""Winning lines: find one with the C solver, check it against the spec, print it.

    from solver import deals, solve
    r = solve.solve(deals.ms_deal(1))
    r.verdict        # "winnable"
    r.moves          # [(card, src, dst), ...] single-card moves under the spec rules
    r.notation()     # ["3a", "3h", ...] Freecell Solver's standard notation

How a line is found (solver/fc.c, ``fc_solve``): a best-first search with the solver's speed-ups --
positions counted up to the order of the columns, the safe automatic moves of seed 004, whole sequences
moved in one step -- then the line is written out as single-card moves of the spec (every automatic move
and every card of a sequence move becomes one move), and shortened (cycles cut, shortcuts of one or two
moves to later positions of the line taken). None of that is trusted: before a line is reported it is
replayed here, in Python, move by move from the start position:

  * ``check_line`` (fast, used by ``survey``) applies each move with its own legality test, written
    from the spec's ``moves`` (solver/spec.py) and tested against it (tests/test_solve.py);
  * ``verify_spec`` (used by ``solve``) replays on ``spec.State`` values and checks that every step's
    position is an element of ``spec.moves(rules, state)`` -- the transliteration of the Lean rules
    itself -- and that the last position is ``spec.won``.

A line that fails either check is a bug and is never reported (:class:`LineError`).

Verdicts: ``winnable`` (a line, replay-verified), ``unwinnable`` only when the exhaustive enumeration
of the spec rules (``search.explore``: no automatic moves, no column-order counting) completed without a
won position, else ``unknown``. The enumeration is run only when the solver's own search space ran out
without a win (deal 11982: 61,643 positions), since that space is smaller than the spec's.

A move is a tuple ``(card, src, dst)``: card index 0..51; ``src`` and ``dst`` 0..7 a column,
``CELL`` (8) the free cells, ``HOME`` (9) the card's foundation (as a source: foundation returns only).
"""
import time

from .errors import FreecellError

CELL = 8
HOME = 9
DEFAULT_MAX_STATES = 3_000_000
DEFAULT_SHORTEN = 2          # fc_solve's post-pass: 2 = cycles, one- and two-move shortcuts
SURVEY_SHORTEN = 0           # the survey: no post-pass (it costs as much as the search; lines ~2% longer)
MAX_LINE = 65535


class LineError(Exception):
    """A move list that does not replay to a won position (always a bug when it comes from the solver)."""


# --- the fast replay check (written from spec.moves; tests/test_solve.py checks it against spec.moves) --

def _red(c):
    s = c & 3
    return s == 1 or s == 2


def check_line(start, moves, cells=4, foundation_return=False, need_won=True):
    """Replay ``moves`` from the Position ``start``; every move must be one of ``spec.moves``:

    * the card is the top card of column ``src``, or in the free cells (``src`` CELL), or -- with
      foundation returns -- the top card of its foundation (``src`` HOME);
    * to its foundation (``dst`` HOME): not from a foundation, and the foundation's height is rank - 1;
    * to a column ``dst`` other than ``src``: the column is empty, or its top card is one rank higher
      and of the other colour;
    * into the free cells (``dst`` CELL): only from a column, and fewer than ``cells`` cards there.

    Returns the final Position; raises :class:`LineError` naming the first bad move (and, with
    ``need_won``, when the final position is not won)."""
    cols = [list(c) for c in start[0]]
    cellset = set(start[1])
    home = list(start[2])
    for n, mv in enumerate(moves, 1):
        try:
            card, src, dst = mv
        except (TypeError, ValueError):
            raise LineError(f"move {n}: not a (card, from, to) triple: {mv!r}") from None
        if not (isinstance(card, int) and 0 <= card < 52):
            raise LineError(f"move {n}: not a card: {card!r}")
        rank0, suit = card >> 2, card & 3
        if src == CELL:
            if card not in cellset:
                raise LineError(f"move {n}: {_name(card)} is not in the free cells")
        elif src == HOME:
            if not foundation_return or home[suit] != rank0 + 1:
                raise LineError(f"move {n}: {_name(card)} cannot come back from its foundation")
        elif isinstance(src, int) and 0 <= src < 8:
            col = cols[src]
            if not col or col[-1] != card:
                raise LineError(f"move {n}: {_name(card)} is not the top card of column {src + 1}")
        else:
            raise LineError(f"move {n}: bad source {src!r}")
        if dst == HOME:
            if src == HOME or home[suit] != rank0:
                raise LineError(f"move {n}: {_name(card)} cannot go to its foundation")
        elif dst == CELL:
            if src == CELL or src == HOME or len(cellset) >= cells:
                raise LineError(f"move {n}: {_name(card)} cannot go to a free cell")
        elif isinstance(dst, int) and 0 <= dst < 8:
            if dst == src:
                raise LineError(f"move {n}: {_name(card)} is already in column {dst + 1}")
            target = cols[dst]
            if target:
                p = target[-1]
                if (p >> 2) != rank0 + 1 or _red(p) == _red(card):
                    raise LineError(f"move {n}: {_name(card)} does not go on {_name(p)} (column {dst + 1})")
        else:
            raise LineError(f"move {n}: bad destination {dst!r}")
        if src == CELL:
            cellset.discard(card)
        elif src == HOME:
            home[suit] -= 1
        else:
            cols[src].pop()
        if dst == HOME:
            home[suit] += 1
        elif dst == CELL:
            cellset.add(card)
        else:
            cols[dst].append(card)
    final = (tuple(tuple(c) for c in cols), tuple(sorted(cellset)), tuple(home))
    if need_won and final[2] != (13, 13, 13, 13):
        raise LineError(f"the line of {len(moves)} moves ends with {sum(home)} cards on the foundations, "
                        f"not a won position")
    return final


def _name(c):
    from .cards import card_name
    return card_name(c)


def apply_move(pos, move, cells=4, foundation_return=False):
    """The Position after one legal move (LineError if it is not legal)."""
    return check_line(pos, [move], cells, foundation_return, need_won=False)


def verify_spec(start, moves, cells=4, foundation_return=False):
    """The strict check: replay on ``spec.State`` values, each step's position must be an element of
    ``spec.moves(rules, s)`` (the transliteration of the Lean rules), the last one ``spec.won``.
    Returns the list of positions (``spec.State``), start first; raises :class:`LineError`."""
    from . import spec
    rules = spec.Rules(cells=cells, foundation_return=bool(foundation_return))
    s = spec.from_position(start)
    path = [s]
    pos = start
    for n, mv in enumerate(moves, 1):
        pos = apply_move(pos, mv, cells, foundation_return)    # the position the move names
        t = spec.from_position(pos)
        if t not in spec.moves(rules, s):
            raise LineError(f"move {n}: the position it gives is not in spec.moves")
        path.append(t)
        s = t
    if not spec.won(s):
        raise LineError(f"the line of {len(moves)} moves does not end in a won position (spec.won)")
    return path


# --- the C solver --------------------------------------------------------------------------------------

_BUF = None


def _buf():
    global _BUF
    if _BUF is None:
        from ._fc import ffi
        _BUF = ffi.new("uint16_t[]", MAX_LINE)
    return _BUF


def _c_error(code, what):
    from . import search
    return search._error(code, what)


_RED = tuple((c & 3) in (1, 2) for c in range(52))


def codes_to_moves(start, codes, cells=4, foundation_return=False, need_won=True):
    """C move codes (card | dest << 8) -> (card, src, dst) moves, checked on the way with exactly the
    rules of :func:`check_line` (one pass, tuned for the survey: a table of where each card is). Returns
    (moves, final Position); raises :class:`LineError` at the first illegal move or when the final
    position is not won (unless ``need_won`` is False)."""
    cols = [list(c) for c in start[0]]
    loc = [HOME] * 52                 # where each card is: a column, CELL, or HOME (on its foundation)
    for i, col in enumerate(cols):
        for c in col:
            loc[c] = i
    for c in start[1]:
        loc[c] = CELL
    ncell = len(start[1])
    home = list(start[2])
    red = _RED
    out = []
    for n, code in enumerate(codes, 1):
        card, dst = code & 0xFF, code >> 8
        if card >= 52:
            raise LineError(f"move {n}: bad move code {code:#x}")
        src = loc[card]
        r, s = card >> 2, card & 3
        if src < 8:
            if cols[src][-1] != card:
                raise LineError(f"move {n}: {_name(card)} is not the top card of column {src + 1}")
        elif src == HOME and (not foundation_return or home[s] != r + 1):
            raise LineError(f"move {n}: {_name(card)} cannot come back from its foundation")
        if dst == HOME:
            if src == HOME or home[s] != r:
                raise LineError(f"move {n}: {_name(card)} cannot go to its foundation")
            home[s] += 1
        elif dst == CELL:
            if src >= 8 or ncell >= cells:
                raise LineError(f"move {n}: {_name(card)} cannot go to a free cell")
            ncell += 1
        elif dst < 8:
            if dst == src:
                raise LineError(f"move {n}: {_name(card)} is already in column {dst + 1}")
            t = cols[dst]
            if t:
                p = t[-1]
                if (p >> 2) != r + 1 or red[p] == red[card]:
                    raise LineError(f"move {n}: {_name(card)} does not go on {_name(p)} (column {dst + 1})")
            t.append(card)
        else:
            raise LineError(f"move {n}: bad move code {code:#x}")
        if src < 8:
            cols[src].pop()
        elif src == CELL:
            ncell -= 1
        else:
            home[s] -= 1
        loc[card] = dst
        out.append((card, src, dst))
    if need_won and home != [13, 13, 13, 13]:
        raise LineError(f"the line of {len(codes)} moves ends with {sum(home)} cards on the foundations, "
                        f"not a won position")
    cells_left = tuple(sorted(c for c in range(52) if loc[c] == CELL))
    return out, (tuple(tuple(c) for c in cols), cells_left, tuple(home))


def moves_to_codes(moves):
    return [card | (dst << 8) for card, _src, dst in moves]


def c_solve(position, cells=4, foundation_return=False, max_states=DEFAULT_MAX_STATES, shorten=DEFAULT_SHORTEN,
            weights=None):
    """Run fc_solve. Returns (status name, codes or None, states, expanded, found_len)."""
    from ._fc import ffi, lib
    from . import search
    rules = search.Rules(cells=cells, foundation_return=foundation_return, autoplay="safe", canonical=True)
    opts = ffi.new("fc_solve_opts *")
    opts.max_states = max_states or 0
    opts.shorten = shorten
    opts.supermoves = 1
    if weights is not None:
        opts.use_weights = 1
        opts.weights = list(weights) + [0] * (lib.FC_NWEIGHTS - len(weights))
    res = ffi.new("fc_solve_result *")
    buf = _buf()
    n = lib.fc_solve(search.pos_to_c(position), rules.to_c(), opts, buf, MAX_LINE, res)
    if n < 0:
        raise _c_error(n, "the solver stopped: ")
    st = res.status
    if st == lib.FC_WON:
        return "won", list(ffi.unpack(buf, n)), res.states, res.expanded, res.found_len
    name = {lib.FC_DONE: "done", lib.FC_LIMIT: "limit"}.get(st)
    if name is None:
        raise _c_error(st, "the solver stopped: ")
    return name, None, res.states, res.expanded, 0


def shorten_codes(position, codes, cells=4, foundation_return=False, level=DEFAULT_SHORTEN):
    """fc_shorten on a line of codes (plain rules), repeated until nothing changes."""
    from ._fc import ffi, lib
    from . import search
    rules = search.Rules(cells=cells, foundation_return=foundation_return)
    p = search.pos_to_c(position)
    buf = _buf()
    while True:
        inp = ffi.new("uint16_t[]", codes) if codes else ffi.new("uint16_t[]", 1)
        n = lib.fc_shorten(p, rules.to_c(), inp, len(codes), level, buf, MAX_LINE)
        if n < 0:
            raise _c_error(n, "shortening failed: ")
        new = list(ffi.unpack(buf, n))
        if len(new) >= len(codes):
            return new if len(new) == len(codes) else codes
        codes = new


class SolveResult:
    """``verdict``: "winnable" / "unwinnable" / "unknown"; ``moves``: the verified line (winnable only);
    ``states``: positions stored by every search run; ``enumerated``: the spec enumeration's count when it
    ran; ``seconds``: wall time; ``found_len``: the line's length before shortening; ``how``: which search
    gave the verdict ("solver", "enumeration")."""

    def __init__(self, start, cells, foundation_return, verdict, moves, states, seconds, found_len=None,
                 enumerated=None, how="solver", max_states=None):
        self.start = start
        self.cells = cells
        self.foundation_return = foundation_return
        self.verdict = verdict
        self.moves = moves
        self.states = states
        self.seconds = seconds
        self.found_len = found_len
        self.enumerated = enumerated
        self.how = how
        self.max_states = max_states

    @property
    def length(self):
        return None if self.moves is None else len(self.moves)

    def notation(self):
        return standard_notation(self.start, self.moves or [], self.cells)

    def to_json_moves(self):
        return move_objects(self.start, self.moves or [], self.cells)

    def __repr__(self):
        return (f"SolveResult(verdict={self.verdict!r}, length={self.length}, states={self.states}, "
                f"seconds={self.seconds:.4f})")


def solve(position, cells=4, foundation_return=False, max_states=DEFAULT_MAX_STATES, shorten=DEFAULT_SHORTEN,
          strict=True):
    """Find and verify a winning line from ``position`` (see the module docstring). ``strict``: verify with
    spec.moves itself (verify_spec) besides check_line; the survey passes False (check_line only)."""
    t0 = time.perf_counter()
    status, codes, states, _exp, found = c_solve(position, cells, foundation_return, max_states, shorten)
    enumerated = None
    how = "solver"
    if status == "done":
        # The solver's own space (automatic moves, column order) ran out: only the exhaustive spec
        # enumeration can say more.
        from . import search
        res = search.explore(position, search.Rules(cells=cells, foundation_return=foundation_return),
                             max_states=max_states)
        try:
            states += res.states
            enumerated = res.states
            how = "enumeration"
            if res.won:
                codes = _line_of_search(res.search, res.won_index)
                found = len(codes)
                if shorten:
                    codes = shorten_codes(position, codes, cells, foundation_return, shorten)
                status = "won"
            elif res.complete:
                status = "unwinnable"
            else:
                status = "limit"
        finally:
            res.close()
    if status == "won":
        try:
            moves, _final = codes_to_moves(position, codes, cells, foundation_return)
            if strict:
                verify_spec(position, moves, cells, foundation_return)
        except LineError as exc:
            raise LineError(f"internal error: the solver's line failed the replay check ({exc})") from None
        verdict = "winnable"
    else:
        moves = None
        verdict = "unwinnable" if status == "unwinnable" else "unknown"
    return SolveResult(position, cells, foundation_return, verdict, moves, states, time.perf_counter() - t0,
                       found_len=found if verdict == "winnable" else None, enumerated=enumerated, how=how,
                       max_states=max_states)


def _line_of_search(s, idx):
    from ._fc import lib
    buf = _buf()
    n = lib.fc_search_moves(s._h(), idx, buf, MAX_LINE)
    if n < 0:
        raise _c_error(n, "cannot read the line: ")
    from ._fc import ffi
    return list(ffi.unpack(buf, n))


# --- output --------------------------------------------------------------------------------------------

def place_name(p):
    return "freecell" if p == CELL else "foundation" if p == HOME else f"col {p + 1}"


def _slots(start, cells):
    """Physical free cells: the start's cell cards in slots a, b, ... in order."""
    slots = [None] * max(cells, len(start[1]))
    for i, c in enumerate(sorted(start[1])):
        slots[i] = c
    return slots


def standard_notation(start, moves, cells=4):
    """Freecell Solver's standard notation, one string per move: columns 1-8, free cells a, b, c, ...
    (a card going into the free cells takes the leftmost empty one and keeps it until it leaves), the
    foundations h: "1h" column 1 -> foundation, "1a" column 1 -> free cell a, "a1" free cell a ->
    column 1, "12" column 1 -> column 2, "ah" free cell a -> foundation; "h1" (foundation returns only)
    foundation -> column 1."""
    slots = _slots(start, cells)
    out = []
    for card, src, dst in moves:
        if src == CELL:
            i = slots.index(card)
            slots[i] = None
            a = chr(ord("a") + i)
        elif src == HOME:
            a = "h"
        else:
            a = str(src + 1)
        if dst == CELL:
            i = slots.index(None)
            slots[i] = card
            b = chr(ord("a") + i)
        elif dst == HOME:
            b = "h"
        else:
            b = str(dst + 1)
        out.append(a + b)
    return out


def move_objects(start, moves, cells=4):
    """The --json form: one object per move (card, from, to, and the standard notation)."""
    from .cards import card_name
    notes = standard_notation(start, moves, cells)
    return [{"card": card_name(card), "from": place_name(src), "to": place_name(dst), "notation": nt}
            for (card, src, dst), nt in zip(moves, notes)]


def spec_path(start, moves, cells=4, foundation_return=False):
    """The line as spec.State values, start first (for certgen.render.move_indices)."""
    return verify_spec(start, moves, cells, foundation_return)


def win_indices(start, moves, cells=4, foundation_return=False):
    """The line as indices into spec.moves (what the Lean module replays)."""
    from certgen import render
    from . import spec
    path = spec_path(start, moves, cells, foundation_return)
    return render.move_indices(spec.Rules(cells=cells, foundation_return=bool(foundation_return)), path[0],
                               path[1:])


def render_lean(result, deal=None, label=None, lean_dir=None, kernel=False):
    """Render the winnability module (certgen.render.render_win) for a winnable result; returns the path."""
    if result.verdict != "winnable":
        raise FreecellError(f"no winning line to render: the verdict is {result.verdict}")
    from certgen import render
    from . import deals, spec
    if deal is not None and deals.ms_deal(deal) != result.start:
        deal, label = None, label or f"deal {deal}"       # not the Microsoft layout: write the start out
    indices = win_indices(result.start, result.moves, result.cells, result.foundation_return)
    rules = spec.Rules(cells=result.cells, foundation_return=bool(result.foundation_return))
    start = spec.from_position(result.start)
    return render.render_win(indices, lean_dir, rules=rules, deal=deal, start=start, label=label, kernel=kernel)
