"""The sampled reference check (``certgen check --reference --sample N``): the reference checker's three
fence conditions for a certificate too big to decode whole, still decided by the Python transliteration of
the Lean spec (solver/spec.py), never by the C core.

The records stay one bytearray of sorted 64-byte P64 records (certificate.read_joined: 64 bytes a
position, against the ~1 KB of a decoded spec State in a set), and membership is a binary search over it --
up to solver.limits.SAMPLE_MEMORY bytes of records (:func:`read`). Past it they stay on disk and are read
twice (:func:`_check_streamed`): the first pass checks every record and every member and computes the
successors of the start and of the drawn members, the second merge-joins those successors, sorted, with the
records. Memory then grows with the sample, not with the certificate; the verdict, its counts and its words
are the same (tests/certgen/test_sampled_stream.py compares the two on every form and on mutants).

  1. the start position is in the set: checked (on the whole set, by a binary search);
  3. no member is won: checked on every member. A won position has every card on its foundation, so its
     P64 record holds no card: it is the 64 zero bytes (the heights are derived from the missing cards,
     and the reader checked every record to be a position), and a binary search for it decides the
     condition for all the members at once;
  2. every successor (``spec.moves``) of a member is in the set: checked for the start and for N members
     drawn at random (``random.Random(seed).sample``), in the records' order. Each one is decoded to a spec
     State (certgen/members.py's decoder), its successors are computed by ``spec.moves`` and packed back to
     P64 records (solver/packed.py, the encoding the certificate uses: equal positions, equal bytes), and
     each is looked up. With N at least the number of members, every member is checked: the full
     reference check's verdict and successor count.

Up to column order (header rules ``"column_order": true``), as the full reference check (certgen/checker.py):
the start and every successor are put into the checkers' column order (certgen/columns.py's ``canon``)
before they are looked up, and a member stored in another order is refused ("column-order"). That is checked
on every member, on its bytes (:func:`in_column_order`: a P64 record lists each column bottom card first, so
the bottom cards' keys are the first bytes of the eight columns; tests/certgen/test_columns.py compares it with
``canon`` on every member of #11982's certificate up to column order and on reordered ones), not only on the
drawn ones. A sample that covers every member checks the order member by
member with the closure, in the records' order, as the full check does (the same verdict and counts). With
safe automatic moves beside it (``"autoplay": "safe"``) the start and every successor are taken after them
first (checker.Lookup), and a member not after them is refused ("autoplay"), on every member too, on its
bytes (autoplay.settled_record).

A sample proves nothing about the closure of the members it did not draw: it is a spot check of the fast
checker's verdict (docs/TRUST.md), not a verdict, and :func:`verdict` gives it its own exit status
(SAMPLE_ONLY) and the JSON ``"valid": null``. A failure it finds is a real one (exit 1, ``"valid": false``);
a sample that covers every member is the full check (exit 0, ``"valid": true``).
"""
import bisect
import hashlib
import itertools
import multiprocessing as mp
import os
import random
from dataclasses import dataclass
from typing import Optional, Tuple
from solver import packed, spec
from solver.errors import FreecellError, WorkerLost
from solver.limits import SAMPLE_MEMORY
from solver.progress import bar
from solver.workers import cpus, end_pool, orphan_watch, pool_results, start_pool

from . import certificate
from .certificate import Summary
from .autoplay import settled_record
from .checker import MAX_JOBS, NOT_IN_ORDER, NOT_SETTLED, CheckResult, lookup
from .members import Decoder, StartMismatch, _Memo, rules_of, start_of

SIZE = packed.SIZE
WON = bytes(SIZE)       # the P64 record of the won position: no card in a column or a cell
DEFAULT_SAMPLE = 100_000
MAX_SEED = 2 ** 64 - 1    # printed and given back with --seed
SHARD_BLOCK = 1 << 14   # records a block: the streamed first pass's processes check the blocks in turn
SAMPLE_ONLY = 5         # the exit status of "valid on a sample": not a verdict (neither 0 nor 1)


