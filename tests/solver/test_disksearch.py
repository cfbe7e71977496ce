"""The enumeration past memory (issue 15): delayed duplicate detection on disk (solver/disksearch.py,
fc_ddd_* in solver/ddd_*.c). The same set as the in-memory enumeration, the same certificate bytes, the
house's verdict rule, and no file left behind."""
import json
import os
import shutil
import subprocess
import sys

import msgpack
import pytest

from certgen import certificate, fastcheck
from solver import deals, disksearch, packed, report, search, spec
from solver.errors import FreecellError
from solver.journal import release_lock
from solver.rules import STANDARD, Rules
from solver.solve import judge

from helpers import ROOT, one_line_error as _one_line_error
from helpers.disk import DEEP, SMALL

TINY = 512 * 24             # the C core's smallest buffer: 512 keys, so #11982's widest layers give more than
                            # 32 runs (merged 32 at a time first), and so do the P64-order runs of the certificate


def test_11982_on_disk_is_the_in_memory_set_and_certificate(tmp_path):
    """#11982 with a 64 KB buffer: 84,767 positions in 39 layers (more than DDD_MAXF = 32, so the oldest
    layers are merged into one file on the way), 137 runs; with a 12 KB buffer 639 runs, more than 32 in
    a layer (merged in passes); the certificate's bytes are those of the in-memory build's (same header
    info), for two rule sets and both buffers."""
    for deal, rules, buffer, states, layers, runs in ((11982, STANDARD, SMALL, 84767, 39, 137),
                                                     (11982, STANDARD, TINY, 84767, 39, 639),
                                                     (11982, Rules(cells=1), SMALL, 83, 7, 7)):
        pos = deals.ms_deal(deal)
        r = disksearch.explore_disk(pos, rules, buffer, tmp=str(tmp_path))
        folder = r.search.dir
        assert os.path.dirname(folder) == str(tmp_path) and os.listdir(folder)
        assert (r.status, r.complete, r.states, r.layers, r.won) == ("done", True, states, layers, False)
        assert r.runs == runs and 0 < r.disk_peak < 16 * states      # compressed files: not 16 B a position
        assert judge(pos, r, rules) == ("unwinnable", None)
        info = {"max_home": r.max_home}
        disk = tmp_path / "disk.cert"
        certificate.write_search(str(disk), {"kind": "ms", "deal": deal}, rules.to_dict(), pos, r.search, info)
        r.close()
        assert not os.path.exists(folder)
        m = search.explore(pos, rules)
        assert m.max_home == r.max_home
        mem = tmp_path / "mem.cert"
        certificate.write_search(str(mem), {"kind": "ms", "deal": deal}, rules.to_dict(), pos, m.search, info)
        assert disk.read_bytes() == mem.read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["disk.cert", "mem.cert"]


_IN_MEMORY = {}


def _memory_certificate(tmp_path, deal, rules, info):
    """The in-memory build's certificate bytes for deal under rules (one search per rule set), and its max_home."""
    key = (deal, repr(rules.to_dict()))
    if key not in _IN_MEMORY:
        pos = deals.ms_deal(deal)
        m = search.explore(pos, rules)
        path = tmp_path / "mem.cert"
        certificate.write_search(str(path), {"kind": "ms", "deal": deal}, rules.to_dict(), pos, m.search, info)
        _IN_MEMORY[key] = (path.read_bytes(), m.max_home, m.states)
        path.unlink()
    return _IN_MEMORY[key]


@pytest.mark.parametrize("key_bits, buffer, rules, overflow, layers", [
    (110, SMALL, STANDARD, 14564, 39),        # 17 % of #11982's positions do not pack into 110 bits
    (110, TINY, STANDARD, 14564, 39),         # the same with 639 runs (merged in passes)
    (105, 16 << 20, STANDARD, 50413, 39),     # 59 %
    (1, SMALL, Rules(cells=1), 83, 7),        # every position, the start included (layer 0's file is empty)
])
def test_positions_over_the_key_are_kept_whole_and_certified_as_in_memory(tmp_path, key_bits, buffer, rules,
                                                                          overflow, layers):
    """The positions that do not pack into the key (here a key cut down to key_bits bits: at its full 191 bits
    every position packs) are kept whole in the overflow set: the same reachable set, layer
    by layer, and the same certificate bytes as the in-memory build's."""
    pos = deals.ms_deal(11982)
    r = disksearch.explore_disk(pos, rules, buffer, tmp=str(tmp_path), key_bits=key_bits)
    try:
        st = r.search.stats()
        mem, max_home, states = _memory_certificate(tmp_path, 11982, rules, {"max_home": r.max_home})
        assert (r.status, r.states, r.layers, r.max_home) == ("done", states, layers, max_home)
        assert st.overflow == overflow and 40 * overflow < st.overflow_memory <= st.overflow_limit
        assert (r.overflow, r.overflow_bytes) == (overflow, st.overflow_memory)
        assert f"; {overflow:,} positions over the key kept whole in memory (" in report.disk_words(r)
        assert judge(pos, r, rules) == ("unwinnable", None)
        disk = tmp_path / "disk.cert"
        certificate.write_search(str(disk), {"kind": "ms", "deal": 11982}, rules.to_dict(), pos, r.search,
                                 {"max_home": r.max_home})
        assert disk.read_bytes() == mem
    finally:
        r.close()
    assert os.listdir(tmp_path) == ["disk.cert"]


@pytest.mark.parametrize("key_bits", [0, 80, 1])
@pytest.mark.parametrize("stop_on_win", [True, False])
def test_a_won_line_through_positions_over_the_key(tmp_path, key_bits, stop_on_win):
    """The line to a won position is read back through the layers' overflow positions as through their files
    (key_bits 1: every position is one; 80: about a third of them), also when the search went on past the
    win (the won position was met in a merge, its parent not kept)."""
    pos = _nearly_won()
    r = disksearch.explore_disk(pos, STANDARD, SMALL, tmp=str(tmp_path), key_bits=key_bits, stop_on_win=stop_on_win)
    try:
        assert r.won and r.status == ("won" if stop_on_win else "done")
        if not stop_on_win:
            assert r.states == 5930
        assert (r.search.stats().overflow > 0) == (key_bits > 0)
        verdict, line = judge(pos, r, STANDARD)
        assert verdict == "winnable" and line[0] == spec.from_position(pos) and spec.won(line[-1])
        assert len(line) - 1 == 5
    finally:
        r.close()
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("key_bits", [0, 110, 1])
def test_a_limit_met_in_the_overflow_set_is_a_limit(tmp_path, key_bits):
    """--max-states counts the positions of the overflow set too, and is met there as in the files (key_bits 1:
    every position is in the set): unknown, never a set cut short taken for the whole."""
    r = disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, tmp=str(tmp_path), key_bits=key_bits,
                                max_states=1000)
    try:
        assert (r.status, r.states, r.complete) == ("limit", 1000, False)
        assert judge(deals.ms_deal(11982), r, STANDARD)[0] == "unknown"
    finally:
        r.close()


