"""A resumable disk search (issue 15): the state file written at the end of every layer (fc_ddd_keep /
fc_ddd_resume in solver/ddd_state.c), the --work-dir folder kept when the search stops before its end and gone on
with by the same command. A search stopped (by a limit, by SIGTERM) and resumed finds the same set and the
same certificate bytes as one run straight through; a folder it cannot go on with, a damaged layer file and a
full disk are each one line naming the file and what to do."""
import errno
import json
import os
import signal
import subprocess
import sys
import time

import msgpack
import pytest

from certgen import certificate
from solver import deals, disksearch, spec
from solver.errors import TERMINATED, FreecellError
from solver.rules import STANDARD, Rules
from solver.solve import judge

from helpers import ROOT, one_line_error as _one_line_error
from helpers.disk import fnv64

SMALL = 1 << 16
TINY = 512 * 24             # the C core's smallest buffer (512 keys): 639 runs for #11982, and its 39 layers pass DDD_MAXF = 32: old layers merged into V


def _cert_bytes(tmp_path, pos, rules, r):
    """The certificate of a complete disk search r (its sort consumes the layer files)."""
    path = tmp_path / "c.cert"
    certificate.write_search(str(path), {"kind": "ms", "deal": 11982}, rules.to_dict(), pos, r.search,
                             {"max_home": r.max_home})
    data = path.read_bytes()
    path.unlink()
    return data


def _straight(tmp_path, pos, rules, buffer, key_bits=0, **kw):
    """An uninterrupted disk search in a temporary folder: its figures and (when complete) certificate bytes."""
    r = disksearch.explore_disk(pos, rules, buffer, tmp=str(tmp_path), key_bits=key_bits, **kw)
    try:
        figures = (r.status, r.states, r.layers, r.runs, r.max_home, r.overflow, r.overflow_bytes)
        line = r.search.line() if r.won else None      # before the certificate's sort consumes the layers
        cert = _cert_bytes(tmp_path, pos, rules, r) if r.complete and not r.won else None
    finally:
        r.close()
    return figures, cert, line


@pytest.mark.parametrize("buffer, key_bits, limits", [
    (SMALL, 0, (1, 30000, 60000, 80000)),
    (TINY, 0, (20000, 79000, 84000)),          # resumed past the merge of the oldest layers into V
    (SMALL, 110, (25000, 70000)),              # 14,564 positions over the key: the overflow set is restored
    (64 << 20, 1, (20000, 84766)),             # every position in the overflow set (layer 0's file empty)
])
def test_a_search_stopped_by_limits_and_resumed_is_the_search_run_straight(tmp_path, buffer, key_bits, limits):
    pos = deals.ms_deal(11982)
    figures, cert, _ = _straight(tmp_path, pos, STANDARD, buffer, key_bits)
    assert figures[:3] == ("done", 84767, 39)
    work = tmp_path / "work"
    resumed_from = []
    for i, limit in enumerate(limits):
        r = disksearch.explore_disk(pos, STANDARD, buffer, max_states=limit, key_bits=key_bits, work_dir=str(work),
                                    on_resume=lambda layer, n: resumed_from.append((layer, n)))
        assert (r.status, r.states, r.kept, r.work_dir) == ("limit", limit, True, str(work))
        assert judge(pos, r, STANDARD)[0] == "unknown"
        assert r.checkpoint_bytes > 0 and r.checkpoints >= 1
        assert (r.resumed is None) == (i == 0)
        r.close()
        assert "search.state" in os.listdir(work)
        assert all(n.endswith(".keys") or n in ("search.state", "search.lock") for n in os.listdir(work))
    merged = "V000000.keys" in os.listdir(work)
    r = disksearch.explore_disk(pos, STANDARD, buffer, key_bits=key_bits, work_dir=str(work),
                                on_resume=lambda layer, n: resumed_from.append((layer, n)))
    try:
        assert (r.status, r.states, r.layers, r.runs, r.max_home, r.overflow, r.overflow_bytes) == figures
        assert not r.kept and r.resumed == resumed_from[-1]
        assert _cert_bytes(tmp_path, pos, STANDARD, r) == cert
    finally:
        r.close()
    assert not work.exists()                      # the natural end: its files and the folder removed
    layers = [layer for layer, _ in resumed_from]
    assert len(resumed_from) == len(limits) and layers == sorted(layers) and resumed_from[0][1] < limits[0] + 1
    assert all(n <= limit for (_, n), limit in zip(resumed_from, limits))
    assert merged == (layers[-1] >= 32)            # layers 0-31 merged into one file at the end of layer 32
    if buffer == TINY:
        assert merged


def test_a_won_line_after_a_resume_is_the_straight_line(tmp_path):
    """Stopped before the win (4,622 positions reachable before it), resumed: the same won position and the
    same line read back through the layer files as without a stop; and without stopping at the win."""
    pos = ((44, 49), (45, 48)) + ((),) * 6, (), (11, 11, 13, 13)
    for stop_on_win in (True, False):
        figures, _, line = _straight(tmp_path, pos, STANDARD, SMALL, stop_on_win=stop_on_win)
        work = tmp_path / "work"
        r = disksearch.explore_disk(pos, STANDARD, SMALL, max_states=40, work_dir=str(work), stop_on_win=stop_on_win)
        assert (r.status, r.won, r.kept) == ("limit", False, True)
        r.close()
        r = disksearch.explore_disk(pos, STANDARD, SMALL, work_dir=str(work), stop_on_win=stop_on_win)
        try:
            assert r.resumed is not None and r.resumed[0] >= 1 and not r.kept
            assert (r.status, r.states, r.layers, r.runs, r.max_home, r.overflow, r.overflow_bytes) == figures
            assert r.search.line() == line and line[0] == 0 and len(line[1]) == 6     # (first layer, positions)
            verdict, replayed = judge(pos, r, STANDARD)
            assert verdict == "winnable" and spec.won(replayed[-1])
        finally:
            r.close()
        assert not work.exists()


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "solver", "explore", *args], cwd=cwd or ROOT, capture_output=True,
                          text=True, timeout=600)


