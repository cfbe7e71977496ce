"""The verdict: the one rule that turns searches into "winnable", "unwinnable" or "unknown".

* "winnable" only with a line that replays to a won position under the spec rules (solver.lines: the fast
  legality check, and with ``spec.moves`` itself where the caller asks for it);
* "unwinnable" only after an enumeration completed without a won position, in a counting mode proved to
  lose no win (solver.rules.Rules.unproved names the theorems; the spec rules themselves need none);
* else "unknown": a limit stopped the search, a won position's line did not replay, or the counting mode is
  not proved.

Every decider applies it through :func:`decide`: solver.solve.solve (the solver, then the enumerations),
solver.solve.judge (one enumeration's result: explore, analyze, certgen build, the difficulty survey's disk
tiers), certgen.prove.prove (solve, then build), solver.difficulty.refine (its ladder of solvers and
enumerations) and solver.hand.one_favor.
"""
from .rules import STANDARD, Rules


def decide(won, complete, line=None, rules: Rules = STANDARD) -> str:
    """``winnable`` only when a won position was reached *and* ``line`` (the line to it that replayed under
    the spec rules) is given; ``unwinnable`` only when the enumeration under ``rules`` completed without a
    won position and ``rules.proves_unwinnable()``; else ``unknown``."""
    if won:
        return "winnable" if line is not None else "unknown"
    return "unwinnable" if complete and rules.proves_unwinnable() else "unknown"
