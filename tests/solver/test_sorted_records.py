"""The records of a finished search in the certificate's order (Search.sorted_batches): decoded once and
sorted in a buffer up to search.SORTED_MAX states (fc_search_sort_records, fc_p64_gather), else ordered
and decoded again (fc_search_sort_p64, fc_search_export_p64_at); both give the records sorted bytewise."""
import pytest

from solver import deals, search
from solver.rules import Rules


@pytest.mark.parametrize("deal, rules, states", [(11982, Rules(), 84767), (3, Rules(cells=1), 448),
                                                 (11982, Rules(canonical=True, autoplay="safe"), 61643)],
                         ids=["11982", "3-one-cell", "11982-safe-canonical"])
def test_both_sorts_give_the_records_sorted(monkeypatch, deal, rules, states):
    r = search.explore(deals.ms_deal(deal), rules, stop_on_win=False)
    try:
        assert r.status == "done" and r.states == states
        want = b"".join(sorted(r.records()))
        assert len(set(r.records())) == states
        buffered = [bytes(b) for b in r.search.sorted_batches(1000)]
        assert b"".join(buffered) == want and [len(b) for b in buffered[:-1]] == [64000] * (len(buffered) - 1)
        monkeypatch.setattr(search, "SORTED_MAX", states - 1)          # the states ordered, then decoded again
        assert b"".join(r.search.sorted_batches(1000)) == want
    finally:
        r.close()


def test_the_buffered_sort_is_the_order_of_the_low_memory_one():
    """fc_search_sort_records's order is fc_search_sort_p64's, index for index, and fc_p64_gather copies
    the records it names."""
    ffi, lib = search.ffi, search.lib
    r = search.explore(deals.ms_deal(11982))
    try:
        n = r.states
        a, b = ffi.new("uint32_t[]", n), ffi.new("uint32_t[]", n)
        recs = ffi.new("uint8_t[]", 64 * n)
        assert lib.fc_search_sort_records(r.search._h(), recs, a) == 0 and lib.fc_search_sort_p64(r.search._h(), b) == 0
        assert list(a) == list(b) and sorted(a) == list(range(n))
        assert ffi.buffer(recs)[:] == r.search.export_p64()
        out = ffi.new("uint8_t[]", 64 * 3)
        lib.fc_p64_gather(recs, a + 5, 3, out)
        got = ffi.buffer(out)[:]
        assert [got[64 * k:64 * k + 64] for k in range(3)] == [r.search.p64(a[5 + k]) for k in range(3)]
    finally:
        r.close()


def _records(blob):
    return [bytes(blob[k:k + 64]) for k in range(0, len(blob), 64)]


def test_records_ordered_and_runs_merged_without_repeats():
    """fc_p64_order orders a buffer of records (repeats side by side); fc_p64_merge takes the smallest next
    record of the runs (one read through its order), drops one equal to the last written (across calls
    too), and stops when a run's records are used up, leaving the others where they are."""
    ffi, lib = search.ffi, search.lib
    r = search.explore(deals.ms_deal(3), Rules(cells=1), stop_on_win=False)
    try:
        recs = r.records()
    finally:
        r.close()
    shuffled = recs[::-1][:300] + recs[100:250] + recs[::3]           # out of order, some records twice
    buf = ffi.from_buffer(b"".join(shuffled))
    order, out = ffi.new("uint32_t[]", len(shuffled)), ffi.new("uint8_t[]", 64 * len(shuffled))
    assert lib.fc_p64_order(buf, len(shuffled), order) == 0
    lib.fc_p64_gather(buf, order, len(shuffled), out)
    assert _records(ffi.buffer(out)) == sorted(shuffled)
    a, b = sorted(recs[:300]), recs[200:]                              # 100 records in both runs
    b_order = sorted(range(len(b)), key=lambda k: b[k])                 # b read through its order
    runs = ffi.new("fc_run[]", 2)
    bufs = [ffi.from_buffer(b"".join(x)) for x in (a, b)]
    idx = ffi.new("uint32_t[]", b_order)
    for i, x in enumerate((a, b)):
        runs[i].rec, runs[i].idx, runs[i].at, runs[i].len = bufs[i], (ffi.NULL, idx)[i], 0, len(x)
    last, has_last = ffi.new("uint8_t[]", 64), ffi.new("int *")
    got = []
    n = lib.fc_p64_merge(runs, 2, last, has_last, out, 10)            # cap: 10 records
    assert n == 10 and runs[0].at + runs[1].at >= 10
    got += _records(ffi.buffer(out, 64 * n))
    n = lib.fc_p64_merge(runs, 2, last, has_last, out, 1000)          # until one run is used up
    got += _records(ffi.buffer(out, 64 * n))
    done = 0 if runs[0].at == len(a) else 1
    assert runs[done].at == len((a, b)[done]) and runs[1 - done].at < len((a, b)[1 - done])
    rest = sorted((a, b)[1 - done])[runs[1 - done].at:]
    assert got + [x for x in rest if x > got[-1]] == sorted(set(recs))
    assert lib.fc_p64_merge(runs, 2, last, has_last, out, 1000) == 0    # a run with none left: nothing taken
