"""The sampled reference check (``certgen check --reference --sample N``): the reference checker's three
fence conditions for a certificate too big to decode whole, still decided by the Python transliteration of
the Lean spec (solver/spec.py), never by the C core.

The records stay one bytearray of sorted 64-byte P64 records (certificate.read_joined: 64 bytes a
position, against the ~1 KB of a decoded spec State in a set), and membership is a binary search over it.

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
import itertools
import random
from typing import Optional, Tuple
from solver import packed, spec
from solver.errors import FreecellError
from solver.progress import bar

from .certificate import Summary
from .autoplay import settled_record
from .checker import NOT_IN_ORDER, NOT_SETTLED, CheckResult, lookup
from .members import Decoder, StartMismatch, _Memo, rules_of, start_of

SIZE = packed.SIZE
WON = bytes(SIZE)       # the P64 record of the won position: no card in a column or a cell
DEFAULT_SAMPLE = 100_000
MAX_SEED = 2 ** 64 - 1    # printed and given back with --seed
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


def check(head: Summary, body, sample: int, seed: int, progress: bool = False) -> CheckResult:
    """The sampled check of the certificate with header ``head`` and records ``body`` (read_joined)."""
    recs = Records(body)
    n = len(recs)
    named = {"subject": head.subject(), "start": head.start_json(), "rules": dict(head.rules)}
    of = f" (closure checked on the start and {words(sample, n)} drawn with seed {seed})"
    try:
        start = start_of(head)
    except StartMismatch as e:
        return CheckResult(False, n, 0, 0, "start-mismatch", str(e), **named)
    rules = rules_of(head)
    how = lookup(rules)
    up_to, order = how.up_to, how.name
    start = order(start)
    start_rec = record_of(start)
    if start_rec not in recs:
        return CheckResult(False, n, 0, 0, "start", f"the start position{how.start_words} is not in the "
                           f"certificate", missing=start, **named)
    decoder, encoder = Decoder(), Encoder()
    if WON in recs:
        return CheckResult(False, n, 0, 0, "won", "the certificate contains a won position",
                           won_state=decoder.state(WON), **named)
    order_in_loop = up_to and sample >= n      # every member drawn: its order checked with its closure, in the
    if up_to and not order_in_loop:             # records' order, as the full check does; else all first, here
        with bar(progress, total=n, unit=" states", desc="column order") as b:
            for i in range(n):
                if not in_column_order(recs[i]):
                    return CheckResult(False, n, 0, 0, "column-order", NOT_IN_ORDER[:-1] + "; the order checked on "
                                       "every member)", misplaced=decoder.state(recs[i]), **named)
                if how.auto and not settled_record(recs[i]):
                    return CheckResult(False, n, 0, 0, "autoplay", NOT_SETTLED[:-1] + "; checked on every member)",
                                       misplaced=decoder.state(recs[i]), **named)
                if i % 65536 == 65535:
                    b.update(65536)
            b.update(n % 65536)
    rules = rules.plain().spec()
    checked = looked = others = 0
    picks = drawn(n, sample, seed)
    with bar(progress, total=len(picks) + 1, unit=" states", desc="check (sample)") as b:
        for i in itertools.chain((None,), picks):      # the start first (picks may be a range of 10**8)
            rec = start_rec if i is None else recs[i]
            if i is not None and rec == start_rec:
                b.update(1)
                continue        # the start was checked first
            s = start if i is None else decoder.state(rec)
            if order_in_loop and i is not None and not in_column_order(rec):
                return CheckResult(False, n, checked, looked, "column-order", NOT_IN_ORDER + of, misplaced=s,
                                   **named)
            if order_in_loop and how.auto and i is not None and not settled_record(rec):
                return CheckResult(False, n, checked, looked, "autoplay", NOT_SETTLED + of, misplaced=s, **named)
            for t in spec.moves(rules, s):
                looked += 1
                t = order(t)
                if encoder.record(t) not in recs:
                    return CheckResult(False, n, checked, looked, "successor",
                                       f"a successor of a member{how.successor_words} is not in the "
                                       f"certificate" + of, missing=t, parent=s, **named)
            checked += 1
            others += i is not None
            b.update(1)
    won = "the one member is not won" if n == 1 else f"none of the {n:,} members is won"
    return CheckResult(True, n, checked, looked, None,
                       f"valid on a sample for {named['subject']}: {words(sample, n)}: the start position"
                       f"{how.start_words} is in the set, {won}, and "
                       f"{_closure_words(n, sample, seed, others, looked, how.successor_words)} (closure"
                       f" checked on {'every member' if checked == n else _count(checked, 'member') + ' only'}; "
                       f"the start{', the column order' if up_to else ''}"
                       f"{', the automatic moves' if how.auto else ''} and 'no member is won' on all)", **named)


def verdict(res: CheckResult) -> Tuple[int, Optional[bool]]:
    """(exit status, the JSON ``"valid"``) of a sampled check: a refusal is a real one (1, False); a sample
    whose closure covered every member is the full check's verdict (0, True); any other valid sample is no
    verdict (SAMPLE_ONLY, None)."""
    if not res.ok:
        return 1, False
    if res.checked == res.states:
        return 0, True
    return SAMPLE_ONLY, None
