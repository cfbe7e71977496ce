"""certgen's command line given bad paths: a folder where a certificate should be, a folder that does not
exist, an empty path, a file where a folder of an output path should be, a file whose name starts with
'-', a folder that cannot be written. Each is one line naming the path, exit 2, nothing written."""
import os
import subprocess
import sys

import pytest

from certgen import certificate
from solver import deals, search
from solver.rules import Rules

from helpers import ROOT, loaded_after, one_line_error as assert_one_line_error, run_in


@pytest.fixture(scope="module")
def small_cert(tmp_path_factory):
    """Deal 7 with no free cell: unwinnable, a few thousand positions."""
    pos = deals.ms_deal(7)
    res = search.explore(pos, Rules(cells=0))
    path = tmp_path_factory.mktemp("cert") / "deal7.cert"
    certificate.write(str(path), certificate.make({"kind": "ms", "deal": 7}, {"cells": 0, "foundation_return": False},
                                                  pos, res.records(), {}))
    return path


@pytest.mark.parametrize("command", [["check"], ["check", "--reference"], ["info"]])
def test_a_directory_is_not_a_certificate(tmp_path, command):
    line = assert_one_line_error(run_in(tmp_path, *command, str(tmp_path)))
    assert line == f"error: {tmp_path} is a directory, not a certificate file"


@pytest.mark.parametrize("given,words", [("missing", "no such directory"), ("afile", "not a directory")])
def test_audit_refuses_certs_that_are_no_folder(tmp_path, given, words):
    (tmp_path / "afile").write_text("x")
    p = run_in(tmp_path, "audit", "--certs", given)
    assert assert_one_line_error(p) == f"error: --certs {given}: {words}"


@pytest.mark.parametrize("args,flag", [
    (("build", "--deal", "7", "--cells", "0", "--out", ""), "--out"),
    (("prove", "--deal", "7", "--cells", "0", "--out-dir", ""), "--out-dir"),
    (("render", "c.cert", "--lean-dir", ""), "--lean-dir"),
    (("survey", "1-2", "--dir", ""), "the survey directory"),
    (("check", ""), "the certificate"),
    (("prove", "--from-survey", "", "--out-dir", "o"), "--from-survey"),
])
def test_an_empty_path_is_one_line(tmp_path, args, flag):
    assert assert_one_line_error(run_in(tmp_path, *args)) == f"error: {flag}: empty path"
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("args,flag", [
    (("render-shipped", "--lean-dir", "-"), "--lean-dir"),
    (("prove", "--deal", "7", "--cells", "0", "--out-dir", "-"), "--out-dir"),
    (("survey", "1-2", "--dir", "-"), "the survey directory"),
    (("audit", "--certs", "-"), "--certs"),
    (("prove", "--from-survey", "-", "--out-dir", "o"), "--from-survey"),
    (("build", "--deal", "7", "--cells", "0", "--out", "c.cert", "--memory", "1G", "--on-disk", "--tmp", "-"),
     "--tmp"),
    (("build", "--deal", "7", "--cells", "0", "--out", "c.cert", "--memory", "1G", "--on-disk", "--work-dir", "-"),
     "--work-dir"),
])
def test_a_folder_named_dash_is_one_line(tmp_path, args, flag):
    # '-' is standard input or output elsewhere: as a folder it would be a folder named '-'
    line = assert_one_line_error(run_in(tmp_path, *args))
    assert line == f"error: {flag}: '-' is not a folder (write ./- for a folder of that name)"
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("args,flag", [
    (("prove", "--deal", "7", "--cells", "0", "--out-dir", "d/" * 1000 + "e"), "--out-dir"),
    (("build", "--deal", "7", "--cells", "0", "--out", "d/" * 1000 + "c.cert"), "--out"),
    (("build", "--deal", "7", "--cells", "0", "--out", "c.cert", "--memory", "1G", "--work-dir", "d/" * 300),
     "--work-dir"),
])
def test_a_path_too_deep_is_one_line(tmp_path, args, flag):
    # os.makedirs goes down one call a folder: a thousand made Python's recursion stop with a traceback
    depth = args[-1].count("/") + 1
    assert assert_one_line_error(run_in(tmp_path, *args)) == f"error: {flag}: a path {depth:,} names deep (at most 256)"
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("args,message", [
    (("build", "--deal", "7", "--cells", "0", "--out", "somefile/x.cert"),
     "cannot write somefile/x.cert: somefile is a file, not a folder"),
    (("prove", "--deal", "7", "--cells", "0", "--out-dir", "somefile/x"), "somefile/x: somefile is a file, not a folder"),
    (("survey", "1-2", "--dir", "somefile/deeper/x"), "somefile/deeper: somefile is a file, not a folder"),
])
def test_a_file_in_place_of_a_folder_is_named(tmp_path, args, message):
    (tmp_path / "somefile").write_text("keep me")
    assert assert_one_line_error(run_in(tmp_path, *args)) == f"error: {message}"
    assert (tmp_path / "somefile").read_text() == "keep me"


@pytest.mark.parametrize("reference", [False, True])
def test_a_file_name_starting_with_a_dash(tmp_path, small_cert, reference):
    (tmp_path / "-dash.cert").write_bytes(small_cert.read_bytes())
    flags = ["--reference"] if reference else []
    line = assert_one_line_error(run_in(tmp_path, "check", *flags, "-dash.cert"))
    assert "./-dash.cert" in line and "--" in line and "required" not in line
    for args in (["--", "-dash.cert"], ["./-dash.cert"]):
        p = run_in(tmp_path, "check", *flags, *args)
        assert p.returncode == 0 and p.stdout.startswith("valid"), (p.stdout, p.stderr)


