"""The independent checker: the three fence conditions, decided by the Python transliteration of the
Lean spec (solver/spec.py), never by the C core.

  1. the start position is in the set;
  2. every successor (`spec.moves`) of every member is in the set;
  3. no member is won.

These are the conditions `checkCert` decides in Lean. A certificate up to column order (header rules
``"column_order": true``; docs/TRUST.md) is checked with positions taken up to the order of their columns,
each put into the checkers' order (certgen/columns.py's ``canon``) before it is looked up: the start, put
in that order, is a member; every member is stored in that order (else it is refused: a member in another
order names no class the checker would look up); none is won; and every successor of a member, put in
that order, is a member. These are the conditions CertUpTo.v's ``checkCertUpTo`` decides in Coq; Columns.v's
``unwinnable_of_fence_up_to_column_order`` makes them a proof that no reachable position is won. With safe
automatic moves beside it (header rules ``"autoplay": "safe"``; docs/CERTIFICATE.md) every position looked up
(the start, each successor) is first taken after its safe automatic moves (certgen/autoplay.py's
``autoplay``), and every member must be after them (``settled``; else it is refused, "autoplay"): the
conditions CertAuto.v's ``checkCertAuto`` decides, and Autoplay.v's
``unwinnable_of_safe_autoplay_fence_up_to_column_order`` makes a proof. The start
is checked first (so a missing move of the start is reported from it), then every other member once, in the
certificate's order; the check stops at the first failure. A large certificate is checked by several processes at once (``jobs``; forked, so
they share the decoded set): each takes a slice of the members, and the first failure in the members'
order is the one reported, whatever the number of processes.
"""
import gc
import multiprocessing as mp
import os
from dataclasses import dataclass
from typing import Optional

from solver import spec
from solver.cards import card_name
from solver.errors import FreecellError, WorkerLost
from solver.progress import bar
from solver.workers import cpus, end_pool, orphan_watch, pool_results, start_pool

from .autoplay import autoplay, settled
from .certificate import Certificate
from .columns import canon as column_order
from .members import Members, StartMismatch, decode

PARALLEL_FROM = 20_000      # members from which the check is split over processes
SLICES = 32                 # slices of the members per check (a progress step each)
MAX_JOBS = 8


@dataclass
class CheckResult:
    ok: bool
    states: int
    checked: int                  # members whose successors were checked
    successors: int               # successor positions looked up
    failure: Optional[str] = None  # "start" | "successor" | "won" | "start-mismatch" | "column-order" | "autoplay"
    message: str = ""
    missing: Optional[spec.State] = None
    parent: Optional[spec.State] = None
    won_state: Optional[spec.State] = None
    misplaced: Optional[spec.State] = None  # "column-order", "autoplay": the member stored in another column order,
                                            # or not after its safe automatic moves
    subject: str = ""             # what was checked: the start (deal, code or board digest) and the rules
    start: Optional[dict] = None  # the start for --json: {"deal": N} | {"code": …} | {"board": …}, "digest"
    rules: Optional[dict] = None


def describe(s: spec.State) -> str:
    cols = " / ".join(" ".join(card_name(spec.key(c)) for c in reversed(col)) or "-" for col in s.cols)
    cells = " ".join(card_name(spec.key(c)) for c in s.cells) or "-"
    return f"[cols: {cols} | cells: {cells} | home: {' '.join(map(str, s.home))}]"


# The work of one check, set before the worker processes fork (they inherit it, nothing is copied).
_WORK = {}


@dataclass(frozen=True)
class Lookup:
    """How a certificate's rules name a position: ``name`` (the position a member stands for: itself; up to
    column order, in the checkers' column order; with safe automatic moves, after them first) and the words
    the verdicts say it in."""
    up_to: bool
    auto: bool

    def name(self, s: spec.State) -> spec.State:
        if self.auto:
            s = autoplay(s)
        return column_order(s) if self.up_to else s

    @property
    def start_words(self) -> str:
        return AFTER_AUTO if self.auto else IN_ORDER if self.up_to else ""

    @property
    def successor_words(self) -> str:
        return PUT_AFTER_AUTO if self.auto else PUT_IN_ORDER if self.up_to else ""

    @property
    def won_words(self) -> str:
        return NOR_SAFE_CARD if self.auto else ""


def lookup(rules) -> Lookup:
    """The Lookup of a certificate's rules (solver.rules.Rules)."""
    return Lookup(rules.column_order, rules.column_order and rules.autoplay == "safe")


def _check_slice(bounds):
    """Check members lo..hi-1 (but the start, checked first). Returns (checked, looked, failure or None);
    a failure is (kind, state, parent). Up to column order each member must be stored in the checkers' column
    order, with safe automatic moves be after them, and each successor is named by ``Lookup.name`` before it
    is looked up."""
    lo, hi = bounds
    rules, states, members, skip, how = (_WORK["rules"], _WORK["states"], _WORK["members"], _WORK["skip"],
                                         _WORK["lookup"])
    checked = looked = 0
    for i in range(lo, hi):
        if i == skip:
            continue
        s = states[i]
        if how.up_to and column_order(s) != s:
            return checked, looked, ("column-order", s, None)
        if how.auto and not settled(s):
            return checked, looked, ("autoplay", s, None)
        if spec.won(s):
            return checked, looked, ("won", s, None)
        for t in spec.moves(rules, s):
            looked += 1
            t = how.name(t)
            if t not in members:
                return checked, looked, ("successor", t, s)
        checked += 1
    return checked, looked, None


