"""solver/workers.py: a pool worker whose parent was killed with SIGKILL exits within seconds, even in the
middle of a long task (`survey --difficulty --jobs 2` left its workers running
for minutes). Both surveys' pools start their workers with it."""
import os
import signal
import subprocess
import sys
import time

import pytest

from helpers import ROOT
from helpers.signals import alive, children

PARENT = r"""
import multiprocessing as mp, os, sys, time
from solver.workers import orphan_watch

def task(_):
    print(os.getpid(), flush=True)
    time.sleep(120)           # a long search

if __name__ == "__main__":
    pool = mp.get_context("fork").Pool(1, initializer=orphan_watch, initargs=(os.getpid(),))
    pool.map_async(task, [0])
    time.sleep(120)
"""


@pytest.mark.e2e
def test_a_worker_outlives_its_killed_parent_by_seconds_only(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    worker = int(p.stdout.readline())
    assert alive(worker)
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.monotonic() + 10
    while alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    gone = not alive(worker)
    if not gone:
        os.kill(worker, signal.SIGKILL)
    assert gone, "the worker kept running after its parent was killed"


def test_every_pool_starts_its_workers_with_it():
    for path, started in (("solver/difficulty.py", "start_pool(jobs, orphan_watch, (os.getpid(), tmp))"),
                          ("certgen/checker.py", "start_pool(jobs, orphan_watch, (os.getpid(),))"),
                          ("certgen/survey.py", "start_pool(jobs, orphan_watch, (os.getpid(),))"),
                          ("solver/survey.py", "start_pool(jobs, _worker_init, (os.getpid(), settings))")):
        assert started in (ROOT / path).read_text(), path
    assert "    orphan_watch(parent)\n" in (ROOT / "solver/survey.py").read_text()


def _start_sleepers():
    from solver.workers import start_pool
    start_pool(2, time.sleep, (60,))        # workers that would wait a minute (orphan_watch would end them)


def _certgen_local():
    from certgen.survey import _local
    list(_local(range(5), 2, abs))          # certgen survey's and certify-list's pool


# Python's pool forks its workers, then starts its threads: when no thread can start (no memory), it raised
# RuntimeError and left the forked workers waiting on their queue for ever; certgen survey's own
# ProcessPoolExecutor raised RuntimeError from its first submit
@pytest.mark.parametrize("start", [_start_sleepers, _certgen_local])
def test_a_pool_the_system_cannot_start_is_one_line_and_leaves_no_worker(monkeypatch, start):
    import multiprocessing as mp
    import threading
    from solver.errors import FreecellError

    def no_thread(self):
        raise RuntimeError("can't start new thread")
    monkeypatch.setattr(threading.Thread, "start", no_thread)
    before = {p.pid for p in mp.active_children()}
    with pytest.raises(FreecellError, match=r"^cannot start 2 worker processes \(can't start new thread\): "):
        start()
    assert {p.pid for p in mp.active_children()} - before == set()


def _slow_square(x):
    time.sleep(0.01 * (x % 3))
    return x * x


def test_pool_windowed_reads_its_tasks_as_it_goes_and_gives_every_result():
    from solver.workers import end_pool, orphan_watch, pool_windowed, start_pool
    drawn = []

    def tasks():
        for x in range(200):
            drawn.append(x)
            yield x
    pool = start_pool(2, orphan_watch, (os.getpid(),))
    try:
        got, ahead = [], 0
        for r in pool_windowed(pool, _slow_square, tasks(), 4):
            got.append(r)
            ahead = max(ahead, len(drawn) - len(got))
    finally:
        end_pool(pool)
    assert sorted(got) == [x * x for x in range(200)]
    assert ahead <= 4       # never more than the window read ahead of the results given


def _killed(_x):
    os.kill(os.getpid(), signal.SIGKILL)        # the out-of-memory killer's way


def _termed(_x):
    os.kill(os.getpid(), signal.SIGTERM)        # a SIGTERM sent to the worker alone


def _exited(_x):
    os._exit(3)


AFTER = "so the result it was computing is lost and nothing is claimed for it"


@pytest.mark.parametrize("reads", ["windowed", "results"])
@pytest.mark.parametrize("end, how", [
    (_killed, "killed by SIGKILL, as the system's out-of-memory killer and kill -9 do"),
    (_termed, "ended by SIGTERM"),      # was said as the out-of-memory killer's, or kill -9's, too
    (_exited, "it exited with status 3"),
], ids=["SIGKILL", "SIGTERM", "exit"])
def test_a_lost_worker_is_said_with_what_ended_it(end, how, reads):
    from solver.errors import WorkerLost
    from solver.workers import end_pool, orphan_watch, pool_results, pool_windowed, start_pool
    pool = start_pool(2, orphan_watch, (os.getpid(),))
    t0 = time.monotonic()
    try:
        with pytest.raises(WorkerLost) as e:
            if reads == "windowed":
                list(pool_windowed(pool, end, [1, 2, 3], 2, poll=0.2))
            else:
                list(pool_results(pool, pool.imap(end, [1, 2, 3]), poll=0.2))
    finally:
        end_pool(pool, lost=True)
    assert str(e.value) == f"a worker process ended abruptly ({how}), {AFTER}"
    assert time.monotonic() - t0 < 10


def test_a_lost_worker_of_no_known_end_is_said_so():
    from solver.workers import lost
    assert lost(None) == f"a worker process ended abruptly (what ended it is not known), {AFTER}"
    n = signal.SIGRTMIN + 2             # a real-time signal: Python names only the first and the last
    assert lost(-n) == f"a worker process ended abruptly (ended by signal {n}), {AFTER}"


SURVEYS = [
    ["solver", "survey", "1-20000", "--jobs", "2", "--json"],
    ["solver", "survey", "1-20000", "--difficulty", "--jobs", "2", "--out", "{tmp}/d.csv"],
    ["certgen", "survey", "1-20000", "--jobs", "2", "--dir", "{tmp}/s"],
]


def started(tmp_path, command):
    """A survey of two processes, at work: (its Popen, its arguments, its workers' pids)."""
    args = [a.format(tmp=tmp_path) for a in command]
    p = subprocess.Popen([sys.executable, "-m"] + args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    deadline = time.monotonic() + 60
    while len(children(p.pid)) < 2 and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.2)
    time.sleep(1.0)                      # the workers are at work
    workers = children(p.pid)
    assert workers, "the survey started no worker"
    return p, args, workers


@pytest.mark.e2e
@pytest.mark.parametrize("command", SURVEYS)
def test_sigterm_to_a_survey_stops_its_workers_in_one_line(tmp_path, command):
    # SIGTERM to the parent ended it silently (exit -15) and its workers
    # printed BrokenPipeError tracebacks; now it is the Ctrl-C path, said as SIGTERM
    p, _args, workers = started(tmp_path, command)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, (p.returncode, err[-2000:])
    assert err.strip().splitlines()[-1] == "stopped (SIGTERM) before an answer, nothing is claimed", err[-2000:]
    assert "Traceback" not in err, err[-3000:]
    deadline = time.monotonic() + 10
    while any(alive(c) for c in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(c) for c in workers), "a worker outlived the survey"


@pytest.mark.e2e
@pytest.mark.parametrize("command", SURVEYS)
def test_a_worker_killed_mid_survey_ends_the_survey_in_one_line(tmp_path, command):
    # a multiprocessing pool whose worker is SIGKILLed (the out-of-memory killer did it to a tier 4
    # search) waits for the lost task for ever; the surveys say so in one line instead
    p, args, victims = started(tmp_path, command)
    os.kill(victims[0], signal.SIGKILL)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        for c in children(p.pid):
            os.kill(c, signal.SIGKILL)
        raise AssertionError("the survey still waits for the killed worker's result")
    assert p.returncode == 1, (p.returncode, err[-2000:])
    lines = err.strip().splitlines()
    assert lines[-1].startswith("error: ") and "worker process ended abruptly" in lines[-1], err[-2000:]
    assert "Traceback" not in err
    if "--difficulty" in args:
        assert "every deal finished is in" in lines[-1] and "the same command goes on from there" in lines[-1]
    deadline = time.monotonic() + 10
    while any(alive(c) for c in victims[1:]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(c) for c in victims[1:]), "a worker outlived the survey"


FORKED = r"""
import os, signal, sys, time
from solver.sigterm import term_as_interrupt
from solver.errors import Terminated

term_as_interrupt()
r, w = os.pipe()
pid = os.fork()
if pid == 0:                  # a pool's worker before its initializer: it still has the parent's handler
    os.write(w, b"x")
    try:
        time.sleep(30)
    except Terminated:
        print("the child took SIGTERM as Ctrl-C", flush=True)
    os._exit(3)
os.read(r, 1)
os.kill(pid, signal.SIGTERM)
_, status = os.waitpid(pid, 0)
print(os.WIFSIGNALED(status) and os.WTERMSIG(status), flush=True)
try:
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)
except Terminated:
    print("the parent took SIGTERM as Ctrl-C", flush=True)
"""


def run_script(script, text):
    """The program ``text`` written to ``script`` and run to its end (a minute at most), the checkout first on
    its path."""
    script.write_text(text)
    return subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.e2e
def test_sigterm_in_a_child_forked_under_term_as_interrupt_is_death(tmp_path):
    # CI of 09e03a3: `survey 11982 --jobs 2` hung in pool.terminate() about once in ten runs: a worker
    # SIGTERMed before its initializer ran raised Terminated there, multiprocessing swallowed it ("Exception
    # ignored in _after_fork") and the worker waited for tasks for ever while the parent joined it
    p = run_script(tmp_path / "forked.py", FORKED)
    assert p.stdout.splitlines() == [str(int(signal.SIGTERM)), "the parent took SIGTERM as Ctrl-C"], \
        (p.stdout, p.stderr)


HELD = r"""
import os, signal, sys, time
from solver.sigterm import term_as_interrupt
from solver.workers import orphan_watch, signals_held

term_as_interrupt()
r, w = os.pipe()
with signals_held():
    pid = os.fork()
    if pid == 0:              # a pool's worker in its first instants, SIGTERM already sent
        time.sleep(0.5)
        os.write(w, b"alive")
        orphan_watch(os.getppid())      # its handlers set, the signals let through: the SIGTERM ends it here
        time.sleep(5)
        os._exit(3)
os.kill(pid, signal.SIGTERM)
print(os.read(r, 5).decode(), flush=True)
_, status = os.waitpid(pid, 0)
print(os.WIFSIGNALED(status) and os.WTERMSIG(status), flush=True)
"""


@pytest.mark.e2e
def test_a_worker_started_under_signals_held_takes_sigterm_once_its_handlers_are_set(tmp_path):
    p = run_script(tmp_path / "held.py", HELD)
    assert p.stdout.splitlines() == ["alive", str(int(signal.SIGTERM))], (p.stdout, p.stderr)


@pytest.mark.e2e
@pytest.mark.parametrize("command", SURVEYS)
def test_sigkill_to_a_survey_leaves_no_traceback_and_no_worker(tmp_path, command):
    # `kill -9` of the parent, and a worker finishing its task wrote its result
    # into the dead parent's pipe: two BrokenPipeError tracebacks on stderr (`solver survey`'s workers had no
    # orphan_watch at all: they finished their chunk first)
    p, _args, workers = started(tmp_path, command)
    p.kill()
    try:
        _out, err = p.communicate(timeout=60)    # the workers hold its stderr too: read until they are gone
    except subprocess.TimeoutExpired:
        for c in workers:
            if alive(c):
                os.kill(c, signal.SIGKILL)
        raise AssertionError("a worker still holds the killed survey's stderr after 60 s")
    assert p.returncode == -signal.SIGKILL
    assert "Traceback" not in err and "BrokenPipeError" not in err, err[-3000:]
    deadline = time.monotonic() + 10
    while any(alive(c) for c in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [c for c in workers if alive(c)]
    for c in left:
        os.kill(c, signal.SIGKILL)
    assert not left, "a worker outlived its killed parent"


IDLE_KILLED = r"""
import multiprocessing as mp, os, signal, sys, time
from solver.errors import WorkerLost
from solver.workers import end_pool, orphan_watch, pool_results, signals_held

def task(path):
    open(path, "w").write(str(os.getpid()))
    time.sleep(20)            # a long search: the other worker waits for its next task, inside the queue's lock
    return 1

if __name__ == "__main__":
    path = sys.argv[1]
    with signals_held():
        pool = mp.get_context("fork").Pool(2, initializer=orphan_watch, initargs=(os.getpid(),))
    results = pool.imap_unordered(task, [path])
    while not os.path.exists(path) or not open(path).read():
        time.sleep(0.05)
    time.sleep(0.5)
    busy = int(open(path).read())
    idle = [p.pid for p in pool._pool if p.pid != busy][0]
    os.kill(idle, signal.SIGKILL)
    t = time.monotonic()
    lost = False
    try:
        list(pool_results(pool, results, poll=0.5))
    except WorkerLost:
        lost = True
    finally:
        end_pool(pool, lost)
    print("lost" if lost else "not lost", "ended", flush=True)
"""


def test_an_idle_worker_killed_ends_the_pool_in_seconds(tmp_path):
    # `survey --difficulty --jobs 2` waited for ever after `kill -9` of a worker
    # waiting for its next task (it died holding the task queue's lock, which pool.terminate() acquires)
    script = tmp_path / "idle.py"
    script.write_text(IDLE_KILLED)
    t = time.monotonic()
    p = subprocess.run([sys.executable, str(script), str(tmp_path / "busy")], cwd=ROOT, capture_output=True,
                       text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.stdout.split() == ["lost", "ended"], (p.stdout, p.stderr[-2000:])
    assert time.monotonic() - t < 15, "the pool was not stopped before its busy worker's task ended"


DISK_KILLED = r"""
import sys
from solver.difficulty import Tier, survey
from solver.errors import WorkerLost

tiers = (Tier(1, 1), Tier(2, 50_000_000, 1 << 20))     # tier 2: each deal's 4-cell set on disk, a 1 MB buffer
journal = sys.argv[1] or None
try:
    survey(1, 2, jobs=2, tiers=tiers, journal=journal, budget=1 << 30)
except WorkerLost:
    print("lost", flush=True)
"""


def _below(folder, pattern):
    return sorted(folder.glob(pattern)) + sorted(folder.glob("*/" + pattern))


@pytest.mark.e2e
@pytest.mark.parametrize("work", [False, True], ids=["temporary", "work-folders"])
def test_a_worker_killed_mid_disk_search_leaves_no_temporary_folder(tmp_path, work):
    # solver.workers.end_pool SIGKILLs the pool's workers after a lost one: a disk search without a work folder
    # (survey --difficulty's tier 5 without --out) left its freecell-disk-* folder in the temporary folder. Now
    # the workers' temporary folders are in one the parent removes (pool_folder); work folders are kept.
    script, tmp = tmp_path / "disk.py", tmp_path / "tmp"
    script.write_text(DISK_KILLED)
    tmp.mkdir()
    journal = str(tmp_path / "d.csv") if work else ""
    p = subprocess.Popen([sys.executable, str(script), journal], cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)})
    try:
        deadline = time.monotonic() + 60        # both workers in a disk search (at work: its first layers)
        seen = (lambda: _below(tmp_path / "d.csv.work", "search.state")) if work else \
            (lambda: _below(tmp, "freecell-disk-*/*"))
        while len({f.parent for f in seen()}) < 2 and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.1)
        assert len({f.parent for f in seen()}) == 2, p.communicate()
        os.kill(children(p.pid)[0], signal.SIGKILL)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert out == "lost\n", (out, err[-2000:])
    assert list(tmp.iterdir()) == []            # no freecell-disk-*, no freecell-pool-*
    if work:                                    # the resumable folders stay, with their checkpoints
        assert sorted(f.parent.name for f in seen()) == ["1-4", "2-4"]