def test_the_same_command_goes_on_and_json_says_from_where(tmp_path):
    work = str(tmp_path / "w")
    common = ("--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", work, "--json")
    first = json.loads(_cli(*common, "--max-states", "50000").stdout)
    assert (first["verdict"], first["states"], first["disk"]["kept"], first["disk"]["resumed"]) == \
        ("unknown", 50000, True, False)
    assert first["disk"]["resumed_from_layer"] is None and first["disk"]["checkpoints"] == first["disk"]["layers"]
    assert first["disk"]["total_seconds"] == first["seconds"] > 0       # one run: its time is the total
    p = _cli(*common)
    last = json.loads(p.stdout)
    # `seconds` is this run's; the total adds the first run's time up to its last checkpoint (at most all of it)
    assert last["seconds"] < last["disk"]["total_seconds"] <= last["seconds"] + first["seconds"] + 1e-6
    assert (last["verdict"], last["states"], last["disk"]["layers"], last["disk"]["runs"]) == \
        ("unwinnable", 84767, 39, 137)
    layer, positions = last["disk"]["resumed_from_layer"], last["disk"]["resumed_positions"]
    assert last["disk"]["resumed"] and last["disk"]["kept"] is False and 0 < layer < 16 and positions < 50000
    assert p.stderr == f"resuming deal 11982 from layer {layer:,}, {positions:,} positions\n"
    assert not os.path.exists(work)
    p = _cli("--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", work, "--max-states", "1000")
    assert p.returncode == 0 and f"(kept in {work} with its state: the same command with a larger " \
                                  f"--max-states goes on from its last finished layer)" in p.stdout