class Records:
    """Sorted, distinct P64 records held as one bytes-like object; ``rec in records`` is a binary search."""

    def __init__(self, body):
        if len(body) % SIZE:
            raise FreecellError(f"{len(body)} bytes of records are not whole {SIZE}-byte records")
        self.body = body
        self.count = len(body) // SIZE

    def __len__(self):
        return self.count

    def __getitem__(self, i: int) -> bytes:
        return bytes(self.body[i * SIZE:(i + 1) * SIZE])

    def __contains__(self, rec: bytes) -> bool:
        body, lo, hi = self.body, 0, self.count
        while lo < hi:
            mid = (lo + hi) // 2
            at = body[mid * SIZE:(mid + 1) * SIZE]
            if at < rec:
                lo = mid + 1
            elif at == rec:
                return True
            else:
                hi = mid
        return False


def record_of(s: spec.State) -> bytes:
    """The P64 record of a spec State: the one the certificate holds for its position."""
    return packed.pack(spec.to_position(s))


def _column(col) -> bytes:
    return bytes(spec.key(c) + 1 for c in reversed(col)) + b"\0"


def _cells(cells) -> bytes:
    return bytes(sorted(spec.key(c) + 1 for c in cells))


class Encoder:
    """spec States -> P64 records, the bytes of :func:`record_of` (tests/certgen/test_sampled.py compares them on
    every member of #11982 and its successors), with each distinct column and set of free cells encoded once:
    successors share all their columns but one or two with their parent (two fifths of the time of
    ``record_of``)."""

    def __init__(self):
        self._cols = _Memo(_column)
        self._cells = _Memo(_cells)

    def record(self, s: spec.State) -> bytes:
        out = b"".join(map(self._cols.__getitem__, s.cols)) + self._cells[s.cells]
        if len(out) > SIZE:
            raise FreecellError("position does not fit in 64 bytes")
        return out + bytes(SIZE - len(out))


def in_column_order(rec: bytes) -> bool:
    """Whether the P64 record ``rec`` of a valid position (packed.validator) holds its columns in the checkers'
    order (certgen/columns.py: sorted by their bottom card's key, empty columns last), i.e. ``canon(s) == s``
    for its State: the first bytes of its eight columns (key + 1; 53 for an empty column) do not go down.
    (Non-empty columns have different bottom cards, and empty ones are all alike.)"""
    keys = [seg[0] if seg else 53 for seg in rec.split(b"\0", 8)[:8]]
    return keys == sorted(keys)


def drawn(members: int, sample: int, seed: int):
    """The indices of the members whose closure is checked: all of them (in order) when ``sample`` is at
    least ``members``, else ``sample`` of them drawn by ``random.Random(seed)``, in ascending order."""
    if sample >= members:
        return range(members)
    return sorted(random.Random(seed).sample(range(members), sample))


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def words(sample: int, members: int) -> str:
    """Whose closure is checked, in words (singular and plural right)."""
    if sample >= members:
        if members == 1:
            return f"the one member (a sample of {sample:,} covers it)"
        return f"every one of the {members:,} members (a sample of {sample:,} covers them all)"
    return f"a sample of {sample:,} of {members:,} members"


def _closure_words(n: int, sample: int, seed: int, others: int, looked: int, put: str = "") -> str:
    """What a valid sampled check found of the closure: the successors looked up, of whom (``put``: how they
    were looked up, after them)."""
    if n == 1:
        whose = "the start"
    elif sample >= n:
        whose = "the start and every member"
    elif others:
        whose = f"the start and the {_count(others, 'other member')} drawn with seed {seed}"
    else:
        whose = f"the start (the one member drawn with seed {seed})"
    if looked == 0:
        return f"there is no successor of {whose} (none is missing)"
    if looked == 1:
        return f"the one successor of {whose}{put} is in it"
    return f"every one of the {looked:,} successors of {whose}{put} is in it"


