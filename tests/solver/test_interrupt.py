"""Ctrl-C (issue 10, items 11 and 12): a long C search stops within moments of the signal, every command
says one line and exits 130, and survey's workers print nothing and are gone."""
import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from certgen import certificate
from solver.errors import INTERRUPTED, TERMINATED

from helpers import ROOT
from helpers.signals import alive, assert_interrupted, children, ctrl_c


pytestmark = pytest.mark.e2e     # Ctrl-C and SIGTERM sent to real processes

@pytest.mark.parametrize("cmd", [
    ("solver", "explore", "--deal", "5", "--max-states", "20000000"),
    ("certgen", "build", "--deal", "5", "--max-states", "20000000", "--out", "x.cert"),
    ("solver", "analyze", "--deal", "5", "--exposed", "QC", "--max-states", "20000000"),
    # one blocking C call (fc_solve) of minutes: stopped 77 s late before search._interruptible
    ("solver", "solve", "--deal", "13599", "--cells", "1", "--deep"),
], ids=["explore", "build", "analyze", "solve-deep"])
def test_ctrl_c_stops_a_long_search_without_a_progress_bar(tmp_path, cmd):
    assert_interrupted(*ctrl_c(*cmd, cwd=tmp_path))
    assert os.listdir(tmp_path) == []               # no certificate, no temporary file


def test_ctrl_c_stops_survey_with_two_jobs_in_one_line(tmp_path):
    # --strict: the workers spend most of their time in Python, where a Ctrl-C they did not ignore shows
    assert_interrupted(*ctrl_c("solver", "survey", "1-200000", "--jobs", "2", "--strict", "--out", "s.csv",
                               cwd=tmp_path))
    assert os.listdir(tmp_path) == ["s.csv.work"]      # its journal only: the CSV is written at the end
    assert sorted(os.listdir(tmp_path / "s.csv.work")) == ["journal.lock", "journal.sqlite"]


def test_ctrl_c_stops_certgen_survey_with_two_jobs_in_one_line(tmp_path):
    # The workers of certgen's survey must ignore SIGINT too (no "Process ForkProcess-2: ... KeyboardInterrupt").
    assert_interrupted(*ctrl_c("certgen", "survey", "1-200000", "--jobs", "2", "--dir", "d", "--no-progress",
                               cwd=tmp_path))


@pytest.mark.parametrize("sig, line", [("SIGINT", INTERRUPTED), ("SIGTERM", TERMINATED)], ids=["ctrl-c", "sigterm"])
@pytest.mark.parametrize("cmd", [("solver", "explore", "--deal", "1"), ("certgen", "check", "x.cert")],
                         ids=["solver", "certgen"])
def test_ctrl_c_or_sigterm_while_the_modules_are_imported_is_one_line(tmp_path, cmd, sig, line):
    # A Ctrl-C or SIGTERM while `python -m solver`/`certgen` still imports its modules: a real signal, sent by a
    # stand-in for argparse (which solver/cliargs.py imports, and nothing before our code does) put first on the
    # path. Exit 130 and the commands' own line (was: 130 without a word; before that a KeyboardInterrupt
    # traceback; SIGTERM: 143 without a word). The interpreter's start-up before our __main__ runs cannot be
    # covered (solver/__main__.py).
    (tmp_path / "argparse.py").write_text("import os, signal\nopen(os.environ['MARK'], 'w').close()\n"
                                          f"os.kill(os.getpid(), signal.{sig})\nraise SystemExit('not reached')\n")
    mark = tmp_path / "imported"
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    p = subprocess.run([sys.executable, "-m", *cmd], cwd=ROOT, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=path, MARK=str(mark)),
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert mark.exists()                            # the stand-in ran: the signal came during the imports
    assert (p.returncode, p.stdout, p.stderr) == (130, "", line + "\n")


# A command's own work stood in for by a wait (a marker file written first), so that SIGTERM comes while it runs:
# the runner (solver/cliargs.py) takes it as Ctrl-C for every command (`certgen prove` ended with exit 143 and not
# a word, in its search or its reference check).
_WAITING = """
import os, sys, time
from {module} import {name} as m
def wait(*a, **k):
    open(os.environ["MARK"], "w").close()
    time.sleep(60)
    raise SystemExit("not stopped")
m.{attr} = wait
from solver.errors import main_of
main_of("{cli}")
"""