@pytest.mark.e2e
def test_sigterm_keeps_the_work_folder_and_the_command_goes_on(tmp_path):
    """SIGTERM (`timeout`, `kill`) in the middle of deal 1 on disk: exit 130, the folder kept with its state;
    the same command with a limit goes on from the last finished layer and stops where a run straight to
    that limit stops (the same positions, layers and cards home)."""
    work = tmp_path / "w"
    args = ["--deal", "1", "--memory", "64K", "--on-disk", "--work-dir", str(work)]
    p = subprocess.Popen([sys.executable, "-m", "solver", "explore", *args], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len([n for n in os.listdir(work) if n.startswith("L")]
                                               if work.exists() else []) < 12:
        time.sleep(0.1)
    assert p.poll() is None, p.communicate()
    os.killpg(p.pid, signal.SIGTERM)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130 and out == "" and "Traceback" not in err, (p.returncode, err)
    assert err.splitlines()[0].startswith(f"note: the disk search's state is kept in {work}")
    assert err.splitlines()[1:] == [TERMINATED]        # said as SIGTERM, not Ctrl-C
    assert "search.state" in os.listdir(work)
    # a limit below the positions already found: stopped at once, the state as it was
    peek = json.loads(_cli(*args, "--max-states", "1", "--json", "--no-progress").stdout)
    found = peek["disk"]["resumed_positions"]
    assert (peek["verdict"], peek["states"], peek["disk"]["kept"]) == ("unknown", found, True)
    limit = found + 100000
    resumed = _cli(*args, "--max-states", str(limit), "--json", "--no-progress")
    assert resumed.returncode == 0 and resumed.stderr.startswith("resuming deal 1 from layer "), resumed.stderr
    a = json.loads(resumed.stdout)
    assert a["disk"]["resumed"] and a["disk"]["resumed_positions"] == found
    b = json.loads(_cli("--deal", "1", "--memory", "64K", "--on-disk", "--tmp", str(tmp_path), "--max-states",
                        str(limit), "--json", "--no-progress").stdout)
    assert (a["states"], a["max_home"], a["verdict"], a["disk"]["layers"], a["disk"]["runs"]) == \
        (b["states"], b["max_home"], b["verdict"], b["disk"]["layers"], b["disk"]["runs"]) == \
        (limit, b["max_home"], "unknown", b["disk"]["layers"], b["disk"]["runs"])
    assert work.exists()                           # stopped at the limit again: kept


def _stopped(tmp_path, deal=11982, rules=(), limit="30000"):
    work = tmp_path / "w"
    p = _cli("--deal", str(deal), *rules, "--memory", "64K", "--on-disk", "--work-dir", str(work), "--max-states",
             limit, "--no-progress")
    assert p.returncode == 0 and (work / "search.state").exists(), p.stderr
    return work


def _refused(work, message, deal=11982, rules=()):
    before = sorted(os.listdir(work))
    p = _cli("--deal", str(deal), *rules, "--memory", "64K", "--on-disk", "--work-dir", str(work))
    _one_line_error(p, f"--work-dir {work}: {message}")
    assert sorted(os.listdir(work)) == before      # nothing of the folder touched


@pytest.mark.parametrize("damage, message", [
    ("flip", "search.state: damaged (its checksum does not match) (it cannot be resumed: remove the folder to "
             "start again)"),
    ("cut", "search.state: damaged (its checksum does not match) (it cannot be resumed: remove the folder to "
            "start again)"),
    ("garbage", "search.state: not a disk search's state file (it cannot be resumed: remove the folder to start "
                "again)"),
    ("missing", "L000003.keys is missing (the state file lists it) (it cannot be resumed: remove the folder to "
                "start again)"),
    ("truncated", "L000005.keys has 16 bytes, the state file says {size} (it cannot be resumed: remove the folder "
                  "to start again)"),
    ("deal", "it holds the search of another start position (remove the folder or give another --work-dir)"),
    ("rules", "it holds a search under other rules: there 4 free cells, nothing back from the foundations; asked 3 "
              "free cells, nothing back from the foundations (remove the folder or give another --work-dir)"),
])
def test_a_folder_that_cannot_be_gone_on_with_is_one_line(tmp_path, damage, message):
    work = _stopped(tmp_path)
    state = work / "search.state"
    data = state.read_bytes()
    size = (work / "L000005.keys").stat().st_size
    deal, rules = 11982, ()
    if damage == "flip":
        state.write_bytes(data[:100] + bytes([data[100] ^ 1]) + data[101:])
    elif damage == "cut":
        state.write_bytes(data[:-20])
    elif damage == "garbage":
        state.write_bytes(b"not a state file at all")
    elif damage == "missing":
        (work / "L000003.keys").unlink()
    elif damage == "truncated":
        with open(work / "L000005.keys", "r+b") as f:
            f.truncate(16)
    elif damage == "deal":
        deal = 11983
    else:
        rules = ("--cells", "3")
    _refused(work, message.format(size=size), deal, rules)


def test_work_dir_misuse_is_one_line(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    p = _cli("--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", str(other))
    _one_line_error(p, f"--work-dir {other}: not empty and holds no disk search (no search.state); give an empty or "
                       f"new folder")
    assert os.listdir(other) == ["notes.txt"]
    _one_line_error(_cli("--deal", "11982", "--work-dir", str(tmp_path / "x")),
                    "--work-dir goes with --memory (the disk search)")
    _one_line_error(_cli("--deal", "11982", "--memory", "64K", "--work-dir", str(tmp_path / "x"), "--tmp",
                         str(tmp_path)), "--tmp and --work-dir: give one (--work-dir is the folder of a resumable "
                                         "search)")
    _one_line_error(_cli("--deal", "11982", "--memory", "64K", "--work-dir", str(other / "notes.txt")),
                    f"--work-dir {other / 'notes.txt'}: not a folder")
    assert not (tmp_path / "x").exists()
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")        # makedirs said "File exists" 
    _one_line_error(_cli("--deal", "11982", "--memory", "64K", "--work-dir", str(dangling)),
                    f"--work-dir {dangling}: a symbolic link to no folder (it points to {tmp_path / 'nowhere'})")
    assert not (tmp_path / "nowhere").exists()


def test_ctrl_c_right_after_the_end_says_the_folder_is_kept(tmp_path, monkeypatch, capsys):
    """Ctrl-C after the search's last layer but before its answer is given (here: as its result is made) keeps the
    work folder, as any exception going by does, and says so; the same call then gives the answer from it.
    Before, the note was left out once the search had ended."""
    from solver import deals, disksearch
    from solver.rules import Rules
    work = tmp_path / "w"

    def stopped(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(disksearch, "DiskResult", stopped)
    with pytest.raises(KeyboardInterrupt):
        disksearch.explore_disk(deals.ms_deal(11982), Rules(), 1 << 16, work_dir=str(work))
    assert capsys.readouterr().err == (f"note: the disk search's state is kept in {work}: the same command goes on "
                                       f"from its last finished layer\n")
    assert "search.state" in os.listdir(work)
    monkeypatch.undo()
    r = disksearch.explore_disk(deals.ms_deal(11982), Rules(), 1 << 16, work_dir=str(work))
    try:
        assert (r.states, r.complete, r.won) == (84_767, True, False)
    finally:
        r.close()
    assert not work.exists()


def test_files_the_state_does_not_list_are_removed_on_resume(tmp_path):
    """Runs and a half-written next layer (a search killed mid-layer) go; a start cut short before its first
    state file (only the search's own files) is started again."""
    work = _stopped(tmp_path)
    listed = sorted(os.listdir(work))
    for junk in ("R000000.keys", "R000007.keys", "L000099.keys", "S000000.keys", "search.state.tmp"):
        (work / junk).write_bytes(b"x" * 32)
    r = disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, max_states=30001, work_dir=str(work))
    try:
        assert r.status == "limit" and r.resumed is not None
    finally:
        r.close()
    assert "R000000.keys" not in os.listdir(work) and "L000099.keys" not in os.listdir(work)
    assert set(listed) <= set(os.listdir(work))
    (work / "search.state").unlink()              # as after a certificate's sort was cut short
    r = disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, max_states=100, work_dir=str(work))
    try:
        assert (r.status, r.states, r.resumed) == ("limit", 100, None)
    finally:
        r.close()


def test_certgen_build_goes_on_and_writes_the_straight_certificate(run, tmp_path):
    work = tmp_path / "w"
    straight, resumed = tmp_path / "straight.cert", tmp_path / "resumed.cert"
    p = run("build", "--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", str(work), "--max-states",
            "40000", "--out", str(resumed), module="certgen")
    assert p.returncode == 1 and not resumed.exists() and (work / "search.state").exists()
    assert f"stopped at its limit and is kept in {work} with its state: the same command with a larger --max-states goes on" \
        in p.stdout
    p = run("build", "--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", str(work), "--out",
            str(resumed), module="certgen")
    assert p.returncode == 0 and "84,767" in p.stdout and p.stderr.startswith("resuming deal 11982 from layer ")
    assert not work.exists()
    assert run("build", "--deal", "11982", "--memory", "64K", "--on-disk", "--out", str(straight),
               module="certgen").returncode == 0
    a, b = (msgpack.unpackb(f.read_bytes()) for f in (straight, resumed))
    assert a["body"] == b["body"]
    ha, hb = msgpack.unpackb(a["header"]), msgpack.unpackb(b["header"])
    ha["info"].pop("search_seconds"), hb["info"].pop("search_seconds")
    assert ha == hb


def test_certgen_build_s_search_seconds_add_the_runs_up(tmp_path, monkeypatch):
    """A build stopped at a limit and gone on with: its certificate's search_seconds are the first run's time up
    to its last checkpoint (the state file keeps it) and the last run's, not the last run's alone."""
    from certgen import prove
    from solver.source import load
    work = _stopped(tmp_path, limit="50000")
    state = (work / "search.state").read_bytes()
    kept = int.from_bytes(state[_SECONDS_AT:_SECONDS_AT + 8], "little") / 1e6
    assert kept > 0
    runs = []

    def spy(*a, **k):
        runs.append(disksearch.explore_within(*a, **k))
        return runs[-1]
    monkeypatch.setattr(prove, "explore_within", spy)
    b = prove.build(load(deal=11982), STANDARD, str(tmp_path / "c.cert"), memory=SMALL, on_disk=True,
                    work_dir=str(work))
    last = runs[0]
    assert b.verdict == "unwinnable" and last.resumed is not None and 0 < last.seconds
    assert last.total_seconds >= kept + last.seconds - 1e-6
    assert b.cert.info["search_seconds"] == round(last.total_seconds, 4) > round(last.seconds, 4)


def test_the_disk_search_s_seconds_are_processor_time(tmp_path):
    """A disk search's seconds, a resumed one's earlier runs' too (the state file's), are the process's processor
    time, as a ledger row's seconds are (certgen.certify.cpu_seconds): a core shared with another process (and
    the checkpoints' fsync) stretch its clock time, not them."""
    work, old = str(tmp_path / "w"), os.sched_getaffinity(0)
    core = min(old)
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                           preexec_fn=lambda: os.sched_setaffinity(0, {core}))
    os.sched_setaffinity(0, {core})
    try:
        took = []
        for limit in (150000, 300000):         # deal 24795893's set is far larger: each run stops at its limit
            c, w = time.process_time(), time.monotonic()
            r = disksearch.explore_disk(deals.ms_deal(24795893), STANDARD, SMALL, max_states=limit, work_dir=work)
            took.append((time.process_time() - c, time.monotonic() - w, r.seconds, r.total_seconds))
            r.close()
    finally:
        os.sched_setaffinity(0, old)
        hog.kill()
        hog.wait()
    (cpu1, wall1, seconds1, _), (cpu2, wall2, seconds2, total2) = took
    assert wall1 > 1.5 * cpu1 and wall2 > 1.5 * cpu2, took        # the clock time was stretched
    assert 0 < seconds1 <= cpu1 and 0 < seconds2 <= cpu2, took
    assert seconds2 < total2 <= cpu1 + cpu2, took                 # the first run's, kept in the state file


