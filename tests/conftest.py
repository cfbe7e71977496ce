"""The fixtures several test files share: running the command lines, the one-line error contract, deal 11982
in Freecell Solver's board format, and deal 11982's certificate with the reference checker's verdict on it
(each made once a test run: the verdict is a pass of about 17 s). The plain functions behind them are in
tests/helpers/."""
import fcntl
import os
import pickle

import pytest

from helpers import DEAL11982_BOARD, build_certificate, one_line_error, run, run_json


@pytest.fixture(name="run")
def run_fixture():
    return run


@pytest.fixture(name="run_json")
def run_json_fixture():
    return run_json


@pytest.fixture
def assert_one_line_error():
    return one_line_error


@pytest.fixture
def deal11982_board():
    return DEAL11982_BOARD


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


@pytest.fixture(scope="session")
def coq_library():
    """``coq_library(out_dir)``: ``out_dir`` as a string. certgen/coqcheck.py's build_library compiles Coq's
    library once a process, in a folder of its own, and copies it into each output folder it checks in."""
    return str
