"""The disk search's sort into the certificate's order in steps (fc_ddd_sort_step in solver/ddd_search.c): in a
--work-dir each step writes one sorted run and then the sort state `sort.state`, so a sort killed (SIGKILL, a
reboot) goes on from its last finished run with the same command, never searching again, and gives the same
certificate; SIGTERM and Ctrl-C stop a step within about a second (fc_ddd_cancel); a sort state or a run that
does not hold together is said in one line and the sort is done again, never a wrong certificate."""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

import msgpack
import pytest

from solver.errors import TERMINATED

from helpers import ROOT
from helpers.disk import fnv64

DEAL = "11982"          # 84,767 positions; with --memory 64K chunks of 1,638 keys: 52 runs (more than DDD_MAXF = 32)
BUILD = ["build", "--deal", DEAL, "--memory", "64K", "--on-disk", "--no-progress"]

# A search of #11982 on disk in a work folder, then `steps` steps of its sort, then SIGKILL (no cleanup at all).
_KILLED = """
import os, signal, sys
from solver import deals, disksearch
from solver.rules import STANDARD
from solver.search import lib
r = disksearch.explore_disk(deals.ms_deal(11982), STANDARD, 65536, work_dir=sys.argv[1])
assert r.status == "done"
print(r.seconds, flush=True)
for _ in range(int(sys.argv[2])):
    assert lib.fc_ddd_sort_step(r.search._d) == 1
os.kill(os.getpid(), signal.SIGKILL)
"""


