"""Winning lines: find one with the C solver, check it against the spec, print it.

    from solver import deals, solve
    r = solve.solve(deals.ms_deal(1))
    r.verdict        # "winnable"
    r.moves          # [(card, src, dst), ...] single-card moves under the spec rules
    r.notation()     # ["3a", "3h", ...] Freecell Solver's standard notation

How a line is found (solver/solve.c, ``fc_solve``): best-first searches -- a portfolio of short stages
with move pruning and randomised heuristic weights, then one unpruned stage (solve.c: PORTFOLIO) -- with
the solver's speed-ups --
positions counted up to the order of the columns, the safe automatic moves of seed 004, whole sequences
moved in one step -- then the line is written out as single-card moves of the spec (every automatic move
and every card of a sequence move becomes one move), and shortened (cycles cut, shortcuts of one or two
moves to later positions of the line taken). None of that is trusted: before a line is reported it is
replayed in Python, move by move from the start position (solver/lines.py: the fast legality check
always, and with ``strict`` -- the default; the survey turns it off -- the replay against ``spec.moves``).
A line that fails either check is a bug and is never reported (:class:`solver.lines.LineError`).

Verdicts: ``winnable`` (a line, replay-verified), ``unwinnable`` only when the exhaustive enumeration
of the spec rules (``search.explore``: no automatic moves, no column-order counting) completed without a
won position, else ``unknown`` (solver.verdict.decide). The enumeration is run only when the solver's own
search space ran out without a win (deal 11982: 61,643 positions), since that space is smaller than the
spec's. When that enumeration stops at the limit, the solver's own set is enumerated again under its counting
rules (safe automatic moves, up to column order: proved to lose no win, coq/FreeCell/Autoplay.v, without
foundation returns); complete without a win, it says ``unwinnable`` too (``how``: "counted enumeration";
deal 27708 with 1 cell: the spec's set passes 100,000,000 positions, the counted one is 77,553,245).
Moves are solver.lines' ``(card, src, dst)`` tuples.
"""
import time

from . import lines, search, spec
from .lines import LineError, codes_to_moves, is_a_line, real_columns, verify_spec
from .limits import DEEP_STAGE_STATES, SOLVE_STATES
from .rules import STANDARD, Rules
from .search import Stage, weights
from .verdict import decide

DEFAULT_SHORTEN = 0          # fc_solve's post-pass by default: none. Every command (solve, prove, prove-win,
                             # both surveys) uses it: one line per deal, whichever asks. 1 = cycles and
                             # one-move shortcuts (+50% solver time, lines ~1.5% shorter), 2 = also two-move
                             # shortcuts (about 10x the time, ~2.5% shorter): `solve --shorten 2`, the play page

# The deep portfolio (`solve --deep`, the survey's tier 5): four long stages with the core's move pruning
# (FC_PRUNE_ALL: fewer successors, so a best-first search goes deeper in the same memory), each with its own
# weights, then the built-in portfolio's last, unpruned stage up to max_states (by default
# solver.limits.DEEP_STATES).
# Measured with 1 cell: #14497 won in the first stage (17,058,877 positions), #13599 in the
# fourth (82,861,647 in all), while the built-in portfolio stopped both at 100,000,000; #11744 in 5,667,052
# (the built-in portfolio: 35,059,546, in its last stage). Its peak is the biggest stage's (about 60
# bytes a position): a stage's positions are dropped when the next starts.
_PRUNE = search.lib.FC_PRUNE_ALL
DEEP = tuple(Stage(_PRUNE, DEEP_STAGE_STATES, weights(name, seed))
             for name, seed in (("greedy", 101), ("cells", 102), ("d2", 103), ("d", 104))) \
    + (Stage(0, 0, weights("d", 15)),)


class SolveResult:
    """``verdict``: "winnable" / "unwinnable" / "unknown"; ``moves``: the verified line (winnable only);
    ``path``: its positions as spec States, start first (when checked against spec.moves); ``states``:
    positions stored by every search run; ``enumerated``: the spec enumeration's count when it ran;
    ``seconds``: wall time; ``found_len``: the line's length before shortening; ``how``: which search
    gave the verdict ("solver", "enumeration", or "counted enumeration": when the spec enumeration stopped
    at its limit, the enumeration under the solver's own counting rules, ``counted``, which are proved to lose
    no win, completed without a win). A plain class, not a dataclass: explore imports this module (judge)
    and its start-up does not pay for dataclasses."""

    def __init__(self, start, rules: Rules, verdict: str, moves, states: int, seconds: float, found_len=None,
                 enumerated=None, how="solver", max_states=None, path=None, counted=None):
        self.start, self.rules, self.verdict, self.moves, self.states, self.seconds = \
            start, rules, verdict, moves, states, seconds
        self.found_len, self.enumerated, self.how, self.max_states, self.path, self.counted = \
            found_len, enumerated, how, max_states, path, counted

    @property
    def length(self):
        return None if self.moves is None else len(self.moves)

    def notation(self):
        return lines.standard_notation(self.start, self.moves or [], self.rules.cells)

    def to_json_moves(self):
        return lines.move_objects(self.start, self.moves or [], self.rules.cells)