class _Plan:
    """What both modes of the check work from, and the words of every verdict: the certificate's ``n``
    members, the start (in the checkers' order, after the automatic moves when the rules have them) and its
    record, the Lookup, the drawn members (``picks``). ``mismatch``: the start-mismatch refusal (the start
    and the rest are then unset)."""

    def __init__(self, head: Summary, n: int, sample: int, seed: int):
        self.n, self.sample, self.seed = n, sample, seed
        self.named = {"subject": head.subject(), "start": head.start_json(), "rules": dict(head.rules)}
        self.of = f" (closure checked on the start and {words(sample, n)} drawn with seed {seed})"
        self.mismatch = None
        try:
            start = start_of(head)
        except StartMismatch as e:
            self.mismatch = self.result(False, 0, 0, "start-mismatch", str(e))
            return
        rules = rules_of(head)
        self.how = how = lookup(rules)
        self.order = how.name
        self.start = self.order(start)
        self.start_rec = record_of(self.start)
        self.rules = rules.plain().spec()
        # every member drawn: its order checked with its closure, in the records' order, as the full check
        # does; else on every member first
        self.in_loop = how.up_to and sample >= n
        self.picks = drawn(n, sample, seed)
        self.decoder, self.encoder = Decoder(), Encoder()

    def result(self, ok, checked, looked, failure, message, **found) -> CheckResult:
        return CheckResult(ok, self.n, checked, looked, failure, message, **found, **self.named)

    def no_start(self) -> CheckResult:
        return self.result(False, 0, 0, "start", f"the start position{self.how.start_words} is not in the "
                           f"certificate", missing=self.start)

    def won(self) -> CheckResult:
        return self.result(False, 0, 0, "won", "the certificate contains a won position",
                           won_state=self.decoder.state(WON))

    def misplacement(self, rec: bytes) -> Optional[str]:
        """Up to column order: "column-order" for a member stored in another order, "autoplay" for one not
        after its safe automatic moves (with them), else None."""
        if not self.how.up_to:
            return None
        if not in_column_order(rec):
            return "column-order"
        if self.how.auto and not settled_record(rec):
            return "autoplay"
        return None

    def misplaced(self, rec: bytes, kind: str, checked: int = 0, looked: int = 0) -> CheckResult:
        why = NOT_IN_ORDER if kind == "column-order" else NOT_SETTLED
        if self.in_loop:
            why += self.of
        else:
            why = why[:-1] + ("; the order checked on every member)" if kind == "column-order"
                              else "; checked on every member)")
        return self.result(False, checked, looked, kind, why, misplaced=self.decoder.state(rec))

    def state(self, i, rec: bytes) -> spec.State:
        """The State of the visit of member ``i`` (None: the start) whose record is ``rec``."""
        return self.start if i is None else self.decoder.state(rec)

    def successors(self, s: spec.State):
        """The successors of ``s``, each as it is looked up (``Lookup.name``)."""
        return map(self.order, spec.moves(self.rules, s))

    def missing(self, checked: int, looked: int, t: spec.State, s: spec.State) -> CheckResult:
        return self.result(False, checked, looked, "successor", f"a successor of a member{self.how.successor_words}"
                           f" is not in the certificate" + self.of, missing=t, parent=s)

    def valid(self, checked: int, looked: int, others: int) -> CheckResult:
        n, sample, how = self.n, self.sample, self.how
        won = "the one member is not won" if n == 1 else f"none of the {n:,} members is won"
        return self.result(True, checked, looked, None,
                           f"valid on a sample for {self.named['subject']}: {words(sample, n)}: the start position"
                           f"{how.start_words} is in the set, {won}, and "
                           f"{_closure_words(n, sample, self.seed, others, looked, how.successor_words)} (closure"
                           f" checked on {'every member' if checked == n else _count(checked, 'member') + ' only'}; "
                           f"the start{', the column order' if how.up_to else ''}"
                           f"{', the automatic moves' if how.auto else ''} and 'no member is won' on all)")


class Streamed:
    """The records of the certificate at ``path``, left on disk: :func:`check` reads them twice (:func:`read`)."""

    def __init__(self, path: str):
        self.path = path


def read(path: str, budget: Optional[int] = None):
    """The certificate at ``path`` for :func:`check`: its header and its records, joined in memory
    (certificate.read_joined) when their ``64 × states`` bytes are at most ``budget`` (default
    solver.limits.SAMPLE_MEMORY; tests give 0 to stream a small one), else left on disk (Streamed: memory
    independent of the number of states). A FIFO or a device is read once, in memory."""
    budget = SAMPLE_MEMORY if budget is None else budget
    if os.path.isfile(path):
        head = certificate.summarize(path, records=False)
        if head.states * SIZE > budget:
            return head, Streamed(path)
    return certificate.read_joined(path)