@pytest.mark.parametrize("asked", [Rules(cells=0, canonical=True), Rules(cells=2, foundation_return=True),
                                   Rules(cells=1, autoplay="safe", canonical=True), Rules(autoplay="horne"),
                                   Rules(cells=8, autoplay="twos", supermoves=True), Rules(autoplay="all")])
def test_the_core_says_the_rules_in_the_words_of_python(tmp_path, asked):
    """The disk search's refusal names both rules in solver.rules.Rules.words' words, word for word (the C core
    writes that message: ddd_state.c's rules_words)."""
    there = Rules(cells=1)
    work = str(tmp_path / "w")
    disksearch.explore_disk(deals.ms_deal(43), there, SMALL, max_states=1000, work_dir=work).close()
    with pytest.raises(FreecellError) as e:
        disksearch.explore_disk(deals.ms_deal(43), asked, SMALL, max_states=1000, work_dir=work)
    assert str(e.value) == (f"--work-dir {work}: it holds a search under other rules: there "
                            f"{', '.join(there.words())}; asked {', '.join(asked.words())} (remove the folder or give "
                            f"another --work-dir)")


def test_rules_with_foundation_returns_are_kept_apart(tmp_path):
    """The state holds the rules: a search under --foundation-return is not gone on with under the standard
    rules, and is gone on with under its own."""
    work = _stopped(tmp_path, rules=("--foundation-return",))
    _refused(work, "it holds a search under other rules: there 4 free cells, foundation returns allowed; asked 4 free "
                   "cells, nothing back from the foundations (remove the folder or give another --work-dir)")
    r = disksearch.explore_disk(deals.ms_deal(11982), Rules(foundation_return=True), SMALL, max_states=30001,
                                work_dir=str(work))
    try:
        assert r.status == "limit" and r.resumed is not None
    finally:
        r.close()


