"""What several test files share: running the command lines, and the one-line error contract."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Deal 11982 in Freecell Solver's board format (one line per column, bottom card first), as seed 000
# lays it out.
DEAL11982_BOARD = """\
AH 3D KD JC 6C JD KC
AS 3H 6H 5D 2C 7D 8D
4H QS 5S 5C TH 8H 2S
AC QC 4D 8C QH 9C 3S
2D 8S 9H 9D 6D 2H
6S 7H JH TD TC QD
TS AD 9S KH 4S 4C
JS KS 3C 7C 7S 5H
"""


def run(*args, stdin=None, module="solver", timeout=300):
    """`python -m solver ARGS` (or another module) in the checkout; text in and out."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, env=env, timeout=timeout)


def run_json(*args):
    p = run(*args, "--json")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    return json.loads(p.stdout)


def assert_one_line_error(p, message=None, code=2):
    """Bad input: exit `code`, exactly one line `error: …` on stderr, no traceback, nothing on stdout.
    Returns the line."""
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("error: ")
    if message is not None:
        assert lines[0] == "error: " + message
    assert p.stdout == ""
    return lines[0]