def check(head: Summary, body, sample: int, seed: int, progress: bool = False, jobs: Optional[int] = None,
          block: int = SHARD_BLOCK) -> CheckResult:
    """The sampled check of the certificate with header ``head`` and records ``body`` (:func:`read`: joined
    bytes, or Streamed: then its first pass shared by ``jobs`` processes, a ``block`` of records each in turn;
    :func:`_check_streamed`)."""
    if isinstance(body, Streamed):
        return _check_streamed(head, body.path, sample, seed, progress, jobs, block)
    recs = Records(body)
    n = len(recs)
    p = _Plan(head, n, sample, seed)
    if p.mismatch:
        return p.mismatch
    start_rec = p.start_rec
    if start_rec not in recs:
        return p.no_start()
    if WON in recs:
        return p.won()
    if p.how.up_to and not p.in_loop:
        with bar(progress, total=n, unit=" states", desc="column order") as b:
            for i in range(n):
                kind = p.misplacement(recs[i])
                if kind:
                    return p.misplaced(recs[i], kind)
                if i % 65536 == 65535:
                    b.update(65536)
            b.update(n % 65536)
    checked = looked = others = 0
    with bar(progress, total=len(p.picks) + 1, unit=" states", desc="check (sample)") as b:
        for i in itertools.chain((None,), p.picks):      # the start first (picks may be a range of 10**8)
            rec = start_rec if i is None else recs[i]
            if i is not None and rec == start_rec:
                b.update(1)
                continue        # the start was checked first
            if p.in_loop and i is not None:
                kind = p.misplacement(rec)
                if kind:
                    return p.misplaced(rec, kind, checked, looked)
            s = p.state(i, rec)
            for t in p.successors(s):
                looked += 1
                if p.encoder.record(t) not in recs:
                    return p.missing(checked, looked, t, s)
            checked += 1
            others += i is not None
            b.update(1)
    return p.valid(checked, looked, others)


class _FirstPass:
    """The streaming check's first pass, fed the records a run at a time: whether the start and the won
    record are among them, the first member misplaced (up to column order), and the visits (the start's,
    then the drawn members' in the records' order, as :func:`check` makes them) with their successors, as
    the ``SIZE + SEQ`` bytes of each successor's record and its number in the order they are looked up.
    ``shard`` (certificate.shard_ranges): the members whose placement this process checks, one of several; the
    first of them (k = 0, or no shard) makes the start's, the won record's and the drawn members' part."""

    def __init__(self, p: _Plan, shard=None):
        self.p, self.shard = p, shard
        self.lead = shard is None or shard[0] == 0
        self.count = 0                 # records fed so far
        self.has_start = self.has_won = False
        self.misplaced = None          # (index, kind, record) of the first member misplaced
        self.next = 0                  # the next drawn member: p.picks[self.next]
        self.visits = []               # (number of the visit's first successor, member index or None, record)
        self.keys = []                 # successor record + its number (SEQ bytes, big-endian)
        self.looked = 0
        # in a shard, the records of the others' blocks are not checked here: one that is no position is
        # not visited (its owner refuses it; its successors could be no positions either)
        self.problem = None if shard is None else packed.validator()
        if self.lead:
            self.visit(None, p.start_rec)

    def visit(self, i, rec):
        p = self.p
        self.visits.append((self.looked, i, rec))
        for t in p.successors(p.state(i, rec)):
            self.keys.append(p.encoder.record(t) + self.looked.to_bytes(SEQ, "big"))
            self.looked += 1

    def __call__(self, run: bytes):
        p, base, k = self.p, self.count, len(run) // SIZE
        self.count += k
        if p.how.up_to and self.misplaced is None:
            self._place(run, base, k)
        if not self.lead:
            return
        if base == 0 and run[:SIZE] == WON:     # the smallest record there is: the first one if it is there
            self.has_won = True
        if not self.has_start and run[:SIZE] <= p.start_rec <= run[-SIZE:] and p.start_rec in Records(run):
            self.has_start = True
        picks, end = p.picks, base + k
        while self.next < len(picks) and picks[self.next] < end:
            i = picks[self.next]
            self.next += 1
            if self.misplaced is not None and (not p.in_loop or self.misplaced[0] <= i):
                continue                # its verdict is the misplaced member's (no successor comes first)
            rec = run[(i - base) * SIZE:(i - base + 1) * SIZE]
            if rec != p.start_rec and not (self.problem and self.problem(rec)):  # the start was visited first
                self.visit(i, rec)

    def _place(self, run: bytes, base: int, k: int):
        for lo, hi in certificate.shard_ranges(base, k, self.shard):
            for j in range(lo, hi):
                rec = run[j * SIZE:(j + 1) * SIZE]
                kind = self.p.misplacement(rec)
                if kind:
                    self.misplaced = (base + j, kind, rec)
                    return

    def before(self, m: int):
        """Keep the visits of the members before member ``m`` only (the first misplaced member, found by another
        process, when every member is drawn: :func:`check` stops there)."""
        v = next((v for v, (_, i, _) in enumerate(self.visits) if i is not None and i >= m), len(self.visits))
        if v < len(self.visits):
            self.looked = self.visits[v][0]
            del self.visits[v:]
            self.keys = [key for key in self.keys if int.from_bytes(key[SIZE:], "big") < self.looked]