def test_one_search_at_a_time_in_a_work_folder(tmp_path):
    """A second process in the folder of a running search is refused in one line naming the first (two of them
    removed and rewrote each other's files: a false "unwinnable" came out); once the first stops, it goes on."""
    work = _stopped(tmp_path)
    r = disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, max_states=30001, work_dir=str(work))
    try:
        assert r.status == "limit" and r.resumed is not None
        before = sorted(os.listdir(work))
        p = _cli("--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", str(work))
        _one_line_error(p, f"--work-dir {work}: in use by another search (process {os.getpid()}): wait for it to "
                           f"stop, or give another folder")
        assert sorted(os.listdir(work)) == before
    finally:
        r.close()
    last = json.loads(_cli("--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", str(work), "--json").stdout)
    assert (last["verdict"], last["states"], last["disk"]["resumed"]) == ("unwinnable", 84767, True)
    assert not work.exists()


def test_a_work_folder_is_a_disk_search_from_the_start(tmp_path):
    """--work-dir without --on-disk: on disk at once (a search in memory could not be gone on with), so a limit
    leaves the state to go on from."""
    work = tmp_path / "w"
    p = _cli("--deal", "11982", "--memory", "1G", "--work-dir", str(work), "--max-states", "30000", "--json")
    first = json.loads(p.stdout)
    assert (first["verdict"], first["states"], first["disk"]["kept"]) == ("unknown", 30000, True)
    assert (work / "search.state").exists()


_VERSION_AT = 8                         # offsets in the state file: magic, version, start, rules, key bits, the search's
_STATES_AT, _MAX_HOME_AT = 525, 597     # number, its time so far, then these
_SECONDS_AT = _STATES_AT - 8            # the time so far: microseconds
_FILES_AT = _STATES_AT + 13 * 8 + 2 * 72   # after the counters and two positions: the live files' list


def _set_u64(data, at, value):
    """The state file with the 8 bytes at `at` replaced and its checksum made right again."""
    data = data[:at] + value.to_bytes(8, "little") + data[at + 8:]
    return data[:-8] + fnv64(data[:-8]).to_bytes(8, "little")


@pytest.mark.parametrize("field, change", [("states", 100000), ("max_home", 52), ("seconds", 2 ** 64 - 1),
                                           ("seconds", 2 ** 53 + 1)])
def test_counters_that_do_not_hold_together_are_refused_with_a_right_checksum(tmp_path, field, change):
    """A state file whose checksum is right but whose counters disagree with its files (positions counted that no
    file holds; all 52 cards home without a win), or whose time so far passes 2^53 microseconds (285 years: the
    total written back would pass 2^64), is refused: its figures would have been printed as fact."""
    work = _stopped(tmp_path)
    state = work / "search.state"
    data = state.read_bytes()
    at = {"states": _STATES_AT, "max_home": _MAX_HOME_AT, "seconds": _SECONDS_AT}[field]
    old = int.from_bytes(data[at:at + 8], "little")
    assert {"states": 0 < old < 30000, "max_home": old <= 2, "seconds": 0 < old < 10 ** 8}[field]   # the fields'
    state.write_bytes(_set_u64(data, at, old + change if field == "states" else change))
    _refused(work, "search.state: its counters do not hold together (it cannot be resumed: remove the folder to "
                   "start again)")


@pytest.mark.parametrize("old", [1, 2])
def test_a_state_file_of_the_old_format_is_one_line(tmp_path, old):
    """A folder kept by the program before the files had heads (state format 1), or before the disk search's key
    became 24 bytes (format 2: 16-byte keys of 127 bits, files of format 2): one line saying so, the folder
    untouched (its files would be read as damaged, or worse, if it were gone on with)."""
    work = _stopped(tmp_path)
    state = work / "search.state"
    data = state.read_bytes()
    assert int.from_bytes(data[_VERSION_AT:_VERSION_AT + 8], "little") == 3
    before = {p.name: p.read_bytes() for p in work.iterdir() if p.name.endswith(".keys")}
    state.write_bytes(_set_u64(data, _VERSION_AT, old))
    _refused(work, f"search.state: written in format {old} by an older version of this program, which reads "
                   "format 3 only (it cannot be resumed: remove the folder to start again)")
    assert {p.name: p.read_bytes() for p in work.iterdir() if p.name.endswith(".keys")} == before   # its files too


def _listed(data):
    """The state file's live files: {name: offset of its entry (kind, number, keys, bytes)}."""
    n = int.from_bytes(data[_FILES_AT:_FILES_AT + 8], "little")
    files = {}
    for i in range(n):
        at = _FILES_AT + 8 + 32 * i
        kind, idx = (int.from_bytes(data[at + 8 * j:at + 8 * j + 8], "little") for j in range(2))
        files[f"{'LRVS'[kind]}{idx:06d}.keys"] = at
    return files