def _certgen(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "certgen", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def _body(path):
    """The certificate's records and its header but the search's time."""
    cert = msgpack.unpackb(path.read_bytes())
    head = msgpack.unpackb(cert["header"])
    head["info"].pop("search_seconds")
    return cert["body"], head


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """An uninterrupted build's certificate (body, header)."""
    out = tmp_path_factory.mktemp("straight") / "s.cert"
    p = _certgen(*BUILD, "--out", str(out))
    assert p.returncode == 0, p.stderr
    return _body(out)


def _killed_in_the_sort(work, steps):
    p = subprocess.run([sys.executable, "-c", _KILLED, str(work), str(steps)], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == -signal.SIGKILL, p.stderr
    names = set(os.listdir(work))
    assert {"search.state", "sort.state"} <= names, names
    return float(p.stdout)          # the search's seconds


def _sort_state(work):
    """sort.state's 16 numbers after its magic, and its runs' (records, bytes)."""
    data = (work / "sort.state").read_bytes()
    head = list(struct.unpack("<16Q", data[8:136]))
    runs = [struct.unpack("<QQ", data[i:i + 16]) for i in range(136, len(data) - 8, 16)]
    return head, runs


def _write_sort_state(work, head, runs):
    body = (work / "sort.state").read_bytes()[:8] + struct.pack("<16Q", *head) + \
        b"".join(struct.pack("<QQ", *r) for r in runs)
    (work / "sort.state").write_bytes(body + struct.pack("<Q", fnv64(body)))


@pytest.mark.parametrize("steps", [5, 36])     # 36: past DDD_MAXF runs, the oldest 32 merged into one
def test_a_sort_killed_goes_on_from_its_last_run(tmp_path, straight, steps):
    """kill -9 during the sort (here right after `steps` runs, with the leftovers of the next step cut short: a
    half-written run, a half-written state), then the same command: it says it goes on with the sort after
    those runs (the search is not done again), removes the leftovers and writes the straight certificate."""
    work = tmp_path / "w"
    _killed_in_the_sort(work, steps)
    head, runs = _sort_state(work)
    assert head[13] == steps and sum(r[0] for r in runs) == head[12] > 0
    live = sorted(n for n in os.listdir(work) if n.startswith("S"))
    assert len(live) == len(runs) == (steps if steps <= 32 else steps - 32 + 1)
    nxt = work / f"S{head[15]:06d}.keys"
    nxt.write_bytes(b"FCDK half a run")
    (work / "sort.state.tmp").write_bytes(b"half a state")
    out = tmp_path / "r.cert"
    p = _certgen(*BUILD, "--work-dir", str(work), "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert p.stderr.splitlines()[0] == (f"resuming deal {DEAL} from its sort: the search ended at layer 39 with "
                                        f"84,767 positions, {head[12]:,} of them sorted in {steps:,} runs")
    assert "84,767" in p.stdout and not work.exists()
    assert "the certificate is checked before its verdict" in p.stderr       # the folder's files are the user's
    assert _body(out) == straight


def test_a_search_resumed_in_its_sort_says_the_seconds_of_its_runs_together(tmp_path):
    """The search ended in the run killed in its sort; the run that goes on only sorts. The certificate's
    search_seconds are the killed run's search (its sort state keeps them, in microseconds) and the last
    run's, not the last run's alone (a few microseconds: a 1,745-second search got 0.0017)."""
    work = tmp_path / "w"
    first = _killed_in_the_sort(work, 5)
    kept = _sort_state(work)[0][7] / 1e6
    assert first > 0.05 and abs(kept - first) < 0.01 * first + 0.01, (kept, first)
    out = tmp_path / "r.cert"
    p = _certgen(*BUILD, "--work-dir", str(work), "--out", str(out))
    assert p.returncode == 0 and "from its sort" in p.stderr, p.stderr
    searched = msgpack.unpackb(msgpack.unpackb(out.read_bytes())["header"])["info"]["search_seconds"]
    assert kept - 1e-4 <= searched < kept + 1, (searched, kept)


def _damage(work, how):
    head, runs = _sort_state(work)
    first = work / f"S{head[14]:06d}.keys"
    if how == "truncated run":
        first.write_bytes(first.read_bytes()[:-5])
        return f"sort.state: {first.name} has {runs[0][1] - 5} bytes, sort.state says {runs[0][1]}: the sort starts again"
    if how == "missing run":
        first.unlink()
        return f"sort.state: {first.name} is missing (sort.state lists it): the sort starts again"
    if how == "flipped byte":
        data = bytearray((work / "sort.state").read_bytes())
        data[8 + 8 * 12] ^= 1
        (work / "sort.state").write_bytes(bytes(data))
        return "sort.state: damaged (its checksum does not match): the sort starts again"
    if how == "forged counters":       # one more position sorted than the runs hold, the checksum made right
        head[11] += 1
        head[12] += 1
        _write_sort_state(work, head, runs)
        return "sort.state: its runs do not hold its positions: the sort starts again"
    if how == "no sort state":         # as the sort of a version that wrote none left it
        (work / "sort.state").unlink()
        return "its sort had begun with no sort.state: the search had ended; the sort starts again"
    if how == "forged time":           # past 2^53 microseconds: the total written back would pass 2^64
        head[7] = 2 ** 64 - 1
        _write_sort_state(work, head, runs)
        return "sort.state: its counters do not hold together: the sort starts again"
    if how == "forged end":            # the chunks said all read: the certificate would miss positions
        head[10], head[11] = 40, 0
        _write_sort_state(work, head, runs)
        return "sort.state: its counters do not hold together: the sort starts again"
    raise ValueError(how)


@pytest.mark.parametrize("how", ["truncated run", "missing run", "flipped byte", "forged counters", "forged end",
                                 "forged time", "no sort state"])
def test_a_sort_state_that_does_not_hold_together_is_one_line_and_sorted_again(tmp_path, straight, how):
    """A finished run cut short or gone, a sort state damaged, forged (its checksum made right) or missing (a
    folder whose sort was begun by the version that wrote none): one note line, the sort done again from its
    first run (a run of this search's sort says its search had ended: it is not done again), the straight
    certificate."""
    work = tmp_path / "w"
    _killed_in_the_sort(work, 5)
    note = _damage(work, how)
    out = tmp_path / "r.cert"
    p = _certgen(*BUILD, "--work-dir", str(work), "--out", str(out))
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert lines[0] == f"note: --work-dir {work}: {note}"
    assert lines[1] == (f"resuming deal {DEAL} from its sort: the search ended at layer 39 with 84,767 positions, "
                        f"0 of them sorted in 0 runs")
    assert _body(out) == straight


def test_a_damaged_finished_run_is_one_line_and_the_same_command_sorts_again(tmp_path, straight):
    """A byte flipped inside a finished run (its size and head as listed): the merge finds its checksum
    wrong: one line naming it, no certificate, the folder kept without the sort state; the same command
    then sorts again to the straight certificate."""
    work = tmp_path / "w"
    _killed_in_the_sort(work, 5)
    head, _ = _sort_state(work)
    run = work / f"S{head[14]:06d}.keys"
    data = bytearray(run.read_bytes())
    data[32 + 12 + 3] ^= 0x40
    run.write_bytes(bytes(data))
    out = tmp_path / "r.cert"
    p = _certgen(*BUILD, "--work-dir", str(work), "--out", str(out))
    assert p.returncode == 2 and not out.exists() and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.splitlines()[-1] == (
        f"error: the disk search enumerated all 84,767 positions, but sorting them for the certificate failed: "
        f"{run}: damaged (its checksum does not match) (no certificate written; the whole search is kept in "
        f"{work}: the same command sorts again)")
    assert "sort.state" not in os.listdir(work) and "search.state" in os.listdir(work)
    p = _certgen(*BUILD, "--work-dir", str(work), "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert _body(out) == straight


def test_a_sort_state_forged_to_agree_with_its_runs_gives_no_certificate(tmp_path, straight):
    """A sort state whose checksum and counters agree, forged to say 100 more positions were sorted than its
    runs hold (its first run's count and where the next chunk begins both moved): the sort goes on past them,
    its runs hold 100 positions fewer than the search found: one line, no certificate, the sort state removed;
    the same command then sorts again to the straight certificate."""
    work = tmp_path / "w"
    _killed_in_the_sort(work, 5)
    head, runs = _sort_state(work)
    head[11] += 100
    head[12] += 100
    runs[0] = (runs[0][0] + 100, runs[0][1])
    _write_sort_state(work, head, runs)
    out = tmp_path / "r.cert"
    p = _certgen(*BUILD, "--work-dir", str(work), "--out", str(out))
    assert p.returncode == 2 and not out.exists() and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.splitlines()[-1] == (
        f"error: the disk search enumerated all 84,767 positions, but its sorted runs hold 84,667 (no certificate "
        f"written; the whole search is kept in {work}: the same command sorts again)")
    assert "sort.state" not in os.listdir(work)
    p = _certgen(*BUILD, "--work-dir", str(work), "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert _body(out) == straight


@pytest.mark.e2e
def test_sigterm_in_a_long_sort_step_stops_within_seconds(tmp_path):
    """SIGTERM a second into the sort's first step, which sorts a chunk of about a million keys (deal 405508700,
    canonical with safe automatic moves: 1,010,043 positions in one chunk of 64M; the one-call sort took 7 to
    13 s on it, and the signal waited for it: 5.5 s after a signal 1.5 s in, at a load of 7.4): the process
    ends within 4 s (1.3 s then) with the one line and exit 130, the folder kept with the search's state and
    the sort's (its first step not finished: no run listed)."""
    work = tmp_path / "w"
    args = ["build", "--deal", "405508700", "--canonical", "--autoplay", "safe", "--memory", "64M", "--work-dir",
            str(work), "--no-progress", "--out", str(tmp_path / "c.cert")]
    p = subprocess.Popen([sys.executable, "-m", "certgen", *args], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not (work / "sort.state").exists() and p.poll() is None:
        time.sleep(0.02)
    assert p.poll() is None, p.communicate()
    time.sleep(1.0)                     # in the sort of the chunk's pieces
    t = time.monotonic()
    os.killpg(p.pid, signal.SIGTERM)
    out, err = p.communicate(timeout=600)
    took = time.monotonic() - t
    assert p.returncode == 130 and "Traceback" not in err, (p.returncode, err)
    assert err.splitlines()[-1] == TERMINATED and took < 4, (took, err)
    names = set(os.listdir(work))
    assert {"search.state", "sort.state"} <= names and not any(n.startswith("S") for n in names), names


@pytest.mark.e2e
def test_kill_9_in_the_middle_of_a_sort_then_the_same_command(tmp_path):
    """certgen build of deal 405508700 (canonical, safe automatic moves: 1,010,043 positions; --memory 4M: 11
    runs of 100,000) killed with SIGKILL once its sort state lists 3 runs (in the middle of a step: half a run
    written), then the same command: it goes on with the sort from the runs listed (not the search), and the
    certificate's records_sha256 is the ledger's (docs/data/freecell-pro-impossible-ledger.csv.gz), that of a
    build straight through."""
    work, out = tmp_path / "w", tmp_path / "c.cert"
    args = ["build", "--deal", "405508700", "--canonical", "--autoplay", "safe", "--memory", "4M", "--work-dir",
            str(work), "--no-progress", "--out", str(out)]
    p = subprocess.Popen([sys.executable, "-m", "certgen", *args], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline, runs = time.monotonic() + 600, 0
    while time.monotonic() < deadline and runs < 3 and p.poll() is None:
        time.sleep(0.02)
        try:
            runs = _sort_state(work)[0][13]
        except (OSError, struct.error):
            pass
    assert p.poll() is None, p.communicate()
    time.sleep(0.2)
    os.killpg(p.pid, signal.SIGKILL)
    p.communicate(timeout=60)
    head, _ = _sort_state(work)
    assert 3 <= head[13] < 11
    p = _certgen(*args)
    assert p.returncode == 0, p.stderr
    assert p.stderr.splitlines()[0] == (
        f"resuming deal 405508700 from its sort: the search ended at layer {head[8]:,} with 1,010,043 positions, "
        f"{head[12]:,} of them sorted in {head[13]:,} runs")
    info = subprocess.run([sys.executable, "-m", "certgen", "info", "--json", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert json.loads(info.stdout)["records_sha256"] == \
        "33dc1c6c0440292e4b6ae9b0dc1925bf1164e8b2717d2f0d1841b087487a7126"


# A search of #11982 on disk in a work folder (--memory 8M), then its sort's first step stopped by Ctrl-C, sent
# from the step's own thread once the main thread waits for it in _interruptible (a timer raced a sort that can
# end in a few hundredths of a second; a signal sent sooner lands in Thread.start), and a second Ctrl-C coming
# while the first stops the step (raised by the first clock read of that wait): _interruptible gives up its wait
# with the step still to run in its thread, holding the search's lock, and the search is closed at once; close()
# must wait for the step before the search's memory goes.
_SECOND_CTRL_C = """
import os, signal, sys, threading, time
from solver import deals, disksearch, search
from solver.rules import STANDARD

gave_up, order = threading.Event(), []

class SecondCtrlC:
    armed = True
    def __getattr__(self, name):
        return getattr(time, name)
    def monotonic(self):
        if SecondCtrlC.armed:
            SecondCtrlC.armed = False
            gave_up.set()
            raise KeyboardInterrupt
        return time.monotonic()

r = disksearch.explore_disk(deals.ms_deal(11982), STANDARD, 8 << 20, work_dir=sys.argv[1])
assert r.status == "done"

d = r.search

def waiting():
    f = sys._current_frames()[threading.main_thread().ident]
    while f.f_back is not None and f.f_back.f_code.co_name != "_interruptible":
        f = f.f_back
    return f.f_code.co_name == "wait"

def step():
    with d._busy:
        while not waiting():
            time.sleep(0.001)
        os.kill(os.getpid(), signal.SIGINT)
        assert gave_up.wait(60)
        time.sleep(0.2)
        e = search.lib.fc_ddd_sort_step(d._d)
        order.append("step")
        return e

d._sort_step = step
search.time = SecondCtrlC()
try:
    for _ in d.sorted_batches(1000):
        pass
except KeyboardInterrupt:
    r.close()
    order.append("closed")
    print("closed", SecondCtrlC.armed, order)
"""


def test_a_second_ctrl_c_while_a_sort_step_stops_waits_for_it_before_its_memory_goes(tmp_path, straight):
    """The search's memory is freed only once the sort step running in its thread has returned (it crashed
    there, SIGSEGV, when freed under it); the folder then goes on to the straight certificate."""
    work = tmp_path / "w"
    p = subprocess.run([sys.executable, "-c", _SECOND_CTRL_C, str(work)], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    assert (p.returncode, p.stdout) == (0, "closed False ['step', 'closed']\n"), (p.returncode, p.stderr)
    assert {"search.state", "sort.state"} <= set(os.listdir(work))
    out = tmp_path / "r.cert"
    p = _certgen(*BUILD, "--work-dir", str(work), "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert _body(out) == straight


def test_a_certificate_made_from_a_work_folder_s_files_is_checked_before_its_verdict(tmp_path, monkeypatch):
    """The files of a work folder are the user's: a sort state forged to say the search had ended (a search
    stopped at 29,235 of #11982's 84,767 positions) had `build` say "unwinnable" and keep a certificate the
    fast checker refuses. A build that went on from a folder's files now has the certificate checked before its
    verdict: refused, it is removed and nothing is claimed (here the fast checker's refusal is stood in for)."""
    import types
    from certgen import fastcheck, prove
    from solver.errors import FreecellError
    from solver.rules import STANDARD
    from solver.source import load
    work = tmp_path / "w"
    _killed_in_the_sort(work, 5)
    said = []
    monkeypatch.setattr(fastcheck, "checked", lambda path, progress=False: said.append(path) or types.SimpleNamespace(
        ok=False, message="invalid for deal 11982: a successor of a member is not in the certificate"))
    out = tmp_path / "r.cert"
    with pytest.raises(FreecellError, match=r"^the certificate made from the files of --work-dir .* is not valid "
                                            r"\(invalid for deal 11982: a successor .*\): they were damaged or "
                                            r"changed, so nothing is claimed"):
        prove.build(load(deal=11982), STANDARD, str(out), memory=65536, on_disk=True, work_dir=str(work))
    assert said == [str(out)] and not out.exists()


def test_a_build_from_a_work_folder_names_the_checker_fccheck_names(tmp_path):
    """The certificate made from a work folder's files is checked by the program FCCHECK names, as `certgen
    check`'s is; the line that says so names it, as `certgen check` does."""
    from certgen import fastcheck
    work, other = tmp_path / "w", tmp_path / "other-fccheck"
    _killed_in_the_sort(work, 5)
    shutil.copy2(fastcheck.BINARY, other)
    out = tmp_path / "r.cert"
    p = subprocess.run([sys.executable, "-m", "certgen", *BUILD, "--work-dir", str(work), "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=600, env={**os.environ, "FCCHECK": str(other)})
    assert p.returncode == 0 and "84,767" in p.stdout, p.stderr
    assert (f"the search went on from the files of {work}: the certificate is checked (by {other}, named by FCCHECK: "
            f"not build/fccheck) before its verdict") in p.stderr.splitlines(), p.stderr