@pytest.mark.e2e
def test_end_pool_returns_when_dead_workers_held_the_task_queues_lock():
    """A SIGTERM to `survey --difficulty --jobs 2` hung it for good 1 run in 8: the
    pool's terminate() first takes the task queue's lock, which an idle worker holds while it waits for a task,
    and the worker was dead. Both idle workers killed here (so the lock's holder is dead): end_pool must still
    return, in a few seconds, on the plain path (not only after a WorkerLost)."""
    import multiprocessing as mp
    import threading
    import time
    from solver import workers
    pool = mp.get_context("fork").Pool(2)
    assert pool.apply(os.getpid) > 0                     # started, then idle: one of them holds the lock
    time.sleep(0.5)
    for p in list(pool._pool):
        p.kill()
        p.join(5)
    t = threading.Thread(target=workers.end_pool, args=(pool,), daemon=True)
    t0 = time.monotonic()
    t.start()
    t.join(30)
    assert not t.is_alive(), "end_pool hung on the dead workers' lock"
    assert time.monotonic() - t0 < 30


def test_a_pool_whose_threads_cannot_all_start_forks_no_replacement_workers(monkeypatch):
    # its worker thread started, its task thread could not (no memory): the workers start_pool killed were
    # replaced by that thread at once, and the new ones waited through the whole run (a check made in one
    # process under `ulimit -v 90000` had two idle workers beside it)
    import multiprocessing as mp
    import multiprocessing.pool
    import threading
    from solver.errors import FreecellError
    from solver.workers import start_pool

    real = threading.Thread.start

    def no_task_thread(self):
        if getattr(self, "_target", None) is mp.pool.Pool._handle_tasks:
            raise RuntimeError("can't start new thread")
        return real(self)
    monkeypatch.setattr(threading.Thread, "start", no_task_thread)
    before = {p.pid for p in mp.active_children()}
    try:
        with pytest.raises(FreecellError, match=r"^cannot start 2 worker processes \(can't start new thread\)"):
            start_pool(2, time.sleep, (60,))
        time.sleep(1.5)
        assert {p.pid for p in mp.active_children()} - before == set()
    finally:
        for p in mp.active_children():
            if p.pid not in before:
                p.kill()


