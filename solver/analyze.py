"""Why a deal is stuck: facts about the whole reachable set (seed 000's experiments as a function).

    from solver import analyze, deals, rules
    a = analyze.analyze(deals.ms_deal(11982), rules.STANDARD, exposed=cards.parse_card("QC"))
    a.verdict            # "unwinnable"
    a.frozen_cards       # [AS, 3H, 6H, 4H, QS, AC, QC, 6S] as card indices, column by column, bottom up
    a.max_home           # 2
    a.exposed_positions  # 8: positions with the Q♣ on top of a column

Definitions (over the set R of positions reachable from the start under the rules):

- A card is *frozen* when it sits at the same place as in the start position -- the same column and the
  same depth from the bottom of that column -- in every position of R. Only a column's top card can
  move and cards are only ever put on top, so a card that never moves keeps every card under it in
  place too: the frozen cards of a column are a bottom part of it, and a card is frozen exactly when
  its column, from the bottom up to it, is the same in every position of R. That is what one pass over
  the records checks: per start column, the longest bottom part every record agrees with.
  With ``canonical`` rules the stored positions have their columns in a canonical order, so the start
  column is found by its bottom card instead of by its place (columns are then unordered, so a card
  that is alone in its column and moves to an empty column counts as unmoved: the two positions are
  the same up to column order).
- ``max_home``: the most cards on the foundations in any position of R (from the C core).
- ``exposed_positions``: how many positions of R show the given card on top of a column;
  ``exposed_records``: those positions (P64, in discovery order; the first MAX_EXPOSED_RECORDS kept).

Nothing is claimed from a partial enumeration (the ``max_states`` limit): the verdict is then
"unknown" and the figures are None -- except that a reachable won position settles two of them on its
own (every card has moved, so none is frozen, and 52 cards reach the foundations), once a line to it has
replayed under the spec rules (solver.solve.judge). A complete enumeration without a won position in a
counting mode not proved to lose no win (``--autoplay`` with foundation returns: solver.rules.Rules.unproved)
is "unknown" too, but its figures are given: facts about that mode's set.
"""
from . import search
from .cards import card_name
from .errors import FreecellError
from .limits import ANALYZE_STATES
from .rules import STANDARD
from .solve import judge

CHUNK = 1 << 20          # records exported from the C core per pass step
MAX_EXPOSED_RECORDS = 1000   # exposing positions kept for --json / --svg-dir (the count is exact anyway)


class Analysis:
    """What :func:`analyze` found. ``frozen`` is a list of 8 lists: per start column, the frozen cards
    bottom -> top (None when unknown); ``frozen_cards`` the same flattened, column by column."""

    def __init__(self, start, rules, result, verdict, max_states, frozen, exposed, exposed_positions,
                 exposed_records=None):
        self.start = start
        self.rules = rules
        self.verdict = verdict
        self.states = result.states
        self.max_home = result.max_home if verdict != "unknown" or (result.complete and not result.won) else None
        self.max_home_so_far = result.max_home
        self.won = bool(result.won)
        self.complete = bool(result.complete)
        self.status = result.status          # "done", "won" (stopped at the first win) or "limit"
        self.seconds = float(result.seconds)
        self.max_states = max_states
        self.frozen = frozen
        self.exposed = exposed
        self.exposed_positions = exposed_positions
        self.exposed_records = exposed_records or []

    @property
    def frozen_cards(self):
        if self.frozen is None:
            return None
        return [c for col in self.frozen for c in col]

    def exposing_positions(self):
        """The positions (plain tuples) that show the --exposed card on top of a column, as kept."""
        from .packed import unpack
        return [unpack(rec) for rec in self.exposed_records]

    def frozen_places(self):
        """{card: (column index, depth from the bottom)} of the frozen cards (empty when unknown)."""
        if self.frozen is None:
            return {}
        return {c: (i, d) for i, col in enumerate(self.frozen) for d, c in enumerate(col)}

    def to_json(self):
        fz = self.frozen
        obj = {
            "states": self.states,
            "verdict": self.verdict,
            "complete": self.complete,
            "max_home": self.max_home,
            "frozen": None if fz is None else [card_name(c) for c in self.frozen_cards],
            "frozen_by_column": None if fz is None else [[card_name(c) for c in col] for col in fz],
            "seconds": round(self.seconds, 6),
            "max_states": self.max_states,
        }
        if self.verdict == "unknown" and self.complete and not self.won:
            obj["note"] = self.rules.unproved()
        elif self.verdict == "unknown":
            obj["max_home_so_far"] = self.max_home_so_far
        if self.exposed is not None:
            obj["exposed"] = {"card": card_name(self.exposed), "positions": self.exposed_positions}
            if self.exposed_positions is not None:
                obj["exposed"]["listed"] = [
                    {"columns": [[card_name(c) for c in col] for col in cols],
                     "freecells": [card_name(c) for c in cells], "foundations": dict(zip("CDHS", home))}
                    for cols, cells, home in self.exposing_positions()]
        return obj