def _swapped(work, a, b):
    """Files a and b of a kept folder swapped, the state's sizes and key counts with them, its checksum right."""
    state = work / "search.state"
    data = state.read_bytes()
    files = _listed(data)
    pa, pb = work / a, work / b
    da, db = pa.read_bytes(), pb.read_bytes()
    pa.write_bytes(db)
    pb.write_bytes(da)
    ea, eb = files[a] + 16, files[b] + 16
    data = data[:ea] + data[eb:eb + 16] + data[ea + 16:eb] + data[ea:ea + 16] + data[eb + 16:]
    state.write_bytes(data[:-8] + fnv64(data[:-8]).to_bytes(8, "little"))


def test_two_layer_files_swapped_are_refused(tmp_path):
    """Two genuine layer files of a kept folder swapped, with the state's sizes, key counts and checksum
    rewritten to agree: each file's head names its search, kind and number, so the resume is refused in one
    line (without the heads the search went on and printed a wrong count)."""
    work = _stopped(tmp_path)
    assert {"L000003.keys", "L000004.keys"} <= set(_listed((work / "search.state").read_bytes()))
    _swapped(work, "L000003.keys", "L000004.keys")
    _refused(work, "L000003.keys is not this search's file of that name (its head names another search, file or "
                   "format) (it cannot be resumed: remove the folder to start again)")


def test_a_layer_file_of_another_search_is_refused(tmp_path):
    """The same deal stopped twice at the same limit in two folders: their layer files are alike byte for byte
    but for the search's random number in the head, so one taken from the other search is refused."""
    one = _stopped(tmp_path / "a")
    other = _stopped(tmp_path / "b")
    a, b = (one / "L000004.keys").read_bytes(), (other / "L000004.keys").read_bytes()
    assert len(a) == len(b) and a[:8] == b[:8] == b"FCDK\x03\0\0\0" and a[8:16] != b[8:16] and a[16:] == b[16:]
    (one / "L000004.keys").write_bytes(b)
    _refused(one, "L000004.keys is not this search's file of that name (its head names another search, file or "
                  "format) (it cannot be resumed: remove the folder to start again)")


@pytest.mark.parametrize("kind", ["folder", "huge"])
def test_a_state_file_that_is_not_a_file_or_far_too_big_is_one_line(tmp_path, kind):
    """A folder named search.state, or a sparse file of 10 TB in its place: one line (it crashed the C core)."""
    work = _stopped(tmp_path)
    state = work / "search.state"
    if kind == "folder":
        state.unlink()
        state.mkdir()
        message = "search.state: not a regular file (it cannot be resumed: remove the folder to start again)"
    else:
        with open(state, "r+b") as f:
            f.truncate(10 << 40)
        message = (f"search.state: {10 << 40} bytes, more than the overflow set of this --memory holds (give a larger "
                   f"--memory to go on)")
    _refused(work, message)


def test_an_overflow_set_past_a_smaller_memory_says_to_give_more(tmp_path):
    """Resumed with less --memory than its overflow set needs: one line saying to give more (not to throw the
    work away); with enough again it goes on to the whole set."""
    work, pos = str(tmp_path / "w"), deals.ms_deal(11982)
    r = disksearch.explore_disk(pos, STANDARD, 64 << 20, max_states=84000, key_bits=100, work_dir=work)
    try:
        assert r.status == "limit" and r.overflow > 50000
    finally:
        r.close()
    with pytest.raises(FreecellError) as e:
        disksearch.explore_disk(pos, STANDARD, SMALL, key_bits=100, work_dir=work)
    assert str(e.value).startswith(f"--work-dir {work}: search.state: ") and \
        str(e.value).endswith(" bytes, more than the overflow set of this --memory holds (give a larger --memory to "
                              "go on)")
    with pytest.raises(FreecellError) as e:      # a state file it can read, an overflow set it cannot hold
        disksearch.explore_disk(pos, STANDARD, 10 << 20, key_bits=100, work_dir=work)
    assert str(e.value).startswith(f"--work-dir {work}: its ") and \
        str(e.value).endswith(" positions over the key need more than a quarter of this --memory (give a "
                              "larger --memory to go on)")
    r = disksearch.explore_disk(pos, STANDARD, 64 << 20, key_bits=100, work_dir=work)
    try:
        assert (r.status, r.states) == ("done", 84767)
    finally:
        r.close()