def speedups(rules: Rules) -> Rules:
    """The rules the solver searches under: the spec ``rules``' moves with its speed-ups (safe automatic
    moves, positions counted up to the order of the columns)."""
    return Rules(cells=rules.cells, foundation_return=rules.foundation_return, autoplay="safe", canonical=True)


def solve(position, rules: Rules = STANDARD, max_states=SOLVE_STATES, shorten=DEFAULT_SHORTEN,
          strict=True, stages=None, recount=True):
    """Find and verify a winning line from ``position`` under the spec ``rules`` (see the module
    docstring). ``strict``: also replay against spec.moves itself; the survey passes False. ``stages``: another
    portfolio (:data:`DEEP`); None: solve.c's built-in one. ``recount``: when the spec enumeration stops at the
    limit, enumerate the solver's own set under its counting rules (see the module docstring); the difficulty
    survey passes False (its ladder of enumerations is its own, and its figures were made without)."""
    t0 = time.perf_counter()
    own = speedups(rules)
    status, codes, states, _exp, found = search.solve_line(position, own, max_states, shorten, stages)
    enumerated = None
    how = "solver"
    if status == "done":
        # The solver's own space (automatic moves, column order) ran out: only the exhaustive spec
        # enumeration can say more.
        res = search.explore(position, rules, max_states=max_states)
        try:
            states += res.states
            enumerated = res.states
            how = "enumeration"
            if res.won:
                codes = res.search.moves_to(res.won_index)
                found = len(codes)
                if shorten:
                    codes = search.shorten_line(position, codes, rules, shorten)
                status = "won"
            elif res.complete:
                status = "unwinnable"
            else:
                status = "limit"
        finally:
            res.close()
    if recount and status == "limit" and how == "enumeration" and own.proves_unwinnable():
        # The spec's set is past the limit, the solver's own is not: enumerate that one again, under its
        # counting rules (safe automatic moves, column order), which are proved to lose no win
        # (Rules.unproved names the theorems): complete without a win, it proves the same.
        res = search.explore(position, own, max_states=max_states)
        try:
            states += res.states
            if res.complete and not res.won:
                status, enumerated, how = "unwinnable", res.states, "counted enumeration"
        finally:
            res.close()
    moves = path = None
    if status == "won":
        try:
            moves, _final = codes_to_moves(position, codes, rules)
            if strict:
                path = verify_spec(position, moves, rules)
        except LineError as exc:
            raise LineError(f"internal error: the solver's line failed the replay check ({exc})") from None
    counted = own if how == "counted enumeration" else None
    verdict = decide(won=status == "won", complete=status == "unwinnable", line=moves, rules=counted or rules)
    return SolveResult(position, rules, verdict, moves, states, time.perf_counter() - t0,
                       found_len=found if verdict == "winnable" else None, enumerated=enumerated, how=how,
                       max_states=max_states, path=path, counted=counted)


def judge(start, result, rules: Rules):
    """The verdict (solver.verdict.decide) of a search result (solver.search.ExploreResult or alike:
    ``won``, ``complete``, ``winning_line()``) from ``start`` under ``rules``. Returns (verdict, the
    replayed line as spec States, start first, or None). In the spec rules the search's own line to its
    first won position is replayed against ``spec.moves``; in a counting mode (automatic moves, reordered columns, sequence
    moves) the solver finds a line under the plain rules, verified the same way -- except on disk up to
    column order alone, where the search's own line (breadth first: short) is taken onto the real columns
    (solver.lines.real_columns) and replayed: the solver may not find a line where the search was too big
    for memory. (In memory a depth-first line can be 100,000 moves, slow to take across in Python.)"""
    line = None
    if result.won and rules.counting and not (rules == rules.plain()._replace(canonical=True)
                                              and getattr(result, "disk", False)):
        line = solve(start, rules.plain()).path
    elif result.won:
        line = [spec.from_position(p) for p in result.winning_line() or ()]
        if rules.canonical:     # its positions are up to column order: the real columns' line, every step
            line = real_columns(rules.plain().spec(), spec.from_position(start), line)   # one of spec.moves
        elif line and not is_a_line(rules.plain().spec(), line):
            line = None
        if not (line and line[0] == spec.from_position(start) and spec.won(line[-1])):
            line = None
    return decide(result.won, result.complete, line, rules), line