LATE_TERM = r"""
import os, signal, sys, time
from solver.errors import Terminated
from solver.sigterm import term_as_interrupt
from solver.workers import end_pool, orphan_watch, pool_windowed, start_pool

def init(parent):
    orphan_watch(parent)
    def on_term(*_):                    # the pool's end reaches the worker: the parent gets a SIGTERM then
        os.kill(parent, signal.SIGTERM)
        time.sleep(0.5)
        os._exit(0)
    signal.signal(signal.SIGTERM, on_term)

if __name__ == "__main__":
    term_as_interrupt()
    pool = start_pool(2, init, (os.getpid(),))
    print(sorted(pool_windowed(pool, abs, [-1, -2, 3], 4)), flush=True)
    busy = [pool.apply_async(time.sleep, (20,)) for _ in range(2)]
    time.sleep(1)
    try:
        end_pool(pool)
    except Terminated:
        print("finalizer active:", pool._terminate.still_active(), "workers running:",
              sum(p.exitcode is None for p in pool._pool), flush=True)
        raise
"""


def test_a_sigterm_while_the_pool_ends_is_taken_once_it_has_ended(tmp_path):
    # a SIGTERM to the survey while end_pool stopped the workers (its last chunk done, or a Ctrl-C mid-chunk)
    # was raised out of end_pool before it cancelled the pool's own terminate: that ran at exit and could wait
    # for ever for the task queue's lock, held by a worker it had killed (a survey hung after its last line)
    script = tmp_path / "late.py"
    script.write_text(LATE_TERM)
    p = subprocess.Popen([sys.executable, str(script)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env={**os.environ, "PYTHONPATH": ROOT}, start_new_session=True)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail("the process never ended")
    assert out.splitlines() == ["[1, 2, 3]", "finalizer active: False workers running: 0"], (out, err)
    assert p.returncode != 0 and "Terminated" in err, (p.returncode, err)
    assert subprocess.run(["pgrep", "-g", str(p.pid)], capture_output=True, text=True).stdout.split() == []


EARLY_TERM = r"""
import multiprocessing as mp, multiprocessing.pool, os, signal
from solver.errors import Terminated
from solver.sigterm import term_as_interrupt
from solver.workers import orphan_watch, start_pool

init = mp.pool.Pool.__init__

def started(self, *args, **kwargs):     # a SIGTERM while the pool starts: held until its workers are forked
    init(self, *args, **kwargs)
    os.kill(os.getpid(), signal.SIGTERM)
mp.pool.Pool.__init__ = started

if __name__ == "__main__":
    term_as_interrupt()
    try:
        start_pool(2, orphan_watch, (os.getpid(),))
    except Terminated:
        print("workers left:", len(mp.active_children()), flush=True)
        raise
"""


def test_a_sigterm_while_the_pool_starts_leaves_no_worker(tmp_path):
    script = tmp_path / "early.py"
    script.write_text(EARLY_TERM)
    p = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=30,
                       env={**os.environ, "PYTHONPATH": ROOT})
    assert p.stdout.splitlines() == ["workers left: 0"] and p.returncode != 0 and "Terminated" in p.stderr, \
        (p.stdout, p.stderr)


