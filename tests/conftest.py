"""What several test files share, as fixtures: running the command lines, the one-line error contract,
deal 11982 in Freecell Solver's board format, and deal 11982's certificate with the reference checker's
verdict on it (each made once a test run: the verdict is a pass of about 17 s); the Python twin of the
Lean modules' certificate-text decoder (decode_state)."""
import fcntl
import io
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from solver import spec

ROOT = Path(__file__).resolve().parent.parent

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


def _run_process(*args, stdin=None, module="solver", timeout=300, env=None):
    """`python -m solver ARGS` (or another module) in a process of its own, in the checkout; text in and
    out."""
    env = dict(os.environ if env is None else env, PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, env=env, timeout=timeout)


def _text_stream(data=b""):
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=None, write_through=True)


def _run(*args, stdin=None, module="solver", timeout=300, env=None):
    """The same in this process when nothing in it is about the process: ``MODULE.cli.main(ARGS)`` with
    standard input, output and error (and the signal handlers, the working folder, sys.argv) its own for
    the call, and the exit status it returns, or that SystemExit gives, as the return code (an exception
    that escapes is a traceback on stderr and status 1, as Python's). Another environment, or a path under
    /dev or /proc (the process's own standard streams), runs in a process of its own."""
    if env is not None or any(str(a).startswith(("/dev/", "/proc/")) for a in args):
        return _run_process(*args, stdin=stdin, module=module, timeout=timeout, env=env)
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


def _run_json(*args):
    p = _run(*args, "--json")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    return json.loads(p.stdout)


def _one_line_error(p, message=None, code=2):
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


@pytest.fixture
def run():
    return _run


@pytest.fixture
def run_json():
    return _run_json


@pytest.fixture
def assert_one_line_error():
    return _one_line_error


@pytest.fixture
def deal11982_board():
    return DEAL11982_BOARD


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


@pytest.fixture(scope="session")
def cert11982():
    """Deal 11982's certificate under the standard rules: 84,767 positions. Shared by the whole run: a test
    makes its mutants from it and never changes it."""
    return build_certificate(11982)


def _once_per_run(tmp_path_factory, name, make):
    """``make()``'s value, computed by one process of the run: with pytest-xdist the workers share the run's
    temporary folder, the first computes under a lock and the others read its pickle."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    path = root / f"{name}.pickle"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            return pickle.loads(path.read_bytes())
        value = make()
        path.write_bytes(pickle.dumps(value))
        return value


@pytest.fixture(scope="session")
def reference11982(cert11982, tmp_path_factory):
    """The reference checker's (certgen/checker.py) verdict on `cert11982`: the default tier's one full
    Python pass over #11982."""
    from certgen import checker
    return _once_per_run(tmp_path_factory, "reference11982", lambda: checker.check(cert11982))


# -- The Lean certificate text decoded in Python (certgen/certtext.py writes it) -----------------------------

def card_of_letter(ch: str) -> spec.Card:
    """The card a letter stands for (FreeCell.cardOfChar)."""
    i = ord(ch) - 65 if ch.isupper() else ord(ch) - 97 + 26
    return spec.Card(i // 4 + 1, i % 4)


def _is_letter(ch: str) -> bool:  # Char.isAlpha: ASCII letters only
    return "A" <= ch <= "Z" or "a" <= ch <= "z"


def _suit_weight(c: spec.Card) -> int:  # FreeCell.suitWeight
    return 64 ** c.suit


def home_of_count(n: int):  # FreeCell.homeOfCount (Nat subtraction stops at 0)
    return tuple(max(13 - d, 0) for d in (n % 64, n // 64 % 64, n // 4096 % 64, n // 262144 % 64))


def decode_state(start: spec.State, line: str) -> spec.State:
    """Python twin of FreeCell.decodeState, step for step (used to test the encoding; Lean decodes
    with its own, untrusted, decoder). `n` counts the cards of each suit read so far, suit k as the
    base-64 digit of weight 64^k."""
    cols, pos, n = [], 0, 0
    for start_col in start.cols:               # decodeCols: one column per start column ...
        if pos >= len(line):                   # ... while the line lasts
            break
        k = max(ord(line[pos]) - 48, 0)        # d.toNat - 48 (Nat subtraction)
        pos += 1
        top = []
        while pos < len(line) and _is_letter(line[pos]):  # takeCards
            top.append(card_of_letter(line[pos]))
            n += _suit_weight(top[-1])
            pos += 1
        bottom = tuple(start_col[max(len(start_col) - k, 0):])  # start.drop (start.length - k)
        n += sum(_suit_weight(c) for c in bottom)
        cols.append(tuple(top) + bottom)
    cells = []
    for ch in line[pos + 1:]:                  # takeCards n (rest.drop 1)
        if not _is_letter(ch):
            break
        cells.append(card_of_letter(ch))
        n += _suit_weight(cells[-1])
    return spec.State(cols=tuple(cols), cells=tuple(cells), home=home_of_count(n))
