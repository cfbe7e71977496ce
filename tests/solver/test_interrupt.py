"""Ctrl-C (issue 10, items 11 and 12): a long C search stops within moments of the signal, every command
says one line and exits 130, and survey's workers print nothing and are gone."""
import os
import signal
import subprocess
import sys

import pytest

from solver.errors import INTERRUPTED

from helpers import ROOT
from helpers.signals import assert_interrupted, ctrl_c


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


@pytest.mark.parametrize("cmd", [("solver", "explore", "--deal", "1"), ("certgen", "check", "x.cert")],
                         ids=["solver", "certgen"])
def test_ctrl_c_while_the_modules_are_imported_is_one_line(tmp_path, cmd):
    # A Ctrl-C while `python -m solver`/`certgen` still imports its modules: a real SIGINT, sent by a stand-in
    # for argparse (which solver/cliargs.py imports, and nothing before our code does) put first on the path.
    # Exit 130 and the commands' own line (was: 130 without a word; before that a KeyboardInterrupt
    # traceback). The interpreter's start-up before our __main__ runs cannot be covered (solver/__main__.py).
    (tmp_path / "argparse.py").write_text("import os, signal\nopen(os.environ['MARK'], 'w').close()\n"
                                          "os.kill(os.getpid(), signal.SIGINT)\nraise SystemExit('not reached')\n")
    mark = tmp_path / "imported"
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    p = subprocess.run([sys.executable, "-m", *cmd], cwd=ROOT, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=path, MARK=str(mark)),
                       preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert mark.exists()                            # the stand-in ran: the signal came during the imports
    assert (p.returncode, p.stdout, p.stderr) == (130, "", INTERRUPTED + "\n")
