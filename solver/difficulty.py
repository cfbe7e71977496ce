"""Difficulty by free cells needed (seed 004; issue 13): for a deal, the fewest free cells k with which
it can be won, proven both ways --

* k: a complete-or-winning search with k cells reached a won position, and its line replays under the
  spec rules (solver.lines.judge);
* k - 1 (when k > 0): the whole reachable set with k - 1 cells was enumerated without a won position.

Cells are tried 0, 1, 2, ... up to 4. When an enumeration stops at the limit, the solver tries that
many cells: a win gives an upper bound, and the deal is "undecided" between its bounds (never dropped,
never guessed). Seed 004's classes: Easy k <= 1, Medium k = 2, Hard k = 3 or 4; a deal that needs more
than 4 cells (unwinnable with 4) is counted apart.
"""
from collections import namedtuple

from . import deals, search
from .lines import judge
from .progress import bar
from .rules import Rules

MAX_K = 4
DEFAULT_MAX_STATES = 3_000_000
Need = namedtuple("Need", "deal k low high states")
Need.__doc__ = """k: the fewest cells proven (None when undecided); low/high: what is proven (k - 1 cells
do not suffice: low = k; a win with high cells; high None: none found up to 4); states: positions
searched in all."""


def cells_needed(deal, max_states=DEFAULT_MAX_STATES):
    """The :class:`Need` of Microsoft deal ``deal``."""
    from .solve import solve
    pos = deals.ms_deal(deal)
    low, total = 0, 0          # low: every count below it is proven not enough
    for k in range(MAX_K + 1):
        rules = Rules(cells=k)
        r = search.explore(pos, rules, max_states=max_states)
        try:
            verdict, _line = judge(pos, r, rules)
            total += r.states
        finally:
            r.close()
        if verdict == "winnable":
            return Need(deal, k if low == k else None, low, k, total)
        if verdict == "unwinnable":
            low = k + 1
            continue
        s = solve(pos, rules, max_states=max_states, strict=False)    # unknown: an upper bound at least
        total += s.states
        if s.verdict == "winnable":
            return Need(deal, k if low == k else None, low, k, total)
    return Need(deal, None if low <= MAX_K else MAX_K + 1, low, None, total)


def klass(n: Need):
    if n.k is None:
        return "undecided"
    if n.k > MAX_K:
        return "more"
    return "easy" if n.k <= 1 else "medium" if n.k == 2 else "hard"


def survey(first, last, max_states=DEFAULT_MAX_STATES, progress=False):
    """[Need] for deals first..last, and the counts per class (easy, medium, hard, more, undecided)."""
    out = []
    with bar(progress, total=last - first + 1, unit=" deals", desc="difficulty") as b:
        for d in range(first, last + 1):
            out.append(cells_needed(d, max_states))
            b.update(1)
    counts = {c: 0 for c in ("easy", "medium", "hard", "more", "undecided")}
    for n in out:
        counts[klass(n)] += 1
    return out, counts


def csv_text(needs):
    rows = ["deal,k,class,proven_low,win_with,states"]
    rows += [f"{n.deal},{'' if n.k is None else n.k},{klass(n)},{n.low},{'' if n.high is None else n.high},"
             f"{n.states}" for n in needs]
    return "\n".join(rows) + "\n"