def test_an_overflow_set_past_its_limit_stops_the_search_as_unknown(tmp_path):
    """The overflow set may take a quarter of the buffer's bytes (at least 1 MB): past that the search stops
    with one line, nothing claimed, its files removed."""
    with pytest.raises(FreecellError, match=r"^the disk search stopped after [\d,]+ positions: 16,384 of them do "
                                            r"not pack into the key \(100 bits\) and their set in memory would pass its limit "
                                            r"of 1\.0 MB \(a quarter of --memory, at least 1 MB; nothing is claimed: the verdict "
                                            r"is unknown\)$"):
        disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, tmp=str(tmp_path), key_bits=100)
    assert os.listdir(tmp_path) == []


OTHER = {3: 2, 2: 3, 0: 1, 1: 0}


def _chain(top, n, suit):
    """n cards from rank `top` down, the first of `suit` (0 clubs, 1 diamonds, 2 hearts, 3 spades), alternating
    colours: spades with hearts, clubs with diamonds (OTHER)."""
    other = OTHER
    out = []
    for r in range(top, top - n, -1):
        out.append((r - 1) * 4 + suit)
        suit = other[suit]
    return tuple(out)


# 8 free cells holding the kings and queens, no card home: four columns of a 3 under J..7 (a chain of 4 above its
# base) and four of 6 5 4 under a 2 and an ace of another suit (the ace on the 2: a chain of 1). Only the aces and
# twos move (home, or an ace onto a 2); the 3s at the bottom stop the foundations: 95 positions, up to column
# order or not. Their packed keys take more than the memory store's 127 bits: 8 x (7 + 4) for the columns
# (7-bit head codes), 20 chain bits, 30 for the set of 8 cells: 138 at the start (130 with the 6-bit codes
# without column order); all 95 are over 127 bits up to column order, 86 without.
LONG_KEYS = (tuple((8 + s,) + _chain(11, 5, s) for s in (3, 2, 0, 1))
             + tuple(_chain(6, 3, s) + (4 + OTHER[t], t)
                     for s, t in ((3, 2), (2, 0), (0, 1), (1, 3))),
             tuple(range(44, 52)), (0, 0, 0, 0))


@pytest.mark.parametrize("canonical, states, over", [(True, 95, 95), (False, 95, 86)])
def test_positions_over_127_bits_pack_into_the_disk_key(tmp_path, canonical, states, over):
    """Positions whose key needs more than 127 bits (the memory store keeps every one of them whole: its
    fc_search_overflow) pack into the disk search's 24-byte key at its full width: no overflow set, the memory
    search's set position for position (their P64 records, sorted); with the old width (key_bits 127) every one
    goes to the overflow set, as it did with the 16-byte key."""
    rules = Rules(cells=8, canonical=canonical)
    m = search.explore(LONG_KEYS, rules, stop_on_win=False)
    try:
        assert (m.status, m.states, m.search.overflow()) == ("done", states, over)
        want = b"".join(m.search.sorted_batches(1000))
    finally:
        m.close()
    assert len(want) == states * search.P64_SIZE
    for key_bits, overflow in ((0, 0), (127, over), (disksearch.KEY_BITS, 0)):
        r = disksearch.explore_disk(LONG_KEYS, rules, SMALL, tmp=str(tmp_path), key_bits=key_bits,
                                    stop_on_win=False)
        try:
            assert (r.status, r.complete, r.states, r.overflow) == ("done", True, states, overflow)
            assert b"".join(r.search.sorted_batches(1000)) == want
        finally:
            r.close()
    assert os.listdir(tmp_path) == []


def _nearly_won():
    """Every card home but the queens and kings of clubs and diamonds: QC under KD, QD under KC (4,622
    positions reachable, 5,930 without stopping at the win)."""
    return ((44, 49), (45, 48)) + ((),) * 6, (), (11, 11, 13, 13)


def test_a_won_position_gives_a_line_read_back_through_the_layers(tmp_path):
    pos = _nearly_won()
    r = disksearch.explore_disk(pos, STANDARD, SMALL, tmp=str(tmp_path))
    try:
        assert (r.status, r.won, r.complete) == ("won", True, False)
        verdict, line = judge(pos, r, STANDARD)
        assert verdict == "winnable" and line[0] == spec.from_position(pos) and spec.won(line[-1])
        assert len(line) - 1 == r.layers == 5           # breadth first: a shortest line (KD away, then 4 home)
    finally:
        r.close()
    assert os.listdir(tmp_path) == []


NO_CELLS = Rules(cells=0)


def _runs(first):
    """Spades and hearts K..6 in one run of alternating colours, a spade first when ``first`` is 1, else a heart."""
    return tuple((r - 1) * 4 + (3 if r % 2 == first else 2) for r in range(13, 5, -1))


# Those two runs (K♠ Q♥ .. 6♥ and K♥ Q♠ .. 6♠), the rest home, 0 free cells: won in 16 moves, but with six empty
# columns the runs can be taken apart for longer -- up to column order 26,782 positions in 33 layers.
TWO_RUNS = ((_runs(1), _runs(0)) + ((),) * 6, (), (13, 13, 5, 5))


def _no_solver(monkeypatch):
    """solver.solve raises: a line that comes back is the disk search's own."""
    from solver import solve

    def refuse(*args, **kwargs):
        raise AssertionError("the solver was called")
    monkeypatch.setattr(solve, "solve", refuse)