def test_a_damaged_visited_file_in_a_kept_folder_never_gives_another_set(tmp_path):
    """Bytes flipped all over the merged file V of a kept folder, then resumed: an I/O error (one line) or, where
    the damage lies in a part the search never needed, the true set; never another count under "unwinnable".
    (The merge stops reading a visited file where its candidates end: before each block's CRC-32, keys from a
    damaged stream were used and 85,007 positions came out; garbage keys crashed the certificate's sort.)"""
    import shutil
    kept = _stopped(tmp_path, limit="84000")
    assert (kept / "V000000.keys").exists()
    size = (kept / "V000000.keys").stat().st_size
    outcomes = set()
    for n, at in enumerate(range(20, size, size // 24)):
        work = tmp_path / f"w{n}"
        shutil.copytree(kept, work)
        with open(work / "V000000.keys", "r+b") as f:
            f.seek(at)
            b = f.read(1)[0]
            f.seek(at)
            f.write(bytes([b ^ (1 << (n % 8))]))
        try:
            r = disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, work_dir=str(work))
        except FreecellError as e:
            head = at < 32 and "V000000.keys is not this search's file of that name" in str(e)   # its head
            assert "V000000.keys: damaged (its checksum does not match)" in str(e) or head, str(e)
            outcomes.add("refused")
            continue
        try:
            assert (r.status, r.states) == ("done", 84767), at
            outcomes.add("true set")
        finally:
            r.close()
    assert "refused" in outcomes


def _goes_on_to_the_whole_set(work, pos):
    """The kept search in work (state there) resumed to #11982's whole set: its result, open."""
    assert "search.state" in os.listdir(work)
    r = disksearch.explore_disk(pos, STANDARD, SMALL, work_dir=work)
    assert (r.status, r.states) == ("done", 84767) and r.resumed is not None
    return r


def test_a_sort_cut_short_keeps_the_search_and_goes_on(tmp_path):
    """The certificate's sort stopped before its end (here: the batches not read to the end, as when the
    certificate's disk fills): the work folder keeps its layers and state, and the same search sorts again
    to the straight certificate (a full disk in the sort threw a whole resumable search away)."""
    work, pos = str(tmp_path / "w"), deals.ms_deal(11982)
    r = disksearch.explore_disk(pos, STANDARD, SMALL, work_dir=work)
    try:
        assert r.status == "done"
        next(r.search.sorted_batches(1000))
    finally:
        r.close()
    r = _goes_on_to_the_whole_set(work, pos)
    try:
        resumed = _cert_bytes(tmp_path, pos, STANDARD, r)
    finally:
        r.close()
    assert not os.path.exists(work)
    r = disksearch.explore_disk(pos, STANDARD, SMALL, tmp=str(tmp_path))
    try:
        straight = _cert_bytes(tmp_path, pos, STANDARD, r)
    finally:
        r.close()
    assert resumed == straight


def test_odd_work_folders_are_one_line(tmp_path, run):
    """A link where the lock goes (it wrote over the file it pointed to), a certificate asked for inside the
    work folder (removed with it, yet reported written), a folder name that is not UTF-8 (a traceback)."""
    precious = tmp_path / "precious.txt"
    precious.write_text("mine")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "search.lock").symlink_to(precious)
    _one_line_error(_cli("--deal", "11982", "--memory", "64K", "--work-dir", str(linked)),
                    f"--work-dir {linked}: search.lock: Too many levels of symbolic links")
    assert precious.read_text() == "mine"
    inside = tmp_path / "in"
    p = run("build", "--deal", "11982", "--memory", "64K", "--work-dir", str(inside), "--out",
            str(inside / "L000000.keys"), module="certgen")
    _one_line_error(p, f"--out {inside / 'L000000.keys'}: inside --work-dir {inside}, whose files the search "
                       f"removes; write the certificate elsewhere")
    odd = os.fsdecode(os.fsencode(str(tmp_path)) + b"/bad\xffname")
    p = subprocess.run([sys.executable, "-m", "solver", "explore", "--deal", "11982", "--memory", "64K",
                        "--work-dir", odd, "--max-states", "1000"], cwd=ROOT, capture_output=True, timeout=600)
    assert p.returncode == 0 and b"Traceback" not in p.stderr and b"unknown" in p.stdout
    assert os.path.exists(odd + "/search.state")
    # --json with that name: valid UTF-8 JSON (the name's byte escaped), naming the same folder
    p = subprocess.run([sys.executable, "-m", "solver", "explore", "--deal", "11982", "--memory", "64K",
                        "--work-dir", odd, "--max-states", "2000", "--json"], cwd=ROOT, capture_output=True, timeout=600)
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout.decode("utf-8"))
    assert obj["disk"]["work_dir"] == odd and obj["verdict"] == "unknown"


@pytest.mark.e2e
def test_an_interrupt_after_the_last_layer_keeps_the_folder(tmp_path):
    """A SIGTERM that lands while the search's last call ends it (status done, the answer not given yet, the
    certificate not written) keeps the work folder (it removed a finished search); the same search goes on."""
    work, pos = str(tmp_path / "w"), deals.ms_deal(11982)
    r = disksearch.explore_disk(pos, STANDARD, SMALL, work_dir=work)
    assert (r.status, r.states) == ("done", 84767)
    with pytest.raises(KeyboardInterrupt):
        try:
            raise KeyboardInterrupt          # as _term_as_interrupt raises it
        finally:
            r.close()
    _goes_on_to_the_whole_set(work, pos).close()
    assert not os.path.exists(work)


def test_a_certificate_anywhere_under_the_work_folder_is_refused(tmp_path, run):
    work = tmp_path / "w"
    out = work / "sub" / "x.cert"
    p = run("build", "--deal", "11982", "--memory", "64K", "--work-dir", str(work), "--out", str(out), module="certgen")
    _one_line_error(p, f"--out {out}: inside --work-dir {work}, whose files the search removes; write the "
                       f"certificate elsewhere")
    assert not work.exists()


