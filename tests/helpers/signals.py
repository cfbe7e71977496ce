"""Ctrl-C and SIGTERM sent to a real process group, and the one-line stop it must give."""
import os
import signal
import subprocess
import sys
import time

import pytest

from solver.errors import INTERRUPTED

from helpers import ROOT

WAIT = 3.0          # seconds before the signal: well inside each search (they run 20 s or more)
def ctrl_c(module, *args, cwd=ROOT, sig=signal.SIGINT):
    """Start `python -m module args` in its own process group, send SIGINT to the whole group (as a
    terminal's Ctrl-C does; or ``sig``) after WAIT seconds; return (process, stdout, stderr, seconds after
    the signal)."""
    p = subprocess.Popen([sys.executable, "-m", module, *args], cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True,
                         # a shell's background job inherits SIGINT ignored; a terminal's does not
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(WAIT)
    assert p.poll() is None, p.communicate()
    t = time.monotonic()
    os.killpg(p.pid, sig)
    try:
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    return p, out, err, time.monotonic() - t


def assert_interrupted(p, out, err, seconds, line=INTERRUPTED):
    """Stopped in one line (``line``: INTERRUPTED for Ctrl-C, TERMINATED for a SIGTERM a disk search turned
    into the same path), exit 130, within moments, with nothing left running."""
    assert p.returncode == 130, (p.returncode, out, err)
    assert err == line + "\n", err                 # one line, no traceback (a worker's or the parent's)
    assert out == ""
    assert seconds < 5, seconds                     # the search saw the signal (it would run 20 s more)
    with pytest.raises(ProcessLookupError):         # nothing of the process group is left running
        os.killpg(p.pid, 0)


def alive(pid):
    """Whether process ``pid`` runs (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:        # a zombie waiting for init counts as gone
        return f.read().split(") ")[1][0] != "Z"


def children(pid):
    """The pids of the processes ``pid`` started (Linux's /proc; none once it is gone)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except FileNotFoundError:
        return []
