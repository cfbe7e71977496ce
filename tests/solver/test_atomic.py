"""Output files: special files are written in place, `-` is stdout, an output never replaces an input
(issue 10, items 1 and 3)."""
import os
import stat
import subprocess
import sys
import threading

import pytest

from solver import atomic
from solver.atomic import file_in_the_way
from solver.errors import FreecellError

from helpers import DEAL11982_BOARD, one_line_error as assert_one_line_error, run


def _fifo_reader(path):
    got = {}

    def read():
        with open(path, "rb") as f:
            got["data"] = f.read()

    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t, got


def test_a_fifo_is_streamed_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    t, got = _fifo_reader(fifo)
    atomic.write_atomic(str(fifo), "deal,verdict\n")
    t.join(5)
    assert got["data"] == b"deal,verdict\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)          # was replaced by a regular file


def test_a_link_to_a_fifo_stays_a_link(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    t, got = _fifo_reader(fifo)
    atomic.write_atomic(str(link), b"abc")
    t.join(5)
    assert got["data"] == b"abc"
    assert os.path.islink(link) and stat.S_ISFIFO(os.stat(link).st_mode)


def test_a_link_to_a_regular_file_stays_a_link_and_the_file_is_replaced(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    os.chmod(real, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    atomic.write_atomic(str(link), "new")
    assert os.path.islink(link) and real.read_text() == "new"
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640    # the replaced file keeps its permissions
    assert sorted(os.listdir(tmp_path)) == ["link.txt", "real.txt"]


def test_dev_full_says_disk_full():
    # Guard first: on a writer that renames over special files this would replace /dev/full itself.
    assert atomic._in_place("/dev/full")
    with pytest.raises(OSError) as e:
        atomic.write_atomic("/dev/full", b"x" * 100)
    assert e.value.filename == "/dev/full" and "disk full" in e.value.strerror
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_dev_full_from_the_command_line_is_one_line():
    assert atomic._in_place("/dev/full")
    p = run("survey", "1-2", "--out", "/dev/full")
    assert_one_line_error(p, "cannot write /dev/full: no space left on the device (disk full)")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_link_through_proc_is_written_in_place(tmp_path):
    # Like /dev/stdout (-> /proc/self/fd/1): the data must reach the process's stdout, and the link stay.
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    p = subprocess.run([sys.executable, "-m", "solver", "survey", "1-2", "--out", str(link)], cwd=tmp_path,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert os.path.islink(link)
    assert p.stdout.startswith("deal,verdict,searched_states,length,seconds\n1,winnable,")


def test_dash_is_stdout_and_messages_go_to_stderr(tmp_path):
    p = subprocess.run([sys.executable, "-m", "solver", "survey", "1-2", "--out", "-"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("deal,verdict,searched_states,length,seconds\n1,winnable,")
    assert p.stdout.count("\n") == 3                        # the header and two rows, nothing else
    assert p.stderr.startswith("deals 1-2: 2 winnable")
    assert os.listdir(tmp_path) == []                       # no file named '-'


def test_a_certificate_to_stdout_is_a_readable_certificate(tmp_path):
    with open(tmp_path / "c.cert", "wb") as f:
        p = subprocess.run([sys.executable, "-m", "certgen", "build", "--deal", "7", "--cells", "0", "--out", "-"],
                           cwd=tmp_path, stdout=f, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, p.stderr
    assert "unwinnable" in p.stderr
    p = run("check", str(tmp_path / "c.cert"), module="certgen")
    assert p.returncode == 0 and p.stdout.startswith("valid for deal 7 "), p.stdout + p.stderr


@pytest.mark.parametrize("alias", ["/dev/stdout", "/proc/self/fd/1", "SAME"])
def test_an_output_that_is_stdout_gets_no_text_on_top(tmp_path, alias):
    # `--out /dev/stdout > f.bin`: the report lines must go to stderr, not through fd 1 over the data.
    target = tmp_path / "c.cert"
    out = str(target) if alias == "SAME" else alias
    with open(target, "wb") as f:
        p = subprocess.run([sys.executable, "-m", "certgen", "build", "--deal", "7", "--cells", "0",
                            "--no-progress", "--out", out], cwd=tmp_path, stdout=f, stderr=subprocess.PIPE,
                           text=True)
    assert p.returncode == 0, p.stderr
    assert "unwinnable" in p.stderr
    p = run("check", str(target), module="certgen")
    assert p.returncode == 0 and p.stdout.startswith("valid for deal 7 "), p.stdout + p.stderr
    with open(tmp_path / "b.svg", "wb") as f:
        p = subprocess.run([sys.executable, "-m", "solver", "analyze", "--deal", "1", "--svg", "/dev/stdout"],
                           cwd=tmp_path, stdout=f, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, p.stderr
    svg = (tmp_path / "b.svg").read_text()
    assert svg.startswith("<?xml") and svg.endswith("</svg>\n"), svg[-300:]


def test_a_directory_is_one_line(tmp_path):
    with pytest.raises(OSError) as e:
        atomic.write_atomic(str(tmp_path), b"x")
    assert e.value.filename == str(tmp_path) and e.value.strerror == "Is a directory"


# -- item 3: an output that is an input ----------------------------------------------------------------

@pytest.fixture
def board(tmp_path):
    b = tmp_path / "b.txt"
    b.write_text(DEAL11982_BOARD)
    return b


@pytest.mark.parametrize("cmd", [
    ("solver", "analyze", "--board", "{in}", "--svg", "{out}"),
    ("certgen", "build", "--board", "{in}", "--out", "{out}"),
])
@pytest.mark.parametrize("alias", ["same", "symlink", "hardlink"])
def test_a_board_is_never_overwritten_by_the_output(tmp_path, board, cmd, alias):
    out = board
    if alias == "symlink":
        out = tmp_path / "alias"
        out.symlink_to(board)
    elif alias == "hardlink":
        out = tmp_path / "alias"
        os.link(board, out)
    args = [a.format(**{"in": board, "out": out, "dir": tmp_path}) for a in cmd[1:]]
    p = run(*args, module=cmd[0])
    assert_one_line_error(p)
    assert "is the input" in p.stderr
    assert board.read_text() == DEAL11982_BOARD


@pytest.fixture
def cert(tmp_path):
    path = tmp_path / "c.cert"
    p = run("build", "--deal", "7", "--cells", "0", "--out", str(path), module="certgen")
    assert p.returncode == 0, p.stderr
    return path


@pytest.mark.parametrize("cmd", [
    ("mutate", "{in}", "--delete", "deal", "--out", "{out}"),
    ("render", "{in}", "--lean-dir", "{dir}/lean", "--standalone", "{out}"),
])
@pytest.mark.parametrize("alias", ["same", "symlink"])
def test_a_certificate_is_never_overwritten_by_the_output(tmp_path, cert, cmd, alias):
    before = cert.read_bytes()
    out = cert
    if alias == "symlink":
        out = tmp_path / "alias.cert"
        out.symlink_to(cert)
    p = run(*[a.format(**{"in": cert, "out": out, "dir": tmp_path}) for a in cmd], module="certgen")
    assert_one_line_error(p)
    assert "is the input" in p.stderr
    assert cert.read_bytes() == before
    assert not (tmp_path / "lean").exists()


def test_check_not_input_allows_other_files_and_streams(tmp_path, board):
    atomic.check_not_input(str(tmp_path / "other"), str(board))
    atomic.check_not_input("-", "-")
    atomic.check_not_input("/dev/null", "/dev/null")       # written in place: replaces nothing
    atomic.check_not_input(None, str(board))
    with pytest.raises(FreecellError, match="is the input"):
        atomic.check_not_input(str(board), None, str(board))


def test_a_very_deep_output_path_is_created(tmp_path):
    # 1,100 nested folders: os.makedirs recursed past Python's limit (RecursionError).
    path = os.path.join(str(tmp_path), *["d"] * 1100, "x.txt")
    atomic.write_atomic(path, "ok\n")
    try:
        with open(path, encoding="utf-8") as f:
            assert f.read() == "ok\n"
    finally:                        # pytest's cleanup (shutil.rmtree) recurses: remove the tree bottom-up
        if os.path.exists(path):
            os.unlink(path)
        d = os.path.dirname(path)
        while d != str(tmp_path) and os.path.isdir(d):
            os.rmdir(d)
            d = os.path.dirname(d)


@pytest.mark.parametrize("extra", [[], ["--reference"]])
def test_check_of_dash_is_one_line(extra):
    p = run("check", "-", *extra, module="certgen", stdin="")
    assert_one_line_error(p, "check reads a certificate file, not standard input (`-`): give its path")


def test_file_in_the_way(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "f").write_text("")
    assert file_in_the_way(str(tmp_path / "a" / "f" / "g" / "h")) == str(tmp_path / "a" / "f")
    assert file_in_the_way(str(tmp_path / "a" / "new" / "h")) is None
