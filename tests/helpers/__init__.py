"""What several test files share: the checkout's root, running the command lines (in this process or in
one of its own), the one-line error contract, deal 11982 in Freecell Solver's board format, a journal's
record count and a small certificate built as `certgen build` builds it. On the path through pyproject's
``[tool.pytest.ini_options] pythonpath``; a test module imports from here (or tests/helpers/*.py), never
from another test module."""
import io
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

# No test downloads a Lean toolchain: without lake, the prove pipeline says Lean is not available at once
# (a test of the bootstrap itself sets its own environment).
os.environ.setdefault("LEAN_BOOTSTRAP", "0")

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


def run_process(*args, stdin=None, module="solver", timeout=300, env=None):
    """`python -m solver ARGS` (or another module) in a process of its own, in the checkout; text in and
    out."""
    env = dict(os.environ if env is None else env, PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, env=env, timeout=timeout)


def _text_stream(data=b""):
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=None, write_through=True)


def run(*args, stdin=None, module="solver", timeout=300, env=None):
    """The same in this process when nothing in it is about the process: ``MODULE.cli.main(ARGS)`` with
    standard input, output and error (and the signal handlers, the working folder, sys.argv) its own for
    the call, and the exit status it returns, or that SystemExit gives, as the return code (an exception
    that escapes is a traceback on stderr and status 1, as Python's). Another environment, or a path under
    /dev or /proc (the process's own standard streams), runs in a process of its own."""
    if env is not None or any(str(a).startswith(("/dev/", "/proc/")) for a in args):
        return run_process(*args, stdin=stdin, module=module, timeout=timeout, env=env)
    import importlib
    import signal
    import traceback
    from solver import atomic
    main = importlib.import_module(f"{module}.cli").main
    saved = (sys.stdin, sys.stdout, sys.stderr, sys.argv, os.getcwd(), atomic._DATA_OUT,
             {n: signal.getsignal(n) for n in (signal.SIGINT, signal.SIGTERM)})
    sys.stdin = _text_stream((stdin or "").encode("utf-8"))
    sys.stdout, sys.stderr = out, err = _text_stream(), _text_stream()
    sys.argv = [f"{module}", *args]
    atomic._DATA_OUT = None
    os.chdir(ROOT)
    try:
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) or exc.code is None else (print(exc.code, file=err) or 1)
        except Exception:
            traceback.print_exc(file=err)
            code = 1
        for stream in (out, err):
            stream.flush()
        text = [s.buffer.getvalue().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n") for s in (out, err)]
        return subprocess.CompletedProcess([module, *args], code or 0, *text)   # read as text=True reads
    finally:
        sys.stdin, sys.stdout, sys.stderr, sys.argv, cwd, atomic._DATA_OUT, handlers = saved
        os.chdir(cwd)
        for n, h in handlers.items():
            signal.signal(n, h)


def run_json(*args):
    p = run(*args, "--json")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    return json.loads(p.stdout)


def one_line_error(p, message=None, code=2):
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


def loaded_after(argv, modules, module="solver"):
    """Which of `modules` a fresh process has imported after `module`'s CLI ran `argv` (exit 0)."""
    code = ("import sys, io, contextlib\n"
            f"from {module}.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main({argv!r}) == 0\n"
            f"print(' '.join(m for m in {modules!r} if m in sys.modules))\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def journal_records(folder, table=None):
    """How many records (of ``table``, or of every table) the journal in ``folder`` holds: 0 before it or its
    tables exist (a run started in another process may not have made them yet)."""
    import sqlite3
    path = os.path.join(folder, "journal.sqlite")
    if not os.path.exists(path):
        return 0
    con = sqlite3.connect(path, timeout=30)
    try:
        if table is None:
            return con.execute("SELECT count(*) FROM records").fetchone()[0]
        return con.execute("SELECT count(*) FROM records WHERE tbl = ?", (table,)).fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def build_certificate(deal, cells=4, foundation_return=False):
    """Deal `deal`'s whole reachable set under the rules (unwinnable, so complete), as a certificate built
    as `certgen build` builds it."""
    from certgen import certificate
    from solver import deals, search
    from solver.rules import Rules
    pos = deals.ms_deal(deal)
    rules = {"cells": cells, "foundation_return": foundation_return}
    res = search.explore(pos, Rules(**rules))
    assert res.complete and not res.won
    return certificate.make({"kind": "ms", "deal": deal}, rules, pos, res.records(), {"max_home": res.max_home})


def run_in(cwd, *args, module="certgen"):
    """`python -m MODULE ARGS` in a process of its own in the folder ``cwd`` (relative paths are the test's)."""
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8"), timeout=300)