@pytest.mark.parametrize("start, canonical, stop_on_win, states, layers, first, kept, moves", [
    (DEEP, False, True, 72123, 34, 32, 3, 34), (DEEP, False, False, 76783, 36, 32, 3, 34),
    (DEEP, True, True, 198, 34, 32, 3, 34), (DEEP, True, False, 199, 35, 32, 3, 34),
    (TWO_RUNS, True, False, 26782, 33, 16, 1, 16), (TWO_RUNS, True, True, 11172, 16, 0, 17, 16)],
    ids=["deep", "deep-no-stop", "deep-canonical", "deep-canonical-no-stop", "runs-canonical-no-stop",
         "runs-canonical"])
def test_a_win_past_the_merged_layers_is_read_back_through_a_search_for_a_position(
        tmp_path, monkeypatch, capsys, start, canonical, stop_on_win, states, layers, first, kept, moves):
    """A win at depth 34 (DEEP): the layers 0..31 were merged (their depths gone), so the line read back
    through the files begins at layer 32; the line from the start to that position comes from a second disk
    search that looks for it (a target), in a temporary folder of the same --tmp: together a shortest line (34
    moves, breadth first), replayed under the spec rules (on the real columns up to column order) -- the
    solver is not called. One line on stderr says why it takes time; no folder is left. A win at depth 16 met
    by a search that goes on (TWO_RUNS, stop_on_win=False) past layer 32, whose merge takes the win's layer
    with the others: the line read back is the won position alone, at its own depth (fc_ddd_line's first is
    the won layer, not the oldest layer kept, which is past it), and the rest comes from a search for the won
    position itself (won positions no longer count, this one is met); stopping at the win, from the start."""
    _no_solver(monkeypatch)
    rules = Rules(cells=0, canonical=canonical)
    r = disksearch.explore_disk(start, rules, SMALL, tmp=str(tmp_path), stop_on_win=stop_on_win)
    try:
        assert (r.status, r.states, r.layers) == ("won" if stop_on_win else "done", states, layers)
        got, recs = r.search.line()
        assert r.won and (got, len(recs)) == (first, kept)
        verdict, line = judge(start, r, rules)
        assert verdict == "winnable" and line[0] == spec.from_position(start) and spec.won(line[-1])
        assert len(line) - 1 == moves
        assert capsys.readouterr().err == (f"reading the line back: a search to depth {first}\n" if first else "")
    finally:
        r.close()
    assert os.listdir(tmp_path) == []


def test_a_search_for_a_position_stops_there(tmp_path):
    """A target (fc_ddd_target): the search stops when it reaches that position (the won one does not count
    then), says so as a win, and its line ends there; a target never reached: the whole set, no win; a target
    that is the start: at once. Up to column order the target may be given in any order of its columns. A
    search with a target keeps no checkpoint."""
    pos = _nearly_won()
    r = disksearch.explore_disk(pos, STANDARD, SMALL, tmp=str(tmp_path), stop_on_win=False)
    full = r.winning_line()          # start .. won, 5 moves
    r.close()
    to = [packed.pack(p) for p in full]
    for rules in (STANDARD, Rules(canonical=True)):
        for depth in (0, 3, 5):
            s = disksearch.DiskSearch(pos, rules, SMALL, tmp=str(tmp_path), target=to[depth])
            try:
                assert s.run() == "won" and s.stats().won == 1
                first, recs = s.line()
                assert first == 0 and len(recs) == depth + 1
                want = packed.unpack(to[depth])
                got = packed.unpack(recs[-1])
                assert sorted(got[0]) == sorted(want[0]) and got[1:] == want[1:]
                if not rules.canonical:
                    assert recs[0] == to[0] and recs[-1] == to[depth]
            finally:
                s.close()
    # up to column order: the target's columns in another order are the same position
    cols, cells, home = packed.unpack(to[3])
    turned = packed.pack((tuple(reversed(cols)), cells, home))
    s = disksearch.DiskSearch(pos, Rules(canonical=True), SMALL, tmp=str(tmp_path), target=turned)
    try:
        assert s.run() == "won" and len(s.line()[1]) == 4
    finally:
        s.close()
    # KH back from its foundation: never reached (no foundation returns); the won positions on the way do
    # not stop the search. QC on QD is no position the search can even store.
    never = packed.pack((((44, 49), (45, 48), (50,)) + ((),) * 5, (), (11, 11, 12, 13)))
    with pytest.raises(FreecellError, match="^cannot look for that position: "):
        disksearch.DiskSearch(pos, STANDARD, SMALL, tmp=str(tmp_path),
                              target=packed.pack((((45, 44), (49,), (48,)) + ((),) * 5, (), (11, 11, 13, 13))))
    s = disksearch.DiskSearch(pos, STANDARD, SMALL, tmp=str(tmp_path), target=never)
    try:
        assert s.run() == "done" and s.stats().won == 0 and s.stats().max_home == 52 and len(s) == 5930
        assert search.lib.fc_ddd_line(s._d, search.ffi.NULL, 0, search.ffi.NULL) == search.lib.FC_ERANGE
    finally:
        s.close()
    s = disksearch.DiskSearch(pos, STANDARD, SMALL, tmp=str(tmp_path), target=to[2])
    try:
        assert search.lib.fc_ddd_keep(s._d, 1) == search.lib.FC_ERANGE       # no checkpoint with a target
        assert search.lib.fc_ddd_run(s._d, 1) == search.lib.FC_RUNNING
        assert search.lib.fc_ddd_target(s._d, search.ffi.from_buffer(to[1])) == search.lib.FC_ERANGE  # too late
    finally:
        s.close()
    with pytest.raises(ValueError):
        disksearch.DiskSearch(pos, STANDARD, SMALL, work_dir=str(tmp_path / "w"), target=to[1])
    assert os.listdir(tmp_path) == []


