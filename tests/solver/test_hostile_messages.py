"""Issue 33, hostile items 4 and 6: what a damaged layer file, an empty folder name, a full disk, a negative
size and a damaged certificate are told in one line -- naming the file and what to do, in the words the
fast checker uses for the same certificate."""
import errno
import os
import subprocess
import sys

import pytest

from solver import deals, disksearch
from solver.errors import FreecellError
from solver.rules import STANDARD

from helpers import ROOT, one_line_error as _one_line_error

SMALL = 1 << 16


def explore(*args):
    return subprocess.run([sys.executable, "-m", "solver", "explore", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def stopped(tmp_path):
    """#11982 on disk in a work folder, stopped at 30,000 positions: its layer files L000000..L000012."""
    work = tmp_path / "w"
    p = explore("--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", str(work), "--max-states", "30000",
                "--no-progress")
    assert p.returncode == 0 and (work / "search.state").exists(), p.stderr
    return work


# -- 4. One flipped byte in a layer file ---------------------------------------------------------------------

def test_a_flipped_byte_in_a_layer_file_is_named(tmp_path):
    """The search goes on from its last layer, L000012.keys, which has one bit flipped inside a block: the
    error names the file, says its checksum does not match and what to do. (It said "Input/output error …
    the same command goes on once the cause is gone", which it never would.)"""
    work = stopped(tmp_path)
    layer = work / "L000012.keys"
    assert layer.stat().st_size > 1000
    with open(layer, "r+b") as f:
        f.seek(100)
        b = f.read(1)[0]
        f.seek(100)
        f.write(bytes([b ^ 4]))
    p = explore("--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", str(work), "--no-progress")
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.splitlines()[-1] == (
        f"error: the disk search stopped after 29,235 positions: {layer}: damaged (its checksum does not match): "
        f"the positions it holds are lost (nothing is claimed: the verdict is unknown; the same command would stop "
        f"here again: remove the folder {work} to start again)")
    assert disksearch.damaged_file(str(work)) == "L000012.keys"


def test_which_file_is_damaged(tmp_path):
    """damaged_file: none in a sound folder; a block's CRC-32, a block's length past its bound and a head
    without its magic are named; a file that only ends early is not (the layer being written)."""
    work = stopped(tmp_path)
    assert disksearch.damaged_file(str(work)) is None
    assert disksearch.damaged_file(str(tmp_path / "nowhere")) is None
    good = (work / "L000011.keys").read_bytes()
    for at, why in ((32 + 12 + 7, "deflated bytes"), (32 + 8, "the CRC-32 itself"), (32 + 2, "a length"),
                    (1, "the magic")):
        bad = bytearray(good)
        bad[at] ^= 0x80
        (work / "L000011.keys").write_bytes(bytes(bad))
        assert disksearch.damaged_file(str(work)) == "L000011.keys", why
    (work / "L000011.keys").write_bytes(good[:len(good) // 2])
    assert disksearch.damaged_file(str(work)) is None


# -- 6. Messages ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("flag", ["--work-dir", "--tmp"])
def test_an_empty_folder_name(flag, tmp_path):
    """`--work-dir ""` said "--work-dir : No such file or directory"."""
    p = subprocess.run([sys.executable, "-m", "solver", "explore", "--deal", "1", "--memory", "1M", flag, ""],
                       cwd=tmp_path, capture_output=True, text=True)
    _one_line_error(p, f"{flag} is empty: give a folder's name")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("module, args", [
    ("solver", ["explore", "--deal", "1", "--memory", "-5M"]),
    ("solver", ["explore", "--deal", "1", "--max-states", "-1,000"]),
    ("certgen", ["build", "--deal", "1", "--memory", "-.5G", "--out", "x.cert"]),
])
def test_a_negative_size_is_told_as_a_bad_value(module, args, tmp_path):
    """argparse read `-5M` as an option: "argument --memory: expected one argument"."""
    p = subprocess.run([sys.executable, "-m", module, *args], cwd=tmp_path, capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    flag = next(a for a in args if a in ("--memory", "--max-states"))
    value = args[args.index(flag) + 1]
    line = _one_line_error(p)
    assert line.startswith(f"error: {flag} must be ") and line.endswith(f", got '{value}'"), line


def test_a_value_that_is_a_file_name_is_not_glued():
    from solver.cliargs import _negative_number
    assert [t for t in ("-5", "-5M", "-.5G", "-1,000", "-1.cert", "-x", "-", "--5", "-5MB") if _negative_number(t)] \
        == ["-5", "-5M", "-.5G", "-1,000"]


def _disk_full(monkeypatch):
    """The C core as on a full disk: its first checkpoint fails with ENOSPC."""
    real = disksearch.lib

    class Full:
        def __getattr__(self, name):
            return getattr(real, name)

        @staticmethod
        def fc_ddd_keep(d, on):
            return real.FC_EIO if on else real.fc_ddd_keep(d, on)

        @staticmethod
        def fc_ddd_stats(d, st):
            real.fc_ddd_stats(d, st)
            st.sys_errno = errno.ENOSPC
    monkeypatch.setattr(disksearch, "lib", Full())


def test_a_full_disk_says_so_and_leaves_no_folder(tmp_path, monkeypatch):
    """A work folder on a full disk said "cannot write the search's files there" and left the (empty) folder
    it had made; now "no space left on the device (disk full)", and the folder and the parent it made are
    gone. (Simulated: the first checkpoint fails with ENOSPC; the next test does it on a real full tmpfs.)"""
    _disk_full(monkeypatch)
    work = tmp_path / "made" / "w"
    with pytest.raises(FreecellError) as e:
        disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, work_dir=str(work))
    assert str(e.value) == (f"--work-dir {work}: cannot write the search's files there: no space left on the "
                            f"device (disk full)")
    assert os.listdir(tmp_path) == []
    kept = tmp_path / "kept"
    kept.mkdir()
    with pytest.raises(FreecellError):
        disksearch.explore_disk(deals.ms_deal(11982), STANDARD, SMALL, work_dir=str(kept))
    assert os.listdir(kept) == []           # a folder the user made stays, as it was


def test_a_full_tmpfs(tmp_path):
    """The same on an 8 KB tmpfs (root only: skipped where mount is refused)."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(mnt)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here")
    try:
        p = explore("--deal", "11982", "--memory", "64K", "--on-disk", "--work-dir", str(mnt / "w"), "--no-progress")
        _one_line_error(p, f"--work-dir {mnt / 'w'}: cannot write the search's files there: no space left on the "
                           f"device (disk full)")
        assert os.listdir(mnt) == []
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