def _start_columns(start):
    return [bytes(c + 1 for c in col) for col in start[0]]


def _pass(blobs, start, canonical, card, keep=None):
    """One pass over the records: (frozen prefix lengths or None, exposed count or None); the exposing
    records are appended to ``keep`` (a list), up to MAX_EXPOSED_RECORDS."""
    do_frozen = start is not None
    if do_frozen:
        full = _start_columns(start)
        m = [len(c) for c in full]
        pref = list(full)
        by_bottom = {c[0]: i for i, c in enumerate(full) if c}
    top = None if card is None else bytes([card + 1])
    exposed = 0
    for blob in blobs:
        for o in range(0, len(blob), 64):
            cols = blob[o:o + 64].split(b"\0", 8)
            del cols[8]
            if top is not None:
                for c in cols:
                    if c[-1:] == top:
                        exposed += 1
                        if keep is not None and len(keep) < MAX_EXPOSED_RECORDS:
                            keep.append(blob[o:o + 64])
                        break
            if not do_frozen:
                continue
            if not canonical:
                for i in range(8):
                    if m[i] and not cols[i].startswith(pref[i]):
                        m[i], pref[i] = _agreeing(full[i], cols[i], m[i])
            else:
                seen = [False] * 8
                for c in cols:
                    i = by_bottom.get(c[0]) if c else None
                    if i is None:
                        continue
                    seen[i] = True
                    if m[i] and not c.startswith(pref[i]):
                        m[i], pref[i] = _agreeing(full[i], c, m[i])
                for i in range(8):
                    if not seen[i] and m[i]:
                        m[i] = 0
                        pref[i] = b""
    return (m if do_frozen else None), (exposed if top is not None else None)


def _agreeing(full, col, k):
    """The longest bottom part, shorter than k cards, of the start column ``full`` that ``col`` begins with."""
    k -= 1
    while k and not col.startswith(full[:k]):
        k -= 1
    return k, full[:k]


def _chunks(search, n):
    for first in range(0, n, CHUNK):
        yield search.export_p64(first, CHUNK)


def analyze(start, rules=None, exposed=None, max_states=ANALYZE_STATES, progress=False):
    """Enumerate the whole reachable set from ``start`` and analyse it (the search stops at the first
    won position only when ``exposed`` is None: a win already settles the other figures).

    ``exposed``: a card index to count the positions showing it on top of a column. ``max_states``:
    the enumeration limit (None: no limit); reaching it makes the analysis "unknown"."""
    if exposed is not None and not (isinstance(exposed, int) and 0 <= exposed < 52):
        raise FreecellError(f"not a card index: {exposed!r}")
    rules = STANDARD if rules is None else rules
    # A reachable won position settles the frozen cards (none) and max_home (52) by itself, so the
    # search may stop at the first win unless positions are to be counted (--exposed).
    result = search.explore(start, rules, max_states=max_states, progress=progress,
                            stop_on_win=exposed is None)
    try:
        verdict, _line = judge(start, result, rules)
        frozen = exposed_n = None
        keep = []
        if result.complete and (verdict != "unknown" or not result.won):
            m, exposed_n = _pass(_chunks(result.search, result.states), start, rules.canonical, exposed, keep)
            frozen = [list(col[:k]) for col, k in zip(start[0], m)]
        if verdict == "winnable":
            frozen = [[] for _ in range(8)]     # a won position is reachable: every card has moved
        return Analysis(start, rules, result, verdict, max_states, frozen, exposed, exposed_n, keep)
    finally:
        result.close()