def test_a_win_past_the_merged_layers_takes_the_solver_line_when_the_read_back_fails(tmp_path, monkeypatch, capsys):
    """When the search for the line's first position fails (here: it stops on a full disk), the line is the
    solver's, replayed: still a win, never claimed without a line."""
    from solver import solve
    calls, real = [], solve.solve

    def full_disk(self, progress=False, desc=""):
        raise FreecellError("the disk search stopped after 5 positions: no space left on the device (disk full)")

    def solver(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)
    r = disksearch.explore_disk(DEEP, NO_CELLS, SMALL, tmp=str(tmp_path))
    monkeypatch.setattr(disksearch.DiskSearch, "run", full_disk)
    monkeypatch.setattr(solve, "solve", solver)
    try:
        verdict, line = judge(DEEP, r, NO_CELLS)
        assert verdict == "winnable" and spec.won(line[-1]) and calls == [(DEEP, NO_CELLS)]
    finally:
        r.close()
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("fault", ["not reached", "ends elsewhere", "too short"])
def test_a_read_back_search_whose_line_does_not_join_gives_the_solver_line(tmp_path, monkeypatch, capsys, fault):
    """The search for the first position P of the line read back past the merged layers ends without an error
    but gives no line that joins it (a bug: P was met by the first search, so it is reachable): it ends without
    reaching P (here: it looks for a position never reached, KH out of its home), or its line ends elsewhere
    (here: its last position dropped), or is not as long as P's depth (its first one dropped). full_line then
    gives nothing -- never a line from the layer kept, nor one that skips a step -- and the line is the solver's,
    replayed: still a win, never claimed without a line."""
    from solver import solve
    calls, real_solve = [], solve.solve
    monkeypatch.setattr(solve, "solve", lambda *args, **kwargs: calls.append(args) or real_solve(*args, **kwargs))
    r = disksearch.explore_disk(DEEP, NO_CELLS, SMALL, tmp=str(tmp_path))
    init, line = disksearch.DiskSearch.__init__, disksearch.DiskSearch.line
    never = packed.pack((DEEP[0][:5] + ((50,), (), ()), (), (0, 13, 12, 0)))     # KH out of its home

    def spy_init(self, *args, target=None, **kwargs):
        init(self, *args, target=never if target is not None and fault == "not reached" else target, **kwargs)

    def spy_line(self):
        first, recs = line(self)
        if self is not r.search:
            recs = recs[:-1] if fault == "ends elsewhere" else recs[1:] if fault == "too short" else recs
        return first, recs
    monkeypatch.setattr(disksearch.DiskSearch, "__init__", spy_init)
    monkeypatch.setattr(disksearch.DiskSearch, "line", spy_line)
    try:
        assert r.search.full_line() is None
        verdict, path = judge(DEEP, r, NO_CELLS)
        assert verdict == "winnable" and spec.won(path[-1]) and calls == [(DEEP, NO_CELLS)]
        assert capsys.readouterr().err == "reading the line back: a search to depth 32\n" * 2
    finally:
        r.close()
    assert os.listdir(tmp_path) == []


# A read-back search (a disk search for a position) in the folder argv[1]: "kill" -- killed with SIGKILL, as by the
# out-of-memory killer, after its first layers; "hold" -- alive, its folder in use, until its stdin closes.
READ_BACK = """
import os, signal, sys
from solver import disksearch, packed
from solver.rules import Rules
from helpers.disk import DEEP, SMALL
won = packed.pack((((),) * 8, (), (13,) * 4))
s = disksearch.DiskSearch(DEEP, Rules(cells=0), SMALL, tmp=sys.argv[1], target=won)
disksearch.lib.fc_ddd_run(s._d, 1000)
print(os.path.basename(s.dir), flush=True)
if sys.argv[2] == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
sys.stdin.read()
"""


