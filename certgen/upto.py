"""The records of a certificate up to column order, from an enumeration up to column order (the builder's
side; untrusted, like the search).

The C core counts positions up to the order of the columns with its own representatives (fc_internal.h's
``canon_key`` sorts packed words: the search's order). A certificate names each class by the checkers'
representative instead (certgen/columns.py: columns sorted by their bottom card, empty columns last), so
every record the search exports is put into that order (``fc_p64_column_order`` in solver/position.c, a pass
over the bytes: the same in Python took 18 s for the 2,417,919 records of deal 607 with one cell, eight
times the search itself) and the records are sorted again. Two classes never share a
representative, so the records stay distinct (repeats are dropped anyway, as in every certificate).

The sort is in C (solver/records.c) and external past ``RUN`` records: a run of ``RUN`` records is put into
column order in one buffer and sorted there (``fc_p64_order``), written to a temporary file (next to the
certificate) but the last one, and the runs are merged (``fc_p64_merge``), repeats dropped, so the memory
stays about ``RUN`` × 84 bytes whatever the number of positions (the disk search's certificates too; with
``--memory M`` a run is at most M / 128 records: :func:`run_for`). An in-memory search's records up to
SORTED_MAX make one run, written to no file. Nothing here is trusted: the checkers
put every position into their order themselves, and refuse a member stored in another order.
"""
import tempfile

from solver import packed
from solver.limits import SORT_BYTES_PER_RECORD
from solver.progress import bar
from solver.search import SORTED_MAX, Search, ffi, lib

SIZE = packed.SIZE
RUN = 1 << 22                   # records sorted in memory at a time (about 350 MB: 64 bytes each, 20 to sort)
BATCH = 1 << 16                 # records handed on at a time, and read from a run's file at a time


def run_for(memory=None, total=0) -> int:
    """The records of a run: RUN, or fewer when the build was given ``memory`` bytes (``--memory M``). Without
    ``memory`` (an in-memory search) all the ``total`` records make one run when they are at most SORTED_MAX,
    as the fixed form's records are sorted in one buffer up to that many (solver.search.Search.sorted_batches):
    no run written to a file and read back."""
    if memory is None:
        return max(RUN, total) if total <= SORTED_MAX else RUN
    return max(BATCH, min(RUN, memory // SORT_BYTES_PER_RECORD))


def exported(search):
    """The records of a finished enumeration, ``BATCH`` at a time (each batch to be used before the next is
    asked for), in whatever order is cheapest: the in-memory search's discovery order (its sort by P64, fc_search_sort_p64, took 6 of the 8 s of the export of deal 607
    with one cell, and the records are sorted again here anyway), the disk search's sorted stream."""
    if isinstance(search, Search):        # one buffer, each batch valid until the next is asked for
        out = bytearray(BATCH * SIZE)
        for first in range(0, len(search), BATCH):
            yield memoryview(out)[:search.export_p64_into(first, out) * SIZE]
    else:
        yield from search.sorted_batches(BATCH)


def in_column_order(blob) -> bytearray:
    """Whole P64 records (bytes) put into the checkers' column order by the C core, in one pass."""
    buf = bytearray(blob)
    _column_order(buf)
    return buf


def _column_order(buf):
    if len(buf) % SIZE:
        raise ValueError("not whole P64 records")
    if buf:
        lib.fc_p64_column_order(ffi.from_buffer(buf), len(buf) // SIZE)


def _order(buf):
    """The order of a run (bytearray of whole records), put into column order in place first: a uint32_t[]."""
    _column_order(buf)
    n = len(buf) // SIZE
    order = ffi.new("uint32_t[]", max(n, 1))
    if lib.fc_p64_order(ffi.from_buffer(buf), n, order) != 0:
        raise MemoryError("cannot sort the records: out of memory")
    return order


def _write_run(buf, f):
    """A run written to the file ``f`` sorted, BATCH records at a time."""
    order, n = _order(buf), len(buf) // SIZE
    out, recs = ffi.new("uint8_t[]", BATCH * SIZE), ffi.from_buffer(buf)
    for first in range(0, n, BATCH):
        m = min(BATCH, n - first)
        lib.fc_p64_gather(recs, order + first, m, out)
        f.write(ffi.buffer(out, m * SIZE))


class _Run:
    """A sorted run being merged: its records in memory (``data``, in the ``order`` of fc_p64_order), or read
    from its file BATCH at a time."""

    def __init__(self, data=None, order=ffi.NULL, f=None):
        self.f, self.data, self.order, self.at = f, data, order, 0
        if f is not None:
            f.seek(0)
            self.refill()

    def refill(self):
        """The next records of the file (False: none left, or no file)."""
        self.data = self.f.read(SIZE * BATCH) if self.f is not None else b""
        self.at = 0
        return bool(self.data)


def _merged(runs):
    """The runs (sorted, non-empty) merged: bytes of up to BATCH records, ascending, without repeats."""
    out = ffi.new("uint8_t[]", BATCH * SIZE)
    last, has_last = ffi.new("uint8_t[]", SIZE), ffi.new("int *")
    while runs:
        c = ffi.new("fc_run[]", len(runs))
        keep = [ffi.from_buffer(r.data) for r in runs]     # alive while the C merge reads them
        for i, r in enumerate(runs):
            c[i].rec, c[i].idx, c[i].at, c[i].len = keep[i], r.order, r.at, len(r.data) // SIZE
        n = lib.fc_p64_merge(c, len(runs), last, has_last, out, BATCH)
        if n < 0:
            raise MemoryError("cannot merge the records: out of memory")
        if n:
            yield ffi.buffer(out, n * SIZE)[:]
        for i, r in enumerate(runs):
            r.at = c[i].at
        runs = [r for r in runs if r.at * SIZE < len(r.data) or r.refill()]


def sorted_batches(batches, tmp=None, run=RUN, progress=False, total=None):
    """``batches`` (bytes of whole P64 records, in any order, as the C core exports them) as bytes of whole
    records in the checkers' column order, ascending over all the batches, each record once. ``tmp``: the
    folder of the runs' files; ``progress``: a bar over the ``total`` records while they are put in order
    and sorted."""
    runs, size = [], min(run, total or 0) * SIZE      # a run's buffer made at its size: never grown (copied)
    current, used = bytearray(size), 0
    try:
        with bar(progress, total=total, unit=" records", unit_scale=True, desc="column order") as b:
            for blob in batches:
                if used >= run * SIZE:          # a whole run, and more records: the run goes to a file
                    f = tempfile.TemporaryFile(dir=tmp)
                    runs.append(f)
                    del current[used:]
                    _write_run(current, f)
                    current, used = bytearray(size), 0
                current[used:used + len(blob)] = blob
                used += len(blob)
                b.update(len(blob) // SIZE)
            del current[used:]
            order = _order(current)
        yield from _merged([_Run(f=f) for f in runs] + ([_Run(data=current, order=order)] if current else []))
    finally:
        for f in runs:
            f.close()