@pytest.mark.parametrize("module, name, attr, cli, args", [
    ("certgen", "prove", "prove", "certgen.cli", ["prove", "--deal", "11982"]),
    ("solver", "search", "explore", "solver.cli", ["explore", "--deal", "11982"]),
    ("certgen", "certificate", "summarize", "certgen.cli", ["info", "x.cert"]),
], ids=["certgen-prove", "solver-explore", "certgen-info"])
def test_sigterm_while_any_command_runs_is_one_line(tmp_path, module, name, attr, cli, args):
    (tmp_path / "x.cert").write_bytes(b"x")
    mark = tmp_path / "running"
    code = _WAITING.format(module=module, name=name, attr=attr, cli=cli)
    p = subprocess.Popen([sys.executable, "-c", code, *args], cwd=tmp_path, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=dict(os.environ, MARK=str(mark),
                                                                     PYTHONPATH=str(ROOT)))
    try:
        deadline = time.monotonic() + 60
        while not mark.exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert mark.exists(), p.communicate()
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert (p.returncode, out, err) == (130, "", TERMINATED + "\n")


# The command's work stood in for by a SIGTERM to itself; a second one comes as the process exits, after its one
# line (`kill` sent twice, or a process group's SIGTERM and its parent's): at exit (atexit, Python's handlers
# still set), or as the interpreter clears its modules (its handlers put back to the default by then).
_SECOND = """class Late:
    def __del__(self, kill=os.kill, pid=os.getpid(), sig=signal.SIGTERM):
        kill(pid, sig)
if os.environ["WHEN"] == "late":
    late = Late()
else:
    atexit.register(lambda: (os.kill(os.getpid(), signal.SIGTERM), time.sleep(0.2)))
"""         # the second SIGTERM, at exit (WHEN=atexit) or late
_TWICE = """
import atexit, os, signal, time
from certgen import certificate
""" + _SECOND + """def first(*a, **k):
    os.kill(os.getpid(), getattr(signal, os.environ.get("FIRST", "SIGTERM")))
    time.sleep(60)
    raise SystemExit("not stopped")
certificate.summarize = first
from solver.errors import main_of
main_of("certgen.cli")
"""


@pytest.mark.parametrize("first, line", [("SIGTERM", TERMINATED), ("SIGINT", INTERRUPTED)])
@pytest.mark.parametrize("when", ["atexit", "late"])
def test_a_second_sigterm_as_the_process_exits_is_ignored(tmp_path, when, first, line):
    """After a SIGTERM or a Ctrl-C (a SIGTERM after a Ctrl-C ended the process by the signal, exit -15, after its
    one line)."""
    (tmp_path / "x.cert").write_bytes(b"x")
    p = subprocess.run([sys.executable, "-c", _TWICE, "info", "x.cert"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(ROOT), WHEN=when, FIRST=first),
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (p.returncode, p.stdout, p.stderr) == (130, "", line + "\n")


def _signals(pid, *fields):
    """The signals the /proc/PID/status masks ``fields`` hold together (SigBlk: blocked; SigPnd, ShdPnd: pending),
    as a bit mask (bit n - 1: signal n); None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return sum(int(line.split()[1], 16) for line in f if line.split(":")[0] in fields)
    except FileNotFoundError:
        return None


TERM = 1 << (signal.SIGTERM - 1)


def _at_work(pid):
    """Whether the pool's worker ``pid`` has set its handlers and let SIGTERM through (solver/workers.py's
    orphan_watch; it starts with SIGINT and SIGTERM held)."""
    blocked = _signals(pid, "SigBlk")
    return blocked is not None and not blocked & TERM


def _termed(pid):
    """Whether the worker ``pid`` is gone or has a SIGTERM pending (stopped, it takes it once it goes on; one
    that came before the SIGSTOP took effect has ended it)."""
    pending = _signals(pid, "SigPnd", "ShdPnd")
    return pending is None or not alive(pid) or bool(pending & TERM)


STREAMED = ("from certgen import sampled; sampled.SAMPLE_MEMORY = 0; "   # the records left on disk: a first pass
            "from solver.errors import main_of; main_of('certgen.cli')")  # by --jobs processes


@pytest.mark.parametrize("mode", ["full", "sample"])
def test_sigterm_stops_a_reference_check_and_its_workers_in_one_line(tmp_path, cert11982, mode):
    # SIGTERM ended `certgen check` at once, exit 143 and not a word. The check's two workers are stopped
    # (SIGSTOP) once at work, so the check is still running when the signal comes; they go on once the check
    # has sent them SIGTERM (its Ctrl-C path ends the pool), which ends them.
    path = tmp_path / "c.cert"
    certificate.write(str(path), cert11982)
    args = ["check", str(path), "--reference", "--jobs", "2", "--no-progress"]
    if mode == "sample":
        command = [sys.executable, "-c", STREAMED, *args, "--sample", "1000", "--seed", "1"]
    else:
        command = [sys.executable, "-m", "certgen", *args]
    p = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    workers = []
    try:
        deadline = time.monotonic() + 120
        while not (len(workers) == 2 and all(map(_at_work, workers))) and time.monotonic() < deadline:
            assert p.poll() is None, p.communicate()
            time.sleep(0.02)
            workers = children(p.pid)
        assert len(workers) == 2 and all(map(_at_work, workers)), workers
        for w in workers:
            os.kill(w, signal.SIGSTOP)
        p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 60
        while p.poll() is None and not all(_termed(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.02)            # until the check has sent its workers SIGTERM, or has ended without a word
        for w in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(w, signal.SIGCONT)
        out, err = p.communicate(timeout=60)
    finally:
        for w in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(w, signal.SIGKILL)
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 130, (p.returncode, out, err)
    said = ["sampled reference check: closure on a sample of 1,000 of 84,767 members, seed 1"] if mode == "sample" \
        else []
    assert err.splitlines() == said + [TERMINATED], err
    assert out == ""
    assert not any(alive(w) for w in workers), "a worker of the check outlived it"


# A first SIGTERM that lands while close() waits for the search's lock (a sort step's thread ending): its
# exception was dropped there, and as the SIGTERMs after a first one are ignored, the command ran on deaf to them.
_CLOSE = """
import os, signal, threading, time
from solver import deals, disksearch
from solver.rules import STANDARD
s = disksearch.DiskSearch(deals.ms_deal(1), STANDARD, 16 << 20)
s._busy.acquire()                                       # a sort step's thread that ends 0.5 s from now
threading.Timer(0.5, s._busy.release).start()
threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGTERM)).start()
try:
    s.close()
    print("closed, not stopped")