def _read_back_folder(tmp, how):
    """A read-back search's folder in ``tmp`` from another process (READ_BACK): (its name, the process)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}     # helpers
    p = subprocess.Popen([sys.executable, "-c", READ_BACK, str(tmp), how], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, env=env)
    name = p.stdout.readline().strip()
    if how == "kill":
        assert p.wait(60) == -9
    assert name.startswith("freecell-disk-") and len(os.listdir(tmp / name)) > 1, name
    return name, p


@pytest.mark.e2e
@pytest.mark.parametrize("work", [False, True], ids=["tmp", "work-folder"])
def test_the_folders_of_a_killed_read_back_go_with_the_next_one_and_no_other(tmp_path, monkeypatch, work):
    """A process killed with SIGKILL cannot remove its temporary folder: one left by a killed read-back search
    (the line of a win past the merged layers, DiskSearch.full_line) is removed by the next disk search that
    makes its folders there -- here the next read-back, in the same --tmp, or beside a work folder (the
    survey's FILE.csv.work/) when that work folder's search starts. A folder whose search is alive (its
    owner.lock held) stays; so do a folder named as older versions named theirs (no pid: maybe a live
    search of such a version), folders without owner.lock (whether their process runs or not), and other
    files."""
    _no_solver(monkeypatch)
    gone = subprocess.Popen(["true"])
    gone.wait()
    keep = ["freecell-disk-abcd_123", "other", f"freecell-disk-{os.getpid()}-nolock00",   # this pid: alive
            f"freecell-disk-{gone.pid}-nolock01"]                    # its process ended while it made it
    for name in keep:
        (tmp_path / name).mkdir()
    held, p = _read_back_folder(tmp_path, "hold")
    try:
        keep.append(held)
        if work:
            killed, _ = _read_back_folder(tmp_path, "kill")
            assert killed in os.listdir(tmp_path)
            r = disksearch.explore_disk(DEEP, NO_CELLS, SMALL, work_dir=str(tmp_path / "w"))
        else:
            r = disksearch.explore_disk(DEEP, NO_CELLS, SMALL, tmp=str(tmp_path))
            killed, _ = _read_back_folder(tmp_path, "kill")          # after this search's start: the read-back
            assert killed in os.listdir(tmp_path)                   # that follows removes it
        try:
            assert judge(DEEP, r, NO_CELLS)[0] == "winnable"
        finally:
            r.close()
        assert sorted(os.listdir(tmp_path)) == sorted(keep)
        assert len(os.listdir(tmp_path / held)) > 1                 # untouched
    finally:
        p.kill()
        p.wait()
    disksearch.sweep_stale(str(tmp_path))                           # its process ended: it goes now
    assert sorted(os.listdir(tmp_path)) == sorted(keep[:-1])


def test_the_sweep_takes_no_folder_but_a_dead_search_s_own(tmp_path):
    """sweep_stale removes a folder only when it is named exactly as a search's temporary folder, holds an
    unheld owner.lock that is a regular file and nothing but a search's files: a user's folder that merely
    looks like one stays with all it holds (no pid check can tell), and so does a work folder, a FIFO
    owner.lock (opened without blocking), a folder nested deeper than Python's recursion, a name past a pid's
    size; no error comes out of it. The hostile tester's cases (each removed or raised before)."""
    def folder(name, files=(), owner=True):
        d = tmp_path / name
        d.mkdir()
        for f in files:
            (d / f).write_bytes(b"x")
        if owner:
            (d / disksearch.OWNER_FILE).write_bytes(b"")
        return d
    dead = folder("freecell-disk-999999-abcd_123", ["L000001.keys", "V000000.keys", ".owner-a1b2c3d4"])
    kept = [folder("freecell-disk-2024-results", ["thesis.tex"]),          # not mkdtemp's eight characters
            folder("freecell-disk-2024-abcd1234", ["thesis.tex"]),         # a file no search writes
            folder("freecell-disk-2024-abcd1235", ["L000001.keys", "search.lock", "search.state"]),  # work folder
            folder("freecell-disk-2024-abcd1236", ["L000001.keys"], owner=False),
            folder("freecell-disk-2024-ABCD1234", ["L000001.keys"]),
            folder("freecell-disk-21474836480-abcd1234", ["L000001.keys"]),    # past a pid: not ours either
            folder("freecell-disk-\u0661\u0662-abcd1234", ["L000001.keys"])]    # Arabic-Indic digits
    fifo = folder("freecell-disk-2025-fifo0000", ["L000001.keys"], owner=False)
    os.mkfifo(fifo / disksearch.OWNER_FILE)
    deep = folder("freecell-disk-2026-deep0000", ["L000001.keys"])
    d = deep
    for _ in range(1500):
        d = d / "d"
        os.mkdir(d)
    (tmp_path / "freecell-disk-2027-file0000").write_bytes(b"not a folder")
    link = tmp_path / "freecell-disk-2028-link0000"
    link.symlink_to(folder("precious", ["L000001.keys"]))
    (tmp_path / "precious" / disksearch.OWNER_FILE).write_bytes(b"")
    try:
        before, held = sorted(os.listdir(tmp_path)), {k: sorted(os.listdir(k)) for k in kept + [fifo]}
        disksearch.sweep_stale(str(tmp_path))
        assert sorted(os.listdir(tmp_path)) == sorted(n for n in before if n != dead.name)
        assert {k: sorted(os.listdir(k)) for k in kept + [fifo]} == held
        assert (kept[0] / "thesis.tex").read_bytes() == b"x" and (tmp_path / "precious" / "L000001.keys").exists()
        assert os.path.isdir(deep / "d")
    finally:
        while d != deep:                # pytest's own clean-up of tmp_path recurses: take the nest down first
            if os.path.isdir(d):
                os.rmdir(d)
            d = d.parent


@pytest.mark.slow
def test_a_deal_won_134_layers_deep_on_disk_is_read_back_through_four_searches(tmp_path, monkeypatch, capsys):
    """Deal 164 with 0 free cells up to column order (the difficulty survey's tier 5 on a small scale): a win
    134 layers deep after 30,418,109 positions; its line is read back through four more disk searches (for
    the positions at depths 128, 96, 64 and 32), a shortest line of 134 moves replayed on the real columns,
    without the solver (whose own line is 166 moves). About 4 minutes; 64 MB buffer, 260 MB of disk."""
    _no_solver(monkeypatch)
    rules, pos = Rules(cells=0, canonical=True), deals.ms_deal(164)
    r = disksearch.explore_disk(pos, rules, 64 << 20, tmp=str(tmp_path), max_states=40_000_000)
    try:
        assert (r.status, r.states, r.layers) == ("won", 30418109, 134)
        verdict, line = judge(pos, r, rules)
        assert verdict == "winnable" and len(line) - 1 == 134 and spec.won(line[-1])
        assert capsys.readouterr().err == "".join(f"reading the line back: a search to depth {d}\n"
                                                  for d in (128, 96, 64, 32))
    finally:
        r.close()
    assert os.listdir(tmp_path) == []


def test_a_won_deal_on_disk_is_winnable_or_unknown_never_unwinnable(run, tmp_path):
    # deal 1 breadth first reaches no win within 100,000 positions: a limit, so unknown
    p = run("explore", "--deal", "1", "--memory", "64K", "--max-states", "100000", "--tmp", str(tmp_path),
            "--json")
    obj = json.loads(p.stdout)
    assert (obj["verdict"], obj["complete"], obj["states"]) == ("unknown", False, 100000)
    assert obj["disk"]["layers"] > 5 and os.listdir(tmp_path) == []
    # with a budget the deal fits in, the in-memory search wins first (a replayed line)
    p = run("explore", "--deal", "1", "--memory", "64M", "--tmp", str(tmp_path), "--json")
    obj = json.loads(p.stdout)
    assert obj["verdict"] == "winnable" and obj["line_length"] > 52 and "disk" not in obj


def test_certgen_build_on_disk_matches_the_in_memory_build(run, tmp_path):
    """certgen build --memory 64K: the same records and header as without (but the search's time), and
    `certgen info` / `certgen check` (the fast checker, when built) accept it; nothing left in --tmp."""
    work = tmp_path / "work"
    work.mkdir()
    disk, mem = tmp_path / "disk.cert", tmp_path / "mem.cert"
    p = run("build", "--deal", "11982", "--memory", "64K", "--tmp", str(work), "--out", str(disk), module="certgen")
    assert p.returncode == 0 and "84,767" in p.stdout, p.stderr
    assert run("build", "--deal", "11982", "--out", str(mem), module="certgen").returncode == 0
    a, b = (msgpack.unpackb(f.read_bytes()) for f in (disk, mem))
    ha, hb = msgpack.unpackb(a.pop("header")), msgpack.unpackb(b.pop("header"))
    assert ha["info"].pop("search_seconds") >= 0 and hb["info"].pop("search_seconds") >= 0
    assert ha == hb and a["body"] == b["body"] and set(a) == set(b)
    assert os.listdir(work) == []
    info = json.loads(run("info", str(disk), "--json", module="certgen").stdout)
    assert info["states"] == 84767
    if fastcheck.binary() is None:
        pytest.skip("no build/fccheck: the fast checker is not built (make setup)")
    p = run("check", str(disk), module="certgen")
    assert p.returncode == 0 and p.stdout.startswith("valid for deal 11982"), p.stdout


@pytest.mark.parametrize("value", ["12x", "1K", "", "16GB", "-5M", "0", "65535", "1.5G", "99999999999999999T",
                                   "1025T", "16777216T"])
def test_a_bad_memory_value_is_one_line(run, value):
    line = _one_line_error(run("explore", "--deal", "11982", f"--memory={value}", "--on-disk"))
    assert line == (f"error: --memory must be a size such as 16G, 512M or 64K (K, M, G, T: powers of 1024; "
                    f"at least 64K, at most 1024T), got {value!r}")


def test_a_size_the_core_cannot_take_leaves_no_folder(tmp_path):
    # 2**64 bytes passed below the command line (which refuses it): an error, and no temporary folder left.
    from solver import deals
    from solver.disksearch import explore_disk
    from solver.rules import STANDARD
    with pytest.raises(OverflowError):
        explore_disk(deals.ms_deal(11982), STANDARD, 1 << 64, tmp=str(tmp_path))
    assert os.listdir(tmp_path) == []


def test_memory_sizes_read():
    from solver.cliargs import memory_arg
    assert [memory_arg(v) for v in ("16G", "64m", "64K", "65536", "1T")] == [16 << 30, 64 << 20, 65536, 65536,
                                                                              1 << 40]


def test_tmp_errors_are_one_line_and_leave_nothing(run, tmp_path):
    a_file = tmp_path / "f"
    a_file.write_text("x")
    _one_line_error(run("explore", "--deal", "11982", "--memory", "64K", "--tmp", str(a_file)),
                    f"--tmp {a_file}: not a folder")
    _one_line_error(run("explore", "--deal", "11982", "--memory", "64K", "--tmp", str(tmp_path / "none")),
                    f"--tmp {tmp_path / 'none'}: no such folder")
    _one_line_error(run("explore", "--deal", "11982", "--tmp", str(tmp_path)),
                    "--tmp goes with --memory (the disk search)")
    _one_line_error(run("explore", "--deal", "11982", "--memory", "1M", "--hand", "1"),
                    "--memory: the disk search does not take --hand")
    _one_line_error(run("build", "--deal", "11982", "--tmp", str(tmp_path), "--out", str(tmp_path / "x.cert"),
                        module="certgen"), "--tmp goes with --memory (the disk search)")
    _one_line_error(run("explore", "--deal", "11982", "--on-disk"), "--on-disk goes with --memory (the disk search)")
    assert os.listdir(tmp_path) == ["f"]


def test_max_states_past_2_to_the_31_goes_with_memory(run):
    """The in-memory search numbers its positions with 31 bits; the disk search counts them in 64 bits and its
    certificate numbers none: --max-states up to 2**40 with --memory (= the certificate's bound), one line
    without it or past it."""
    from certgen.certificate import MAX_STATES
    from solver.limits import DISK_MAX_STATES
    assert DISK_MAX_STATES == MAX_STATES == 2 ** 40
    _one_line_error(run("explore", "--deal", "11982", "--max-states", "2147483648"),
                    "--max-states above 2,147,483,647 goes with --memory (the disk search: the search in memory "
                    "numbers its positions with 31 bits)")
    _one_line_error(run("explore", "--deal", "11982", "--memory", "64M", "--max-states", "1099511627777"),
                    "--max-states must be a whole number from 1 to 1099511627776, got '1099511627777'")
    obj = json.loads(run("explore", "--deal", "11982", "--memory", "64K", "--on-disk", "--max-states",
                         "1099511627776", "--json").stdout)
    assert (obj["states"], obj["verdict"], obj["max_states"]) == (84767, "unwinnable", 2 ** 40)
    obj = json.loads(run("explore", "--deal", "11982", "--memory", "64K", "--on-disk", "--json").stdout)
    assert obj["max_states"] == 2 ** 40         # the disk search's default: no limit but the certificate's


def test_on_disk_skips_the_attempt_in_memory(run):
    obj = json.loads(run("explore", "--deal", "11982", "--memory", "64M", "--on-disk", "--json").stdout)
    assert obj["states"] == 84767 and obj["verdict"] == "unwinnable" and obj["disk"]["layers"] == 39
    assert (obj["disk"]["overflow"], obj["disk"]["overflow_bytes"]) == (0, 2048)   # only its layer table
    obj = json.loads(run("explore", "--deal", "11982", "--memory", "64M", "--json").stdout)
    assert obj["states"] == 84767 and "disk" not in obj


def test_a_file_error_mid_search_stops_it_as_unknown_and_removes_everything(tmp_path):
    """The folder vanishes under the search (as a full or failing disk would stop it): one FreecellError
    line, nothing claimed, and the search's own files gone."""
    s = disksearch.DiskSearch(deals.ms_deal(11982), STANDARD, SMALL, tmp=str(tmp_path))
    search.lib.fc_ddd_run(s._d, 2000)
    shutil.rmtree(s.dir)
    try:
        with pytest.raises(FreecellError, match=r"^the disk search stopped after [\d,]+ positions: .*No such file "
                                                r"or directory \(nothing is claimed: the verdict is unknown"):
            s.run()
    finally:
        s.close()
    assert os.listdir(tmp_path) == []


def test_a_limit_on_disk_is_unknown_and_cleaned(tmp_path):
    r = disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, tmp=str(tmp_path), max_states=50000)
    folder = r.search.dir
    try:
        assert (r.status, r.states, r.complete) == ("limit", 50000, False)
        assert judge(deals.ms_deal(11982), r, STANDARD)[0] == "unknown"
    finally:
        r.close()
    assert not os.path.exists(folder) and os.listdir(tmp_path) == []