def test_the_parent_folders_a_work_dir_made_go_with_it(tmp_path):
    """--work-dir a/b/c with a/b missing makes them; at the natural end they go with c, when still empty (the
    they stayed); kept at a limit, they stay with it (and the sitting that ends it
    later, which did not make them, leaves them); a parent that existed stays, and so does one holding anything
    else."""
    from solver import deals, disksearch
    from solver.rules import Rules
    (tmp_path / "old").mkdir()
    work = tmp_path / "old" / "a" / "b" / "c"
    r = disksearch.explore_disk(deals.ms_deal(11982), Rules(), 1 << 16, max_states=1000, work_dir=str(work))
    r.close()
    assert (work / "search.state").exists()                     # at the limit: kept, with its parents
    r = disksearch.explore_disk(deals.ms_deal(11982), Rules(), 1 << 16, work_dir=str(work))
    r.close()                                                   # resumed by another process's made parents: they
    assert os.listdir(tmp_path / "old") == ["a"] and not work.exists()     # were not this one's to remove
    work2 = tmp_path / "old" / "x" / "y"
    r = disksearch.explore_disk(deals.ms_deal(11982), Rules(), 1 << 16, work_dir=str(work2))
    assert (r.states, r.complete) == (84_767, True)
    r.close()
    assert sorted(os.listdir(tmp_path / "old")) == ["a"]
    work3 = tmp_path / "old" / "p" / "q"
    r = disksearch.explore_disk(deals.ms_deal(11982), Rules(), 1 << 16, work_dir=str(work3))
    (tmp_path / "old" / "p" / "mine.txt").write_text("mine")
    r.close()
    assert os.listdir(tmp_path / "old" / "p") == ["mine.txt"]


def explore(*args):
    return subprocess.run([sys.executable, "-m", "solver", "explore", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def stopped(tmp_path):
    """#11982 on disk in a work folder, stopped at 30,000 positions: its layer files L000000..L000012."""
    work = tmp_path / "w"
    p = explore("--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", str(work), "--max-states", "30000",
                "--no-progress")
    assert p.returncode == 0 and (work / "search.state").exists(), p.stderr
    return work


def test_a_flipped_byte_in_a_layer_file_is_named(tmp_path):
    """The search goes on from its last layer, L000012.keys, which has one bit flipped inside a block: the
    error names the file, says its checksum does not match and what to do. (It said "Input/output error …
    the same command goes on once the cause is gone", which it never would.)"""
    work = stopped(tmp_path)
    layer = work / "L000012.keys"
    assert layer.stat().st_size > 1000
    with open(layer, "r+b") as f:
        f.seek(100)
        b = f.read(1)[0]
        f.seek(100)
        f.write(bytes([b ^ 4]))
    p = explore("--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", str(work), "--no-progress")
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.splitlines()[-1] == (
        f"error: the disk search stopped after 29,235 positions: {layer}: damaged (its checksum does not match): "
        f"the positions it holds are lost (nothing is claimed: the verdict is unknown; the same command would stop "
        f"here again: remove the folder {work} to start again)")
    assert disksearch.damaged_file(str(work)) == "L000012.keys"


def test_which_file_is_damaged(tmp_path):
    """damaged_file: none in a sound folder; a block's CRC-32, a block's length past its bound and a head
    without its magic are named; a file that only ends early is not (the layer being written)."""
    work = stopped(tmp_path)
    assert disksearch.damaged_file(str(work)) is None
    assert disksearch.damaged_file(str(tmp_path / "nowhere")) is None
    good = (work / "L000011.keys").read_bytes()
    for at, why in ((32 + 12 + 7, "deflated bytes"), (32 + 8, "the CRC-32 itself"), (32 + 2, "a length"),
                    (1, "the magic")):
        bad = bytearray(good)
        bad[at] ^= 0x80
        (work / "L000011.keys").write_bytes(bytes(bad))
        assert disksearch.damaged_file(str(work)) == "L000011.keys", why
    (work / "L000011.keys").write_bytes(good[:len(good) // 2])
    assert disksearch.damaged_file(str(work)) is None


def _disk_full(monkeypatch):
    """The C core as on a full disk: its first checkpoint fails with ENOSPC."""
    real = disksearch.lib

    class Full:
        def __getattr__(self, name):
            return getattr(real, name)

        @staticmethod
        def fc_ddd_keep(d, on):
            return real.FC_EIO if on else real.fc_ddd_keep(d, on)

        @staticmethod
        def fc_ddd_stats(d, st):
            real.fc_ddd_stats(d, st)
            st.sys_errno = errno.ENOSPC
    monkeypatch.setattr(disksearch, "lib", Full())


def test_a_full_disk_says_so_and_leaves_no_folder(tmp_path, monkeypatch):
    """A work folder on a full disk said "cannot write the search's files there" and left the (empty) folder
    it had made; now "no space left on the device (disk full)", and the folder and the parent it made are
    gone. (Simulated: the first checkpoint fails with ENOSPC; the next test does it on a real full tmpfs.)"""
    _disk_full(monkeypatch)
    work = tmp_path / "made" / "w"
    with pytest.raises(FreecellError) as e:
        disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, work_dir=str(work))
    assert str(e.value) == (f"--work-dir {work}: cannot write the search's files there: no space left on the "
                            f"device (disk full)")
    assert os.listdir(tmp_path) == []
    kept = tmp_path / "kept"
    kept.mkdir()
    with pytest.raises(FreecellError):
        disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, work_dir=str(kept))
    assert os.listdir(kept) == []           # a folder the user made stays, as it was


def test_a_full_tmpfs(tmp_path):
    """The same on an 8 KB tmpfs (root only: skipped where mount is refused)."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        p = explore("--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", str(mnt / "w"), "--no-progress")
        _one_line_error(p, f"--work-dir {mnt / 'w'}: cannot write the search's files there: no space left on the "
                           f"device (disk full)")
        assert os.listdir(mnt) == []
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)