def test_end_pool_ends_stopped_workers_with_its_sigterm_not_after_the_grace():
    """Workers stopped (kill -STOP, a job stopped in its shell) then a SIGTERM to the check: the SIGTERM that
    end_pool sends a stopped worker waits for it to go on, so each gets SIGCONT too and ends at once, of the
    SIGTERM, instead of being killed once the grace is over."""
    import multiprocessing as mp
    import signal
    import time
    from solver import workers
    pool = workers.start_pool(2, workers.orphan_watch, (os.getpid(),))
    assert pool.apply(os.getpid) > 0
    procs = list(pool._pool)
    for p in procs:
        os.kill(p.pid, signal.SIGSTOP)
    t0 = time.monotonic()
    workers.end_pool(pool, grace=5)
    assert time.monotonic() - t0 < 2.5
    assert [p.exitcode for p in procs] == [-signal.SIGTERM] * 2
    assert not any(p.pid in {c.pid for c in mp.active_children()} for p in procs)


def _runs_a_child(path):
    """A worker's task that runs a program for a minute (as certify-list's worker runs the fast checker), its pid
    written to ``path`` first."""
    import subprocess
    with subprocess.Popen(["sleep", "60"]) as p:
        with open(path, "w") as f:
            f.write(str(p.pid))
        p.wait()


@pytest.mark.parametrize("lost", [False, True], ids=["stopped", "after a lost worker"])
def test_ending_a_pool_ends_the_programs_its_workers_run(tmp_path, lost):
    """A worker ended by SIGTERM (or SIGKILL) left the program it was running (the fast checker, minutes on a disk
    row's certificate, gigabytes) to run on after the survey had stopped: end_pool ends them too."""
    from solver.workers import end_pool, orphan_watch, start_pool
    path = str(tmp_path / "pid")
    pool = start_pool(1, orphan_watch, (os.getpid(),))
    try:
        pool.apply_async(_runs_a_child, (path,))
        deadline = time.monotonic() + 30
        while not os.path.exists(path) or not open(path).read():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        child = int(open(path).read())
    finally:
        end_pool(pool, lost=lost)
    deadline = time.monotonic() + 5
    while alive(child):
        if time.monotonic() > deadline:
            os.kill(child, signal.SIGKILL)
            raise AssertionError("the worker's program still runs after the pool ended")
        time.sleep(0.05)