@pytest.fixture
def read_only_folder():
    """(a folder no file can be made in, a folder anyone can write in, the command prefix that runs as a
    user the first binds): root writes anywhere, so as root the command runs as nobody (setpriv), in folders
    outside pytest's private tmp."""
    import shutil
    import tempfile
    prefix = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("no setpriv: root writes in any folder, and nothing here can drop that right")
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    base = tempfile.mkdtemp(prefix="freecell-ro-")
    folder = os.path.join(base, "ro")
    writable = os.path.join(base, "w")
    os.mkdir(folder)
    os.mkdir(writable)
    os.chmod(writable, 0o777)
    for path in (base, folder):
        os.chmod(path, 0o555)
    yield folder, writable, prefix
    os.chmod(base, 0o755)
    shutil.rmtree(base)


@pytest.mark.parametrize("command, flag, extra", [
    (["build", "--on-disk", "--out", "{ro}/x.cert"], "--out", ", and the disk search's files (no --tmp given)"),
    (["build", "--out", "{ro}/x.cert"], "--out", ", and the disk search's files (no --tmp given)"),
    (["build", "--on-disk", "--out", "{ro}/x.cert", "--tmp", "{tmp}"], "--out", ""),
    (["prove", "--on-disk", "--out-dir", "{ro}"], "--out-dir", ", and the disk search's files (no --tmp given)"),
])
def test_a_certificate_folder_that_cannot_be_written_is_named(read_only_folder, command, flag, extra):
    # `build --on-disk` into a read-only folder said `--tmp FOLDER: cannot make a
    # temporary folder there`, naming an option the user had not given; with --tmp, the search ran to its end
    # and then could not write the certificate
    ro, writable, prefix = read_only_folder
    args = [a.format(ro=ro, tmp=writable) for a in command]
    p = subprocess.run(prefix + [sys.executable, "-m", "certgen", *args, "--deal", "11982", "--cells", "1",
                                 "--memory", "64M"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONDONTWRITEBYTECODE="1"))
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.splitlines()[-1] == (f"error: cannot write in {ro} (no permission): the certificate goes there"
                                         f"{extra}; give another {flag}")
    assert os.listdir(ro) == []


def test_build_in_memory_refuses_a_bad_out_before_the_search(read_only_folder, tmp_path):
    # without --memory, `build` ran the whole search, then could not write (or,
    # for a winnable deal, never named the bad --out at all); a folder given as --out the same
    ro, _writable, prefix = read_only_folder
    env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run(prefix + [sys.executable, "-m", "certgen", "build", "--deal", "164", "--cells", "0", "--out",
                                 f"{ro}/x.cert"], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 2 and p.stdout == "", (p.stdout, p.stderr)
    assert p.stderr.splitlines() == [f"error: cannot write in {ro} (no permission): the certificate goes there; "
                                     f"give another --out"]
    p = subprocess.run([sys.executable, "-m", "certgen", "build", "--deal", "164", "--cells", "0", "--out",
                        str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 2 and p.stdout == "", (p.stdout, p.stderr)
    assert p.stderr.splitlines() == [f"error: cannot write {tmp_path}: Is a directory"]


@pytest.mark.parametrize("make", [os.mkdir, os.mkfifo])
def test_audit_coq_says_a_module_path_that_is_no_regular_file(tmp_path, run, make):
    # a folder or a FIFO where the module should be exists: "no such file" would send the user looking for it
    (tmp_path / "coq").mkdir()
    path = tmp_path / "coq" / "Deal11982.v"
    make(path)
    assert_one_line_error(run("audit-coq", str(path), module="certgen"), f"{path}: not a regular file")


def test_check_and_info_load_no_prover_side(small_cert):
    """`certgen check` and `info` read and check a certificate: they must not pay for the renderers (jinja2),
    the prove pipeline, the audits, the surveys or certify-list."""
    path = small_cert
    heavy = ["jinja2", "certgen.prove", "certgen.render", "certgen.audit", "certgen.certify", "certgen.survey",
             "certgen.coqcheck", "certgen.specdoc", "solver.survey"]
    for argv in (["check", str(path)], ["check", "--reference", str(path)], ["info", str(path)]):
        assert loaded_after(argv, heavy, module="certgen") == [], argv


@pytest.mark.parametrize("args, code, written", [
    (["--deal", "1"], 1, False),                                   # winnable: no certificate
    (["--deal", "11982", "--max-states", "100"], 1, False),         # at its limit: no certificate
    (["--deal", "7", "--cells", "0"], 0, True),                     # unwinnable: the certificate, in its folders
])
def test_build_leaves_no_folder_it_made_for_a_certificate_it_did_not_write(tmp_path, args, code, written):
    (tmp_path / "kept").mkdir()
    out = tmp_path / "kept" / "new" / "deeper" / "x.cert"
    p = run_in(tmp_path, "build", *args, "--out", str(out))
    assert p.returncode == code, p.stderr
    assert out.is_file() == written
    assert (tmp_path / "kept" / "new").exists() == written and (tmp_path / "kept").is_dir()


def test_build_leaves_no_folder_it_made_when_a_deeper_one_cannot_be_made(tmp_path):
    # the folders made before the one that failed (a name too long) stayed behind
    (tmp_path / "kept").mkdir()
    p = run_in(tmp_path, "build", "--deal", "1", "--out", str(tmp_path / "kept" / "new" / ("y" * 300) / "x.cert"))
    assert p.returncode == 2 and p.stderr.endswith(": File name too long\n"), p.stderr
    assert os.listdir(tmp_path / "kept") == []
