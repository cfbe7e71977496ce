"""The records of a certificate up to column order, from an enumeration up to column order (the builder's
side; untrusted, like the search).

The C core counts positions up to the order of the columns with its own representatives (fc_internal.h's
``canon_key`` sorts packed words: the search's order). A certificate names each class by the checkers'
representative instead (certgen/columns.py: columns sorted by their bottom card, empty columns last), so
every record the search exports is put into that order (``fc_p64_column_order`` in solver/position.c, a pass
over the bytes: the same in Python took 18 s for the 2,417,919 records of deal 607 with one cell, eight
times the search itself) and the records are sorted again. Two classes never share a
representative, so the records stay distinct (repeats are dropped anyway, as in every certificate).

The sort is external past ``RUN`` records: runs of ``RUN`` sorted records are written to temporary files
(next to the certificate) and merged, so the memory stays about ``RUN`` × 110 bytes whatever the number of
positions (the disk search's certificates too; with ``--memory M`` a run is at most M / 128 records:
:func:`run_for`). Nothing here is trusted: the checkers put every position
into their order themselves, and refuse a member stored in another order.
"""
import heapq
import tempfile

from solver import packed
from solver.limits import SORT_BYTES_PER_RECORD
from solver.progress import bar
from solver.search import Search, ffi, lib

SIZE = packed.SIZE
RUN = 1 << 22                   # records sorted in memory at a time (about 450 MB as bytes objects)
BATCH = 1 << 16                 # records handed on at a time


def run_for(memory=None) -> int:
    """The records of a run: RUN, or fewer when the build was given ``memory`` bytes (``--memory M``)."""
    return RUN if memory is None else max(BATCH, min(RUN, memory // SORT_BYTES_PER_RECORD))


def exported(search):
    """The records of a finished enumeration, ``BATCH`` at a time, in whatever order is cheapest: the in-memory
    search's discovery order (its sort by P64, fc_search_sort_p64, took 6 of the 8 s of the export of deal 607
    with one cell, and the records are sorted again here anyway), the disk search's sorted stream."""
    if isinstance(search, Search):
        for first in range(0, len(search), BATCH):
            yield search.export_p64(first, BATCH)
    else:
        yield from search.sorted_batches(BATCH)


def in_column_order(blob) -> bytearray:
    """Whole P64 records (bytes) put into the checkers' column order by the C core, in one pass."""
    buf = bytearray(blob)
    if len(buf) % SIZE:
        raise ValueError("not whole P64 records")
    if buf:
        lib.fc_p64_column_order(ffi.from_buffer(buf), len(buf) // SIZE)
    return buf


def _records(buf):
    return [bytes(buf[i:i + SIZE]) for i in range(0, len(buf), SIZE)]


def _blobs(records):
    for i in range(0, len(records), BATCH):
        yield b"".join(records[i:i + BATCH])


def _read_run(f):
    f.seek(0)
    while True:
        chunk = f.read(SIZE * BATCH)
        if not chunk:
            return
        yield from _records(chunk)


def sorted_batches(batches, tmp=None, run=RUN, progress=False, total=None):
    """``batches`` (bytes of whole P64 records, in any order, as the C core exports them) as bytes of whole
    records in the checkers' column order, ascending over all the batches (a record may come twice, one
    after the other: certificate.write_sorted drops repeats). ``tmp``: the folder of the runs' files;
    ``progress``: a bar over the ``total`` records while they are put in order and sorted."""
    current, runs = [], []
    try:
        with bar(progress, total=total, unit=" records", unit_scale=True, desc="column order") as b:
            for blob in batches:
                current += _records(in_column_order(blob))
                b.update(len(blob) // SIZE)
                if len(current) < run:
                    continue
                current.sort()
                f = tempfile.TemporaryFile(dir=tmp)
                runs.append(f)
                for chunk in _blobs(current):
                    f.write(chunk)
                current = []
            current.sort()
        if not runs:
            yield from _blobs(current)
            return
        merged = heapq.merge(iter(current), *(_read_run(f) for f in runs))
        out = []
        for rec in merged:
            out.append(rec)
            if len(out) == BATCH:
                yield b"".join(out)
                out = []
        if out:
            yield b"".join(out)
    finally:
        for f in runs:
            f.close()