def test_the_smallest_buffer_holds_every_successor_of_a_position(tmp_path):
    """A buffer asked smaller than the core's smallest (12 KB: 512 keys) gets the smallest; with supermoves (up
    to 328 successors a position) the set is still the spec's 84,767."""
    r = disksearch.explore_disk(deals.ms_deal(11982), Rules(supermoves=True), 100, tmp=str(tmp_path))
    try:
        assert (r.states, r.complete, r.search.stats().memory) == (84767, True, TINY)
    finally:
        r.close()


def test_explore_within_stays_in_memory_when_the_set_fits():
    r = disksearch.explore_within(deals.ms_deal(11982), STANDARD, 16 << 20)
    assert isinstance(r, search.ExploreResult) and r.states == 84767 and r.complete


@pytest.mark.slow
def test_deal_1474422072_on_disk(tmp_path, run):
    """2,951,466 positions with a 16 MB buffer, as in memory; the certificate as in memory."""
    p = run("build", "--deal", "1474422072", "--memory", "16M", "--tmp", str(tmp_path), "--out",
            str(tmp_path / "d.cert"), module="certgen", timeout=1200)
    assert p.returncode == 0 and "2,951,466" in p.stdout, p.stderr
    p = run("build", "--deal", "1474422072", "--out", str(tmp_path / "m.cert"), module="certgen", timeout=1200)
    a, b = (msgpack.unpackb((tmp_path / n).read_bytes()) for n in ("d.cert", "m.cert"))
    assert a["body"] == b["body"]
    assert sorted(os.listdir(tmp_path)) == ["d.cert", "m.cert"]


