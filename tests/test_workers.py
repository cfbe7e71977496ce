"""solver/workers.py: a pool worker whose parent was killed with SIGKILL exits within seconds, even in the
middle of a long task (hostile pass, session 3: `survey --difficulty --jobs 2` left its workers running
for minutes). Both surveys' pools start their workers with it."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

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


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:        # a zombie waiting for init counts as gone
        return f.read().split(") ")[1][0] != "Z"


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


def test_both_surveys_start_their_workers_with_it():
    for path in ("solver/difficulty.py", "certgen/survey.py"):
        text = (ROOT / path).read_text()
        assert "initializer=orphan_watch, initargs=(os.getpid(),)" in text, path