except KeyboardInterrupt as e:
    print("stopped:", type(e).__name__, "folder removed:", s.dir is None)
"""


def test_a_sigterm_while_a_disk_search_closes_is_not_lost(tmp_path):
    p = subprocess.run([sys.executable, "-c", _CLOSE], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path)))
    assert (p.returncode, p.stdout, p.stderr) == (0, "stopped: Terminated folder removed: True\n", "")
    assert os.listdir(tmp_path) == []


# `python -m solver` / `python -m certgen` stopped by a SIGTERM while their modules are imported (main_of's one
# line, before the runner), and a second SIGTERM as the process exits: it ended the process by the signal.
_IMPORTED = """
import atexit, os, signal, sys, time
from solver.sigterm import term_as_interrupt
term_as_interrupt()                             # as the __main__ modules do first
""" + _SECOND + """with open("slow_module.py", "w") as f:          # a module whose import the first SIGTERM stops
    f.write("import os, signal, time\\nos.kill(os.getpid(), signal.SIGTERM)\\ntime.sleep(60)\\n")
sys.path.insert(0, ".")
from solver.errors import main_of
from solver.sigterm import ignore_when_taken
main_of("slow_module", ignore_when_taken)       # as the __main__ modules call it
"""


@pytest.mark.parametrize("when", ["atexit", "late"])
def test_a_second_sigterm_after_one_during_the_imports_is_ignored(tmp_path, when):
    p = subprocess.run([sys.executable, "-c", _IMPORTED], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=str(ROOT), WHEN=when))
    assert (p.returncode, p.stdout, p.stderr) == (130, "", TERMINATED + "\n")


# A SIGTERM that lands in code whose exceptions Python drops ("Exception ignored in": a weakref callback such as
# importlib's module locks', a __del__): its Terminated was lost, SIGTERM was taken all the same, and the command
# ran on deaf to the SIGTERMs after it (python -m certgen survey, SIGTERM twice during its imports: 1 run in 60).
_DROPPED = """
import os, signal, time, weakref
from solver.sigterm import term_as_interrupt
term_as_interrupt()
class A:
    pass
a = A()
def callback(ref):
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(1000):
        pass
r = weakref.ref(a, callback)
del a
try:
    time.sleep(5)
    print("not stopped")
except KeyboardInterrupt as e:
    print("stopped:", type(e).__name__)
"""


def test_a_sigterm_in_code_whose_exceptions_python_drops_still_stops():
    p = subprocess.run([sys.executable, "-c", _DROPPED], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert (p.returncode, p.stdout, p.stderr) == (0, "stopped: Terminated\n", "")