@pytest.mark.slow
def test_deal_1474422072_on_disk_with_a_fifth_of_its_positions_over_the_key(tmp_path):
    """2,951,466 positions, 613,888 of them over a key cut down to 118 bits (kept whole, 50 MB): the
    certificate body as in memory."""
    pos = deals.ms_deal(1474422072)
    r = disksearch.explore_disk(pos, STANDARD, 1 << 30, tmp=str(tmp_path), key_bits=118)
    try:
        assert (r.status, r.states, r.overflow) == ("done", 2951466, 613888)
        certificate.write_search(str(tmp_path / "d.cert"), {"kind": "ms", "deal": 1474422072}, {"cells": 4,
                                 "foundation_return": False}, pos, r.search, {})
    finally:
        r.close()
    m = search.explore(pos)
    certificate.write_search(str(tmp_path / "m.cert"), {"kind": "ms", "deal": 1474422072}, {"cells": 4,
                             "foundation_return": False}, pos, m.search, {})
    assert (tmp_path / "d.cert").read_bytes() == (tmp_path / "m.cert").read_bytes()


@pytest.mark.e2e
def test_sigterm_on_disk_removes_the_files_like_ctrl_c(tmp_path):
    # `timeout`, `kill` and batch schedulers stop a job with SIGTERM: the same path as Ctrl-C, said as SIGTERM
    # (not "Ctrl-C": nobody pressed it).
    import signal
    from helpers.signals import assert_interrupted, ctrl_c
    from solver.errors import TERMINATED
    work = tmp_path / "work"
    work.mkdir()
    assert_interrupted(*ctrl_c("solver", "explore", "--deal", "1", "--memory", "64K", "--on-disk", "--tmp",
                               str(work), cwd=tmp_path, sig=signal.SIGTERM), line=TERMINATED)
    assert os.listdir(tmp_path) == ["work"] and os.listdir(work) == []


def test_ctrl_c_on_disk_is_one_line_and_removes_the_files(tmp_path):
    from helpers.signals import assert_interrupted, ctrl_c
    work = tmp_path / "work"
    work.mkdir()
    assert_interrupted(*ctrl_c("certgen", "build", "--deal", "5", "--memory", "64K", "--tmp", str(work), "--out",
                               "x.cert", cwd=tmp_path))
    assert os.listdir(tmp_path) == ["work"] and os.listdir(work) == []


@pytest.mark.parametrize("deal, rules, states, max_home", [
    (20, Rules(cells=1), 876, 8),
    (25, Rules(cells=2), 64391, 6),
    (20, Rules(cells=1, canonical=True, autoplay="safe"), 38, 8),   # the canonical head codes
])
def test_the_cards_home_read_off_the_keys_are_the_in_memory_ones(tmp_path, deal, rules, states, max_home):
    """The merge reads a new position's cards at home off its packed key (dkey_home in fc_internal.h: 52 less the bases,
    chains and cells it holds) instead of unpacking it: the most cards home is the in-memory search's, on deals
    where it is well above #11982's 2."""
    pos = deals.ms_deal(deal)
    r = disksearch.explore_disk(pos, rules, SMALL, tmp=str(tmp_path), stop_on_win=False)
    m = search.explore(pos, rules, stop_on_win=False)
    try:
        assert (r.status, r.states, r.max_home) == ("done", states, max_home) == ("done", m.states, m.max_home)
    finally:
        r.close()
        m.close()


def test_the_overflow_set_may_be_given_more(tmp_path):
    """The overflow set's limit can be set (the survey gave it half its disk tiers' buffer while the key had 16
    bytes: #11744, stopped by the default quarter): with a narrowed key the search it would stop goes
    on to its end; with 1 byte (the floor, 1 MB) it stops, saying so."""
    r = disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, tmp=str(tmp_path), key_bits=100,
                                overflow=64 << 20)
    try:
        assert (r.status, r.states) == ("done", 84767) and r.search.stats().overflow_limit == 64 << 20
    finally:
        r.close()
    with pytest.raises(FreecellError, match=r"would pass its limit of 1\.0 MB \(as set, at least 1 MB; "):
        disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, tmp=str(tmp_path), key_bits=100, overflow=1)
    assert os.listdir(tmp_path) == []
    # disksearch.MIN_OVERFLOW (what the survey gives it) is ddd_internal.h's floor: a limit of 1 byte is raised to it
    r = disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, tmp=str(tmp_path), overflow=1)
    try:
        assert (r.states, r.search.stats().overflow_limit) == (84767, disksearch.MIN_OVERFLOW)
    finally:
        r.close()


def test_a_stale_folder_swapped_for_a_link_mid_sweep_leads_nowhere_else(tmp_path, monkeypatch):
    """A race: a stale folder renamed and replaced by a link to another folder
    between the sweep's checks and its removals. The sweep works through the folder it opened (dir_fd), so the
    link's target keeps its files; the stale folder's own files go."""
    stale = tmp_path / "freecell-disk-999999-abcd_123"
    stale.mkdir()
    for f in ("L000001.keys", disksearch.OWNER_FILE):
        (stale / f).write_bytes(b"")
    other = tmp_path / "work"
    other.mkdir()
    (other / "L000001.keys").write_bytes(b"a paused search's layer")
    checked = disksearch._stale_files

    def swapped(dfd):
        names = checked(dfd)
        stale.rename(tmp_path / "moved")
        stale.symlink_to(other)
        return names
    monkeypatch.setattr(disksearch, "_stale_files", swapped)
    disksearch.sweep_stale(str(tmp_path))
    assert (other / "L000001.keys").read_bytes() == b"a paused search's layer"
    assert os.listdir(tmp_path / "moved") == []