SEQ = 6                         # bytes of a successor's number in the streaming check (up to 2**48 successors)


class _SecondPass:
    """The streaming check's second pass: the successors (``SIZE + SEQ`` bytes each), sorted, each record
    kept once (with the least number it was looked up as), merge-joined with the records fed a run at a time:
    ``found[j]`` for ``keys[j]``. ``keys`` (the first pass's list) is emptied: its bytes are this pass's."""

    def __init__(self, keys):
        keys.sort()
        self.keys = [k for i, k in enumerate(keys) if not i or keys[i - 1][:SIZE] != k[:SIZE]]
        keys.clear()
        self.found = bytearray(len(self.keys))
        self.next = 0

    def __call__(self, run: bytes):
        keys, found, j, last, recs = self.keys, self.found, self.next, run[-SIZE:], Records(run)
        while j < len(keys):
            rec = keys[j][:SIZE]
            if rec > last:
                break
            found[j] = rec in recs
            j += 1
        self.next = j

    def first_missing(self) -> Optional[int]:
        """The least number of a successor not found (None: every one was)."""
        return min((int.from_bytes(k[SIZE:], "big") for k, ok in zip(self.keys, self.found) if not ok),
                   default=None)


CHANGED = "{}: the certificate changed between two readings of it"


def _same(head: Summary, again: Summary, path: str):
    """Refuse a file whose header is not the one read first (``read``'s): the check's plan is made from it."""
    if (again.source, again.rules, again.start, again.states) != (head.source, head.rules, head.start, head.states):
        raise FreecellError(CHANGED.format(path))


@dataclass
class _Pass:
    """What one process of the first pass found (``error``: its refusal, as ``(at, line)``)."""
    error: Optional[Tuple[int, str]] = None
    digest: bytes = b""
    first: Optional[_FirstPass] = None


_WORK = {}      # the first pass's work, set before its processes fork (they inherit it)


