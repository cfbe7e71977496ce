"""`certgen prove` on a winnable start (issue 10, item 16): the solver tries first, with a cheap limit; a
replay-verified line ends prove in one line naming the prove-win command, exit status 4, without the
enumeration (deal 5's took 3.6 GB and 23 s, then said "nothing to prove: the verdict is unknown"). And the
default limits fit in a few GB, their memory stated in --help."""
import os
import re

import pytest

from certgen import cli as certgen_cli, prove
from solver import limits
from solver.rules import Rules

from conftest import _run as run


@pytest.mark.parametrize("args,words,command", [
    (["--deal", "5"], "deal 5 is winnable (a line of ",
     "python -m certgen prove-win --deal 5 (or make prove-win DEAL=5)"),
    (["--deal", "5", "--cells", "2"], "deal 5 (2 free cells) is winnable",
     "python -m certgen prove-win --deal 5 --cells 2 (or make prove-win DEAL=5 CELLS=2)"),
    (["--code", "SOL1-freecell-cells=4-N1"], "SOL1-freecell-cells=4-N1 is winnable",
     "python -m certgen prove-win --code SOL1-freecell-cells=4-N1"),
])
def test_prove_on_a_winnable_start_points_to_prove_win(tmp_path, monkeypatch, args, words, command):
    out = tmp_path / "out"
    p = run("prove", *args, "--out-dir", str(out), "--lean-dir", str(tmp_path / "lean"), module="certgen")
    assert p.returncode == prove.WINNABLE == 4, (p.stdout, p.stderr)
    lines = p.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(words) and lines[0].endswith(command), lines
    assert "replayed against the spec rules" in lines[0]
    assert not out.exists()             # nothing enumerated, nothing written


def test_prove_does_not_enumerate_a_winnable_start(monkeypatch, tmp_path):
    def no_explore(*a, **k):
        raise AssertionError("prove enumerated a start the solver had won")
    monkeypatch.setattr(prove.search, "explore", no_explore)
    said = []
    assert prove.prove(prove.load(deal=5), prove.STANDARD, str(tmp_path), str(tmp_path), say=said.append) == 4
    assert len(said) == 1


def test_an_unwinnable_deal_is_still_proven(tmp_path, monkeypatch):
    # deal 7 with no free cell is unwinnable: the solver's try says so (or nothing), and prove goes on
    if prove.coqcheck.find_coqc() is None:
        pytest.skip("no coqc: install Debian's coq (apt-get install -y coq)")
    said = []
    monkeypatch.setenv("LEAN_BOOTSTRAP", "0")
    monkeypatch.setattr(prove.lake, "find_lake", lambda: None)
    status = prove.prove(prove.load(deal=7), Rules(cells=0), str(tmp_path / "o"), str(tmp_path / "l"),
                         say=said.append)
    assert "2/4 check: the independent Python checker (the transliterated Lean spec)" in said
    assert os.path.exists(tmp_path / "o" / "Deal7Cells0.cert")
    assert said[-2] == "Lean: not available (LEAN_BOOTSTRAP=0) — nothing checked by Lean; the modules are in " \
        + str(tmp_path / "l")
    assert status == 0 and said[-1].startswith("proven by Coq: freecell_7_unwinnable : forall s, Reachable "
                                               "(rules 0 false 0) (msDeal 7) s -> ~ Won s (coqc ")


def test_exit_status_4_is_documented():
    text = certgen_cli.__doc__ + certgen_cli.build_parser().description
    assert re.search(r"\b4 \(prove\) the start is winnable", " ".join(text.split()))


def test_default_limits_fit_in_a_few_gigabytes():
    assert limits.EXPLORE_STATES * limits.COMMAND_BYTES_PER_POSITION <= 2e9
    for module, command in (("solver", "explore"), ("certgen", "prove"), ("certgen", "build")):
        p = run(command, "--help", module=module, env=dict(os.environ, COLUMNS="400"))
        assert "default 20,000,000: at most 1.8 GB; a bigger K needs about 90 bytes a position" in p.stdout, p.stdout