def _slices(n, jobs):
    """(lo, hi) bounds, in order, and the processes to run them (None: in this process, also when the system
    cannot start them)."""
    jobs = min(jobs, MAX_JOBS)
    if jobs <= 1 or n < PARALLEL_FROM or "fork" not in mp.get_all_start_methods():
        return [(0, n)], None
    try:
        pool = start_pool(jobs, orphan_watch, (os.getpid(),))
    except FreecellError:
        return [(0, n)], None
    step = -(-n // SLICES)
    return [(lo, min(lo + step, n)) for lo in range(0, n, step)], pool


def check(cert: Certificate, progress: bool = False, members: Optional[Members] = None,
          jobs: Optional[int] = None) -> CheckResult:
    """Check ``cert`` (its positions ``members`` when already decoded: certgen/members.py). ``jobs``:
    processes for a large certificate (default: the CPUs this process may use)."""
    n = cert.states
    named = {"subject": cert.subject(), "start": cert.start_json(), "rules": dict(cert.rules)}
    try:
        m = members if members is not None else decode(cert, progress)
    except StartMismatch as e:
        return CheckResult(False, n, 0, 0, "start-mismatch", str(e), **named)
    member_set = set(m.states)
    how = lookup(m.rules)
    start = how.name(m.start)
    if start not in member_set:
        return CheckResult(False, n, 0, 0, "start", f"the start position{how.start_words} is not in the "
                           f"certificate", missing=start, **named)
    _WORK.update(rules=m.rules.plain().spec(), states=[start], members=member_set, skip=None, lookup=how)
    checked, looked, failure = _check_slice((0, 1))
    if jobs is None:
        jobs = cpus()
    _WORK.update(states=m.states, skip=m.states.index(start))
    gc.freeze()     # the decoded set is long-lived: no collection scans it (and forked workers share its pages)
    pool, lost = None, False
    try:
        bounds, pool = _slices(n, jobs) if failure is None else ([], None)
        with bar(progress, total=n, unit=" states", desc="check") as b:
            results = pool_results(pool, pool.imap(_check_slice, bounds)) if pool is not None else \
                map(_check_slice, bounds)
            for (lo, hi), (c, k, failure) in zip(bounds, results):
                checked, looked = checked + c, looked + k
                b.update(hi - lo)
                if failure is not None:
                    break
    except WorkerLost:
        lost = True
        raise
    finally:
        _WORK.clear()
        gc.unfreeze()
        if pool is not None:
            end_pool(pool, lost)
    if failure is None:
        return CheckResult(True, n, checked, looked, None,
                           f"valid for {named['subject']}: {n:,} state{'' if n == 1 else 's'}; the start position"
                           f"{how.start_words} is in the set, every one of the {looked:,} successors of its "
                           f"members{how.successor_words} is in it, and none of them is won{how.won_words}", **named)
    kind, state, parent = failure
    if kind == "won":
        return CheckResult(False, n, checked, looked, "won", "the certificate contains a won position",
                           won_state=state, **named)
    if kind in ("column-order", "autoplay"):
        return CheckResult(False, n, checked, looked, kind, NOT_IN_ORDER if kind == "column-order" else NOT_SETTLED,
                           misplaced=state, **named)
    return CheckResult(False, n, checked, looked, "successor",
                       f"a successor of a member{how.successor_words} is not in the certificate",
                       missing=state, parent=parent, **named)


IN_ORDER = " (its columns in the checkers' order)"
PUT_IN_ORDER = " (put in the checkers' column order)"
AFTER_AUTO = " (after the safe automatic moves, its columns in the checkers' order)"
PUT_AFTER_AUTO = " (taken after the safe automatic moves and put in the checkers' column order)"
NOR_SAFE_CARD = " or holds a card that goes home by the safe rule"
NOT_IN_ORDER = ("a member is not stored in the checkers' column order (columns sorted by their bottom card, "
                "empty columns last)")
NOT_SETTLED = ("a member is not after its safe automatic moves (a card on top of one of its columns or in a "
               "free cell goes home by the safe rule)")


def report(res: CheckResult) -> str:
    """The checker's verdict in plain words, naming what was checked; one line (two for a missing
    successor)."""
    if res.ok:
        return res.message
    head = f"invalid for {res.subject}: " if res.subject else "invalid: "
    if res.failure == "successor":
        return (f"{head}{res.message}: missing {describe(res.missing)}\n"
                f"  reached in one move from the member {describe(res.parent)}")
    if res.failure == "won":
        return f"{head}{res.message}: {describe(res.won_state)}"
    if res.failure in ("column-order", "autoplay"):
        return f"{head}{res.message}: {describe(res.misplaced)}"
    if res.failure == "start":
        return f"{head}{res.message}: {describe(res.missing)}"
    return f"{head}{res.message}"