def _first_pass(k: int) -> _Pass:
    """Process ``k`` of the first pass: every record read (and its digest taken); the records and members of
    its shard checked; with k = 0, the start, the won record and the drawn members too."""
    w = _WORK
    p = _Plan(w["head"], w["head"].states, w["sample"], w["seed"])
    shard = None if w["jobs"] == 1 else (k, w["jobs"], w["block"])
    first = None if p.mismatch else _FirstPass(p, shard)
    digest = hashlib.sha256()
    with bar(w["progress"] and k == 0, total=w["head"].states, unit=" states", desc="pass 1: members") as b:
        def feed(run):
            digest.update(run)
            if first is not None:
                first(run)
            b.update(len(run) // SIZE)
        try:
            _same(w["head"], certificate.stream_records(w["path"], feed, shard=shard), w["path"])
        except FreecellError as e:
            return _Pass(error=(getattr(e, "at", -1), str(e)))
    if first is not None:
        first.p = first.problem = None  # its Decoder, Encoder and validator stay here
    return _Pass(digest=digest.digest(), first=first)


def _first_passes(jobs: int):
    """The first pass by ``jobs`` processes (forked; in this process when one is asked or none can start)."""
    pool, lost = None, False
    _WORK["jobs"] = jobs            # before the processes fork
    if jobs > 1 and "fork" in mp.get_all_start_methods():
        try:
            pool = start_pool(jobs, orphan_watch, (os.getpid(),))
        except FreecellError:
            pool = None
    if pool is None:
        _WORK["jobs"] = 1
    try:
        if pool is None:
            return [_first_pass(0)]
        return list(pool_results(pool, pool.imap(_first_pass, range(jobs))))
    except WorkerLost:
        lost = True
        raise
    finally:
        if pool is not None:
            end_pool(pool, lost)


def _check_streamed(head: Summary, path: str, sample: int, seed: int, progress: bool, jobs: Optional[int] = None,
                    block: int = SHARD_BLOCK) -> CheckResult:
    """:func:`check` with the records left on disk, read twice: the first pass checks every record (as
    read_joined does) and every member (won, the start, the column order and the automatic moves) and
    computes the successors of the start and of the drawn members; the second merge-joins them, sorted,
    with the records. The first pass is shared by ``jobs`` processes (default: the CPUs this process may
    use), each reading the whole body and checking its blocks of ``block`` records in turn; the first
    refusal and the first misplaced member in the records' order are the ones reported, whatever the number
    of processes. The verdict, its counts and its words are :func:`check`'s: each failure is the one
    :func:`check` meets first (the checks all take place before a verdict is said, so a damaged body is
    refused first, as read_joined refuses it). Memory: the drawn members' successors (SIZE + SEQ bytes
    each, in a list: about 130 bytes a successor), not the records."""
    n = head.states
    p = _Plan(head, n, sample, seed)
    _WORK.update(head=head, path=path, sample=sample, seed=seed, block=block, progress=progress)
    try:
        passes = _first_passes(min(jobs or cpus(), MAX_JOBS))
    finally:
        _WORK.clear()
    errors = [q.error for q in passes if q.error is not None]
    if errors:
        raise FreecellError(min(errors)[1])
    if any(q.digest != passes[0].digest for q in passes):
        raise FreecellError(CHANGED.format(path))
    if p.mismatch:
        return p.mismatch
    first = passes[0].first
    if not first.has_start:
        return p.no_start()
    if first.has_won:
        return p.won()
    misplaced = min((q.first.misplaced for q in passes if q.first.misplaced is not None), default=None)
    if misplaced is not None and not p.in_loop:
        return p.misplaced(misplaced[2], misplaced[1])
    if misplaced is not None:
        first.before(misplaced[0])
    second = _SecondPass(first.keys)
    again = hashlib.sha256()
    with bar(progress, total=n, unit=" states", desc="pass 2: successors") as b:
        def join(run):
            again.update(run)
            second(run)
            b.update(len(run) // SIZE)
        _same(head, certificate.stream_records(path, join, checked=False), path)   # the records' digest instead
    if again.digest() != passes[0].digest:
        raise FreecellError(CHANGED.format(path))
    seq, visits = second.first_missing(), first.visits
    if seq is not None:
        v = bisect.bisect_right([at for at, _, _ in visits], seq) - 1
        at, i, rec = visits[v]
        s = p.state(i, rec)
        t = next(itertools.islice(p.successors(s), seq - at, None))
        return p.missing(v, seq + 1, t, s)
    if misplaced is not None:             # every member drawn, and no successor missing before it
        return p.misplaced(misplaced[2], misplaced[1], len(visits), first.looked)
    return p.valid(len(visits), first.looked, len(visits) - 1)


def verdict(res: CheckResult) -> Tuple[int, Optional[bool]]:
    """(exit status, the JSON ``"valid"``) of a sampled check: a refusal is a real one (1, False); a sample
    whose closure covered every member is the full check's verdict (0, True); any other valid sample is no
    verdict (SAMPLE_ONLY, None)."""
    if not res.ok:
        return 1, False
    if res.checked == res.states:
        return 0, True
    return SAMPLE_ONLY, None
