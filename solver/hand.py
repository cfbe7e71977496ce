""""One favor away" (seed 000; issue 13): the rules option ``hand`` (``--hand 1``, docs/HAND.md).

Once per game, while every free cell is full, a column's top card may be held in the hand for one move
and then put down (:func:`favors`, the Python copy of Lean ``favors`` in lean/FreeCell/Hand.lean; ``ReachableHand``). The C core searches with the
favor (rules.hand, a "favor used" flag in each stored state); a line it finds is rebuilt as three parts
-- a shortest plain line from the start to the position where the favor is used, the favor, and the
solver's plain line from there to a win -- and the whole line is replayed against the spec: every step
an element of ``spec.moves``, except one element of :func:`favors` taken while every cell was full.

    from solver import hand, deals
    r = hand.one_favor(deals.ms_deal(11982), Rules(hand=1))
    r.verdict, r.favor_at, len(r.line) - 1      # "winnable", the step index of the favor, moves
"""
from collections import namedtuple

from . import search, spec
from .cards import pretty_name
from .errors import InternalError
from .limits import HAND_STATES
from .lines import LineError
from .packed import pack
from .rules import Rules
from .solve import solve
from .verdict import decide

HandResult = namedtuple("HandResult", "verdict line favor_at states complete")
HandResult.__doc__ = """verdict: winnable (a line replayed with one favor), unwinnable (the whole reachable
set with the favor enumerated, no win), unknown (the limit); line: spec States, start first; favor_at:
the index i of the step line[i] -> line[i+1] that is the favor; states: positions the search stored."""


def favors(r, s):
    """Lean ``favors`` (lean/FreeCell/Hand.lean), line for line. The favor (docs/HAND.md), only while every
    free cell is full: a column's top card is held, one move is made without it, then it is put down (its
    foundation, any column, or an empty free cell)."""
    if len(s.cells) < r.cells:
        return []
    out = []
    for i in range(8):
        col = spec.get_d(s.cols, i, ())
        if not col:
            continue
        c = col[0]
        for t in spec.moves(r, s._replace(cols=spec.list_set(s.cols, i, col[1:]))):
            if spec.can_home(t.home, c):
                out.append(t._replace(home=spec.list_set(t.home, c.suit, c.rank)))
            out += spec.to_cols(t, c, None)
            if len(t.cells) < r.cells:
                out.append(t._replace(cells=spec.insert_sorted(c, t.cells)))
    return out


def replay(rules: Rules, line):
    """Check ``line`` (spec States) under the rules with favors: each step an element of spec.moves, or,
    at most rules.hand times, of favors; the last position won. Returns the favor steps' indices."""
    sr = rules.spec()
    used = []
    for i in range(len(line) - 1):
        s, t = line[i], line[i + 1]
        if t in spec.moves(sr, s):
            continue
        if len(used) < rules.hand and t in favors(sr, s):
            used.append(i)
            continue
        raise LineError(f"step {i + 1} is neither a move nor an allowed favor")
    if not line or not spec.won(line[-1]):
        raise LineError("the line does not end in a won position")
    return used


def _plain_line(start, target, plain, max_states):
    """A shortest plain line (spec States) from ``start`` to the position ``target`` (a spec State)."""
    r = search.explore(start, plain, max_states=max_states, stop_on_win=False, order="bfs")
    try:
        k = r.search.find_p64(pack(spec.to_position(target)))
        if k is None:
            return None
        return [spec.from_position(r.search.state(j)) for j in r.search.line_to(k)]
    finally:
        r.close()


def one_favor(start, rules: Rules, max_states=HAND_STATES, progress=False):
    """The verdict of ``start`` under ``rules`` (rules.hand = 1) with a replayed line when winnable."""
    r = search.explore(start, rules, max_states=max_states, progress=progress)     # DFS, stops at a win
    try:
        states, complete = r.states, bool(r.complete)
        if not r.won:
            return HandResult(decide(False, complete, rules=rules), None, None, states, complete)
        raw = [spec.from_position(p) for p in r.winning_line()]
    finally:
        r.close()
    sr, plain = rules.spec(), rules._replace(hand=0)
    i = next((i for i in range(len(raw) - 1) if raw[i + 1] not in spec.moves(sr, raw[i])), None)
    line = raw
    if i is not None:           # rebuild: shortest way to the favor, the favor, the solver's way home
        before = _plain_line(start, raw[i], plain, max_states) or raw[:i + 1]
        after = solve(spec.to_position(raw[i + 1]), plain).path
        if after:
            line = before + after
    try:
        used = replay(rules, line)
    except LineError:
        try:
            line, used = raw, replay(rules, raw)
        except LineError as exc:
            raise InternalError(f"internal error: the line with the favor failed the replay ({exc})") from None
    return HandResult(decide(True, complete, line, rules), line, used[0] if used else None, states, complete)


def _places(s):
    out = {}
    for i, col in enumerate(s.cols):
        for c in col:
            out[spec.key(c)] = f"column {i + 1}"
    for c in s.cells:
        out[spec.key(c)] = "a free cell"
    return out


def _where(places, c):
    return places.get(c, "its foundation")


def step_words(s, t, favor=False):
    """One step for people: "9♦ column 6 → column 5"; a favor: "FAVOR: hold …, …, put … down on …"."""
    a, b = _places(s), _places(t)
    moved = [c for c in range(52) if _where(a, c) != _where(b, c)]
    if not favor:
        c, = moved
        return f"{pretty_name(c)} {_where(a, c)} \u2192 {_where(b, c)}"
    # the held card is a column's top card of s that ends elsewhere; the other one moved in between
    tops = {spec.key(col[0]) for col in s.cols if col}
    for held in moved:
        if held in tops:
            rest = [c for c in moved if c != held]
            inner = ", ".join(f"{pretty_name(c)} {_where(a, c)} \u2192 {_where(b, c)}" for c in rest) or "a move"
            return (f"FAVOR: hold {pretty_name(held)} from {_where(a, held)}; {inner}; put "
                    f"{pretty_name(held)} down on {_where(b, held)}")
    return "FAVOR"
