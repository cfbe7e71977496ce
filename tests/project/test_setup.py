"""`make setup` (issue 10, items 14, 15 and 17): one line per step, a clear line for what is missing, and
no stamp after a failure. Each test uses its own VENV in a temporary folder and stops before pip runs."""
import os
import shutil
import subprocess
import sys

import pytest

from helpers import ROOT

sys.path.insert(0, os.path.join(str(ROOT), "scripts"))
import check_setup  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make: the Makefile is not run")


def make_setup(tmp_path, *assignments, env=None):
    venv = tmp_path / "venv"
    p = subprocess.run(["make", "--no-print-directory", "setup", f"VENV={venv}", *assignments], cwd=ROOT,
                       capture_output=True, text=True, env=env or dict(os.environ), timeout=120)
    return p, venv


def error_lines(p):
    return [line for line in p.stderr.splitlines() if line.startswith("error: ")]


def test_a_missing_c_compiler_says_install_one(tmp_path):
    p, venv = make_setup(tmp_path, "CC=/nonexistent/cc")
    assert p.returncode != 0
    assert error_lines(p) == ["error: no C compiler (/nonexistent/cc is not found): install a C compiler "
                              "(e.g. apt-get install gcc)"]
    assert "Traceback" not in p.stderr and "PEP 660" not in p.stderr
    assert not venv.exists()                            # stopped before the venv was made


def test_a_python_too_old_is_one_line(tmp_path):
    old = shutil.which("python3.8") or "/root/.pyenv/versions/3.8.18/bin/python3"
    if not os.access(old, os.X_OK):
        pytest.skip("no Python 3.8 here to try")
    p, venv = make_setup(tmp_path, f"PYTHON={old}")
    assert p.returncode != 0
    [line] = error_lines(p)
    assert line.startswith("error: Python 3.9 or newer is needed") and "3.8" in line
    assert not venv.exists()


def test_a_failed_setup_leaves_no_stamp(tmp_path):
    # A venv whose Python cannot run pip, and a stamp from an earlier setup: the failure must remove it,
    # or the next `make` would take the broken venv for a good one.
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    broken = venv / "bin" / "python"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    stamp = venv / ".setup-stamp"
    stamp.touch()
    os.utime(stamp, (0, 0))                             # older than the sources: setup runs again
    p, _ = make_setup(tmp_path)
    assert p.returncode != 0
    assert not stamp.exists()


def test_setup_upgrades_pip_and_setuptools_before_installing_and_checks_after():
    p = subprocess.run(["make", "-n", "--no-print-directory", "setup", "VENV=/nonexistent/venv"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    lines = p.stdout.splitlines()
    upgrade = next(i for i, l in enumerate(lines) if "pip install" in l and "--upgrade pip" in l
                   and "setuptools>=64" in l)
    install = next(i for i, l in enumerate(lines) if "pip install" in l and "-e '.[test]'" in l)
    check = next(i for i, l in enumerate(lines) if "check_setup.py --installed" in l)
    stamp = next(i for i, l in enumerate(lines) if l.startswith("touch "))
    assert upgrade < install < check < stamp
    steps = [l for l in lines if l.startswith('echo "setup: ')]
    assert len(steps) >= 4                              # one line per step (item 15)


def test_check_setup_finds_the_compiler_setuptools_will_use():
    assert check_setup.compiler_command({"CC": "ccache gcc -O2"}) == "ccache"
    assert check_setup.compiler_problem({"CC": "/nonexistent/cc"}).endswith(
        "install a C compiler (e.g. apt-get install gcc)")
    assert check_setup.compiler_problem({"CC": sys.executable}) is None
    assert check_setup.installed_problem() is None      # this checkout's venv is complete


def test_check_setup_asks_for_zlib_when_its_header_is_missing(tmp_path):
    """The core links zlib (the disk search's files): a compiler that cannot find zlib.h is one line."""
    assert check_setup.zlib_problem() is None          # here it is found
    cc = tmp_path / "cc"
    cc.write_text("#!/bin/sh\necho 'fatal error: zlib.h: No such file or directory' >&2\nexit 1\n")
    cc.chmod(0o755)
    assert check_setup.zlib_problem({"CC": str(cc)}) == ("the zlib headers are missing (no zlib.h): install them "
                                                         "(e.g. apt-get install zlib1g-dev)")
