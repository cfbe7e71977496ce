"""`python -m certgen ARGS` in a process of its own (the surveys' tests: kills, resumes, workers)."""
import subprocess
import sys

from helpers import ROOT


def cli(*args, **kw):
    return subprocess.Popen([sys.executable, "-m", "certgen", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def run_cli(*args, timeout=900):
    p = cli(*args)
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err