def test_the_resume_line_stands_on_a_line_of_its_own_on_a_terminal(monkeypatch):
    """On a terminal the survey's tier bar (the parent's) may stand on the line without a newline: the resume
    line clears it first (it was printed after the bar's text); not in a file."""
    import io

    class Tty(io.StringIO):
        def isatty(self):
            return True
    for err, start in ((Tty(), "\r\033[K"), (io.StringIO(), "")):
        monkeypatch.setattr(sys, "stderr", err)
        disksearch.say_resume("deal 982 with 2 cells")(105, 2_404_353_792)
        assert err.getvalue() == start + disksearch.resume_words("deal 982 with 2 cells", 105, 2_404_353_792) + "\n"


@pytest.mark.parametrize("flag", ["--work-dir", "--tmp"])
def test_an_empty_folder_name(flag, tmp_path):
    """`--work-dir ""` said "--work-dir : No such file or directory"."""
    p = subprocess.run([sys.executable, "-m", "solver", "explore", "--deal", "1", "--memory", "1M", flag, ""],
                       cwd=tmp_path, capture_output=True, text=True)
    _one_line_error(p, f"{flag} is empty: give a folder's name")
    assert os.listdir(tmp_path) == []


def test_a_winnable_deal_on_disk_stops_at_its_win(tmp_path):
    """--on-disk and --work-dir on a winnable deal: a depth-first search in memory finds its win first (deal
    1: after 21,063 positions, a line of 1,478 moves replayed), where the breadth-first search on disk ran for
    more than 10 minutes with --memory 1G (every position as near the start as the win); no work folder is
    left. With a buffer too small for that many positions (64K: 2,730) the search is the disk's as before."""
    cert, work = tmp_path / "d1.cert", tmp_path / "w"
    p = subprocess.run([sys.executable, "-m", "certgen", "build", "--deal", "1", "--memory", "1G", "--on-disk",
                        "--no-progress", "--out", str(cert)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and not cert.exists(), p.stderr
    assert p.stdout.startswith("deal 1: winnable — a won position was reached (21,063 positions visited); a line of "
                               "1,478 single-card moves to a won position replays under the spec rules")
    p = subprocess.run([sys.executable, "-m", "solver", "explore", "--deal", "1", "--memory", "1G", "--work-dir",
                        str(work), "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    obj = json.loads(p.stdout)
    assert (obj["verdict"], obj["states"], obj["line_length"]) == ("winnable", 21063, 1478) and "disk" not in obj
    assert not work.exists()
    p = subprocess.run([sys.executable, "-m", "solver", "explore", "--deal", "1", "--memory", "64K", "--on-disk",
                        "--max-states", "30000", "--tmp", str(tmp_path), "--json"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    obj = json.loads(p.stdout)
    assert (obj["verdict"], obj["states"]) == ("unknown", 30000) and obj["disk"]["layers"] > 5


def test_a_work_folder_whose_search_has_not_ended_looks_for_a_win_in_memory_first(tmp_path):
    """Deal 1's disk search stopped at 5,000 positions (its depth-first search in memory needs 21,063 for a
    win) leaves a work folder with its state; the same build with 30,000 finds the win in memory first (it
    went on breadth first on disk before: "unknown" at 30,000 positions here, and more than a minute with no
    answer with no limit, --memory 1G) and leaves the folder's files as they are, saying so."""
    work, cert = tmp_path / "w", tmp_path / "d1.cert"
    build = [sys.executable, "-m", "certgen", "build", "--deal", "1", "--memory", "1G", "--on-disk", "--work-dir",
             str(work), "--no-progress", "--out", str(cert)]
    p = subprocess.run(build + ["--max-states", "5000"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and p.stdout.startswith("deal 1: unknown — stopped after 5,000 positions"), p
    assert disksearch.work_state(str(work)) == "state"
    files = sorted(os.listdir(work))
    p = subprocess.run(build + ["--max-states", "30000"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and not cert.exists(), p.stderr
    assert p.stdout.startswith("deal 1: winnable — a won position was reached (21,063 positions visited); a line of "
                               "1,478 single-card moves to a won position replays under the spec rules"), p.stdout
    assert p.stderr == (f"note: --work-dir {work}: a win was found in memory, so the search its files hold is not "
                        f"needed: remove the folder\n")
    assert sorted(os.listdir(work)) == files


def test_a_winnable_deal_s_win_in_memory_does_not_pass_over_a_work_folder_it_may_not_use(tmp_path):
    """The win in memory on a resumed work folder comes only once the folder is this search's and its lock is
    held: a folder of deal 11982's search (stopped at 5,000 positions) given to deal 1, whose depth-first search
    wins in memory, is refused in one line (never "remove the folder": it is another search's), and so is deal
    1's own folder while another process holds its lock; neither folder is touched."""
    def build(deal, work, limit):
        return subprocess.run([sys.executable, "-m", "certgen", "build", "--deal", str(deal), "--memory", "1G",
                               "--on-disk", "--work-dir", str(work), "--no-progress", "--out",
                               str(tmp_path / "o.cert"), "--max-states", str(limit)],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
    other, own = tmp_path / "other", tmp_path / "own"
    for deal, work in ((11982, other), (1, own)):
        p = build(deal, work, 5000)
        assert p.returncode == 1 and disksearch.work_state(str(work)) == "state", p
    def files_of(w):            # but the lock's, which holds its last owner's process number
        return {n: os.stat(w / n).st_mtime_ns for n in os.listdir(w) if n != disksearch.LOCK_FILE}
    files = {w: files_of(w) for w in (other, own)}
    p = build(1, other, 30000)
    assert (p.returncode, p.stdout) == (2, ""), p
    assert p.stderr == (f"error: --work-dir {other}: it holds the search of another start position (remove the "
                        f"folder or give another --work-dir)\n")
    fd, _made = disksearch._lock(str(own))
    try:
        p = build(1, own, 30000)
    finally:
        release_lock(fd)
    assert (p.returncode, p.stdout) == (2, ""), p
    assert p.stderr.startswith(f"error: --work-dir {own}: in use by another search (process {os.getpid()})"), p.stderr
    assert {w: files_of(w) for w in (other, own)} == files
    p = build(1, own, 30000)            # its own folder, free: the win in memory, the folder left as it is
    assert p.returncode == 1 and p.stdout.startswith("deal 1: winnable"), p
    assert files_of(own) == files[own]
