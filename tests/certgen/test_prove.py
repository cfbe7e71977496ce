"""The one prove pipeline (certgen/prove.py): explore, both checkers, then every prover found (Lean and Coq
as backends), one closing line per prover and the exit status from them; --prover asks for one and fails
when it is missing; without Lean the Lean modules stay out of the library folder; the elan bootstrap says
what it downloads before it starts and gives up in one line without a network."""
import os
import re
import subprocess
import sys
import time

import pytest

from certgen import cli as certgen_cli, fastcheck, prove
from certgen.paths import GENERATED, INSTALL_LEAN, ROOT
from solver import limits
from solver.rules import Rules
from solver.source import load

from helpers import build_certificate, run as _run


def run(*args, env=None):
    return _run(*args, module="certgen", env=env, timeout=600)

needs_coqc = pytest.mark.skipif(prove.coqcheck.find_coqc() is None, reason="no coqc: apt-get install -y coq")
NO_LEAN = "Lean: not available (LEAN_BOOTSTRAP=0) — nothing checked by Lean; the modules are in "


@pytest.fixture
def no_lean(monkeypatch):
    monkeypatch.setenv("LEAN_BOOTSTRAP", "0")
    monkeypatch.setattr(prove.lake, "find_lake", lambda: None)


def test_the_exit_status_is_the_provers(no_lean, monkeypatch):
    O = prove.Outcome
    said = []
    assert prove.closing([O(3, "a"), O(0, "b")], said.append) == 0 and said == ["a", "b"]
    assert prove.closing([O(0, "a"), O(1, "b")], said.append) == 1      # one refused: not proven
    assert prove.closing([O(3, "a"), O(3, "b")], said.append) == 3      # none ran
    assert prove.closing([O(1, "a"), O(3, "b")], said.append) == 1


@pytest.fixture(scope="module")
def proven7(tmp_path_factory, coq_library):
    """`prove` of deal 7 with no free cell (unwinnable) without Lean, run once for the tests that read it: (the
    output folder, the exit status, what it said)."""
    if prove.coqcheck.find_coqc() is None:
        pytest.skip("no coqc: install Debian's coq (apt-get install -y coq)")
    out = tmp_path_factory.mktemp("prove7") / "o"
    coq_library(out)
    said = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LEAN_BOOTSTRAP", "0")
        mp.setattr(prove.lake, "find_lake", lambda: None)
        status = prove.prove(load(deal=7), Rules(cells=0), str(out), say=said.append)
    return out, status, said


@needs_coqc
def test_prove_ends_with_a_line_per_prover(proven7):
    out, status, said = proven7
    assert status == 0, said
    assert said[-2] == NO_LEAN + str(out / "lean")
    assert said[-1].startswith("proven by Coq: freecell_7_unwinnable : forall s, Reachable (rules 0 false 0) "
                               "(msDeal 7) s -> ~ Won s (coqc ")
    assert sum(line.startswith("proven by") for line in said) == 1      # said once, at the end


def test_a_prover_asked_for_and_missing_fails_before_the_search(tmp_path, no_lean):
    env = dict(os.environ, LEAN_BOOTSTRAP="0", HOME=str(tmp_path), PATH=os.path.dirname(sys.executable))
    for prover, words in (("lean", "Lean is not available (LEAN_BOOTSTRAP=0)"),
                          ("coq", "Coq is not available (coqc is not on PATH; Debian: apt-get install coq)")):
        p = run("prove", "--deal", "7", "--cells", "0", "--prover", prover, "--out-dir",
                str(tmp_path / "o"), env=env)
        assert p.returncode == 3, p.stdout + p.stderr
        assert p.stderr.splitlines() == [f"{words}: nothing was checked"]
        assert not (tmp_path / "o").exists()                             # no search, nothing written
    p = run("prove", "--deal", "7", "--prover", "isabelle")
    assert p.returncode == 2 and "invalid choice: 'isabelle'" in p.stderr


@needs_coqc
def test_coqc_found_through_a_relative_path_entry_still_runs(tmp_path):
    # PATH=bin:...: coqc runs in folders of its own, where the relative name bin/coqc named nothing
    os.makedirs(tmp_path / "bin")
    os.symlink(prove.coqcheck.find_coqc(), tmp_path / "bin" / "coqc")
    env = dict(os.environ, LEAN_BOOTSTRAP="0", HOME=str(tmp_path),
               PATH=os.pathsep.join(["bin", os.path.dirname(sys.executable), "/usr/bin", "/bin"]))
    p = subprocess.run([sys.executable, "-m", "certgen", "prove", "--deal", "7", "--cells", "0", "--prover", "coq",
                        "--out-dir", "o"], cwd=tmp_path, env=dict(env, PYTHONPATH=ROOT), capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.splitlines()[-1].startswith("proven by Coq: freecell_7_unwinnable : ")


def test_a_coqc_that_writes_nothing_is_not_a_proof(tmp_path):
    # a coqc on PATH that says nothing and ends with status 0 (a stub): one line on what it did, NOT proven
    os.makedirs(tmp_path / "bin")
    (tmp_path / "bin" / "coqc").write_text("#!/bin/sh\nexit 0\n")
    (tmp_path / "bin" / "coqc").chmod(0o755)
    env = dict(os.environ, LEAN_BOOTSTRAP="0", HOME=str(tmp_path),
               PATH=os.pathsep.join([str(tmp_path / "bin"), os.path.dirname(sys.executable)]))
    p = run("prove", "--deal", "7", "--cells", "0", "--prover", "coq", "--out-dir", str(tmp_path / "o"), env=env)
    assert p.returncode == 1, p.stdout + p.stderr
    assert re.fullmatch(f"Coq: the Coq library does not compile: coqc \\({re.escape(str(tmp_path))}/bin/coqc\\) ended with status 0 "
                        r"on Spec.v but wrote no /\S+/coq-lib-\w+/Spec.vo: NOT proven", p.stdout.splitlines()[-1]), p.stdout


def test_without_lean_the_modules_stay_out_of_the_library(tmp_path):
    # a local `make prove` wrote lean/FreeCell/Generated/Deal<N>.lean, which made the audit test skip
    before = sorted(os.listdir(GENERATED))
    env = dict(os.environ, LEAN_BOOTSTRAP="0", HOME=str(tmp_path), PATH=os.path.dirname(sys.executable))
    try:
        p = run("prove", "--deal", "7", "--cells", "0", "--out-dir", str(tmp_path / "o"), env=env)
        assert p.returncode == 3, p.stdout + p.stderr                    # neither prover here
        assert sorted(os.listdir(GENERATED)) == before
        assert (tmp_path / "o" / "lean" / "Deal7Cells0.lean").exists()
        assert p.stdout.splitlines()[-2:] == [
            NO_LEAN + str(tmp_path / "o" / "lean"),
            "Coq: not available (coqc is not on PATH; Debian: apt-get install coq) — nothing checked by Coq; "
            "the Coq file is kept"]
    finally:
        for name in set(os.listdir(GENERATED)) - set(before):
            os.remove(os.path.join(GENERATED, name))


@needs_coqc
def test_prove_coq_checks_with_both_checkers(tmp_path, coq_library):
    # prove-coq had its own copy of the pipeline, without the fast checker's cross-check
    coq_library(tmp_path / "o")
    p = run("prove-coq", "--deal", "7", "--cells", "0", "--out-dir", str(tmp_path / "o"),
            "--no-progress")
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert any(line.startswith("  valid for deal 7 under the rules with 0 free cells") for line in lines)
    if fastcheck.binary():
        assert any(line.startswith("  fast checker (build/fccheck): valid for deal 7") for line in lines)
    assert lines[-1].startswith("proven by Coq: freecell_7_unwinnable")
    assert not any(line.startswith("Lean") for line in lines)           # Coq only


def make_n(*args):
    """`make -n ARGS` in the checkout: what make would run."""
    return subprocess.run(["make", "-n", *args], cwd=ROOT, capture_output=True, text=True)


def test_make_passes_prover():
    assert "--prover coq" in make_n("prove", "PROVER=coq").stdout
    assert "--prover lean" in make_n("prove-known", "PROVER=lean").stdout
    p = make_n("prove", "PROVER=isabelle")
    assert p.returncode != 0 and "PROVER may only be lean or coq (or empty), got 'isabelle'" in p.stderr
    assert "-k prove" in make_n("test", "ARGS=-k prove").stdout


def test_the_elan_bootstrap_says_what_it_downloads_and_gives_up_quickly(tmp_path):
    # it downloaded elan and a toolchain into ~/.elan without a word first
    env = dict(os.environ, HOME=str(tmp_path), ELAN_INIT_URL="http://127.0.0.1:9/elan-init.sh")
    t = time.monotonic()
    p = subprocess.run(["bash", INSTALL_LEAN], env=env, capture_output=True, text=True, timeout=60)
    took = time.monotonic() - t
    assert p.returncode == 1 and took < 10, took
    plan = p.stderr.strip()
    assert plan.startswith("installing Lean into ~/.elan: elan (a few MB, from http://127.0.0.1:9/elan-init.sh), "
                           "then the toolchain leanprover/lean4:v4.35.0 (about 200 MB to download, about 1 GB on disk)")
    assert plan.endswith("LEAN_BOOTSTRAP=0 skips this")
    out = p.stdout.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("cannot download the elan installer from http://127.0.0.1:9/")
    assert out[0].endswith(": nothing installed") and not (tmp_path / ".elan").exists()


def test_a_coq_refusal_is_the_closing_line():
    said = []

    def refused(coqc, say):
        say("4/4 coq: coqc out/coq/X.v")
        say("coqc failed (coqc 1.0 s, peak 1 MiB; Error: ...; log out/coq/X.log): NOT proven")
        return 1, None
    o = prove.coq_check(prove.Prover("coq", "/usr/bin/coqc"), refused, said.append)
    assert said == ["4/4 coq: coqc out/coq/X.v"]                        # the verdict is held for the end
    assert (o.status, o.line) == (1, "Coq: coqc failed (coqc 1.0 s, peak 1 MiB; Error: ...; log out/coq/X.log): "
                                     "NOT proven")
    assert prove.closing([o, prove.Outcome(0, "proven by Lean: T")], said.append) == 1


# -- The reference checker's share when a prover decides anyway --------------------------------------------------

needs_fccheck = pytest.mark.skipif(fastcheck.binary() is None, reason="build/fccheck is not built (make setup)")
SAMPLED = ("2/4 check: the independent Python checker (the transliterated Lean spec) on a sample of 1,000 of the "
           "5,297 members, as Coq's kernel proves the theorem by its own search (--full-reference: every member); "
           "the fast checker on every member")


@pytest.fixture(scope="module")
def cells3(tmp_path_factory):
    """Deal 11982 with 3 free cells (5,297 positions): its certificate file and a mutant with one member gone."""
    from certgen import certificate, mutate
    folder = tmp_path_factory.mktemp("cells3")
    cert = build_certificate(11982, cells=3)
    certificate.write(str(folder / "c.cert"), cert)
    certificate.write(str(folder / "m.cert"), mutate.mutate(cert, "random:1", seed=3)[0])
    return folder


def checked(path, kernel):
    p, said = prove.Prepared(None, None, str(path)), []
    prove.check_both(p, False, said.append, kernel=kernel)
    return p, said


@needs_fccheck
def test_with_a_kernel_ahead_the_reference_checks_a_sample(cells3):
    p, said = checked(cells3 / "c.cert", "Coq")
    assert p.ok and said[0] == SAMPLED
    assert said[1].startswith("  valid on a sample for deal 11982 under the rules with 3 free cells")
    assert "a sample of 1,000 of 5,297 members" in said[1] and "drawn with seed " in said[1]
    assert said[2].startswith("  fast checker (build/fccheck): valid for deal 11982") and len(said) == 3
    p, said = checked(cells3 / "c.cert", "Lean")      # Lean's modules prove their check by native_decide
    assert said[0] == SAMPLED.replace("Coq's kernel proves the theorem by its own search",
                                      "Lean's compiled check (native_decide) checks every member")
    p, said = checked(cells3 / "c.cert", None)                       # no kernel ahead: every member
    assert p.ok and said[0] == "2/4 check: the independent Python checker (the transliterated Lean spec) on every member"
    assert said[1].startswith("  valid for deal 11982 under the rules with 3 free cells") and "5,297 states" in said[1]


@needs_fccheck
def test_a_sampled_check_still_refuses_a_certificate_with_a_member_missing(cells3):
    # the sample may not reach the missing member; the fast checker, on every member, does
    p, said = checked(cells3 / "m.cert", "Coq")
    assert not p.ok and said[0] == SAMPLED.replace("5,297", "5,296")
    assert said[2].startswith("  fast checker (build/fccheck): invalid for deal 11982")


def test_the_sample_is_for_large_certificates_a_kernel_checks_with_the_fast_checker_built(monkeypatch):
    monkeypatch.setattr(prove.fastcheck, "binary", lambda: prove.fastcheck.BINARY)
    assert prove.reference_sample(5297, "Coq") == prove.PROVE_SAMPLE == 1000
    assert prove.reference_sample(5297, None) is None                   # no kernel: every member
    assert prove.reference_sample(1000, "Lean") is None                 # a sample would be every member
    monkeypatch.setattr(prove.fastcheck, "binary", lambda: None)
    assert prove.reference_sample(5297, "Coq") is None                  # no fast checker: Python on every member


@needs_fccheck
def test_a_fast_checker_named_by_fccheck_gets_the_reference_on_every_member(cells3, monkeypatch, tmp_path):
    # FCCHECK may name any program: one that says "valid" to everything must not stand in for build/fccheck
    fake = tmp_path / "fccheck"
    fake.write_text(f"#!/bin/sh\nexec {fastcheck.BINARY} \"$@\"\n")
    fake.chmod(0o755)
    monkeypatch.setenv("FCCHECK", str(fake))
    assert prove.reference_sample(5297, "Coq") is None
    p, said = checked(cells3 / "c.cert", "Coq")
    assert p.ok and said[0] == "2/4 check: the independent Python checker (the transliterated Lean spec) on every member"
    assert said[2].startswith(f"  fast checker ({fake}): valid for deal 11982")


def test_the_kernel_ahead_is_a_prover_found_before_the_search(monkeypatch):
    found = {"coqc": None, "lake": None}
    monkeypatch.setattr(prove.coqcheck, "find_coqc", lambda: found["coqc"])
    monkeypatch.setattr(prove.lake, "find_lake", lambda: found["lake"])
    monkeypatch.setattr(prove, "on_path", lambda name: None)             # no coqchk
    plain, upto = Rules(), Rules(canonical=True)
    assert prove.kernel_ahead(None, plain, None) is None
    found["coqc"] = "/x/coqc"
    assert [prove.kernel_ahead(w, plain, None) for w in (None, "coq", "lean")] == ["Coq", "Coq", None]
    assert prove.kernel_ahead(None, plain, None, coqchk=True) is None    # coqchk asked for and missing
    found.update(coqc=None, lake="/x/lake")
    assert [prove.kernel_ahead(w, plain, None) for w in (None, "coq", "lean")] == ["Lean", None, "Lean"]
    assert prove.kernel_ahead(None, plain, GENERATED) == "Lean"
    assert prove.kernel_ahead(None, plain, "/tmp/elsewhere") is None     # lake builds only the library's folder
    assert prove.kernel_ahead(None, upto, None) is None                  # up to column order: not Lean's


def test_full_reference_reaches_the_check(monkeypatch, tmp_path):
    seen = []

    def prepare(source, rules, out_dir, max_states, progress, say, memory, tmp, on_disk, work_dir, kernel, done):
        seen.append(kernel)
        done.close()
        return prove.Prepared(None, None, "x", verdict="unknown")
    monkeypatch.setattr(prove, "prepare", prepare)
    monkeypatch.setattr(prove, "kernel_ahead", lambda *a: "Coq")
    for full in (False, True):
        assert prove.prove(load(deal=7), Rules(cells=0), str(tmp_path), say=lambda t: None,
                           full_reference=full) == prove.REFUSED
    assert seen == ["Coq", None]
    assert all("--full-reference" in make_n(t, "FULL_REFERENCE=1").stdout for t in ("prove", "prove-coq"))
    assert "--full-reference" not in make_n("prove", "FULL_REFERENCE=0").stdout
    p = make_n("prove", "FULL_REFERENCE=yes")
    assert p.returncode != 0 and "FULL_REFERENCE may only be 1 or 0, got 'yes'" in p.stderr


# -- prove on a winnable start -------------------------------------------------------------------------------

# `certgen prove` on a winnable start: an enumeration and the solver try first, each with a cheap limit; a
# replay-verified line ends prove in one line naming the prove-win command, exit status 4, without the whole
# enumeration (deal 5's took 3.6 GB and 23 s, then said "nothing to prove: the verdict is unknown"). And the
# default limits fit in a few GB, their memory stated in --help.


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
    p = _run("prove", *args, "--out-dir", str(out), "--lean-dir", str(tmp_path / "lean"), module="certgen")
    assert p.returncode == prove.WINNABLE == 4, (p.stdout, p.stderr)
    lines = p.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(words) and lines[0].endswith(command), lines
    assert "replayed against the spec rules" in lines[0]
    assert not out.exists()             # nothing enumerated, nothing written


def test_prove_enumerates_a_winnable_start_only_up_to_the_solvers_limit(monkeypatch, tmp_path):
    seen, explore = [], prove.search.explore

    def bounded(*a, **k):
        seen.append(k.get("max_states"))
        return explore(*a, **k)
    monkeypatch.setattr(prove.search, "explore", bounded)
    monkeypatch.setattr(prove, "PROVE_QUICK_SOLVE_STATES", 10)     # a line the quick try does not find
    said = []
    assert prove.prove(prove.load(deal=5), prove.STANDARD, str(tmp_path), str(tmp_path), say=said.append) == 4
    assert len(said) == 1
    assert seen and all(m is not None and m <= limits.PROVE_FIRST_SOLVE_STATES for m in seen)


def test_a_winning_line_found_at_once_needs_no_enumeration(monkeypatch, tmp_path):
    # deal 5's line takes the solver 430 positions; the enumeration up to a million before it took half a second
    monkeypatch.setattr(prove.search, "explore", lambda *a, **k: pytest.fail("the enumeration ran"))
    said = []
    assert prove.prove(prove.load(deal=5), prove.STANDARD, str(tmp_path), str(tmp_path), say=said.append) == 4
    assert said[0].startswith("deal 5 is winnable (a line of ")


def test_an_unwinnable_start_enumerated_within_the_limit_needs_no_solver(monkeypatch, tmp_path, no_lean):
    # the solver's try (405,246 positions for #11982, half a second) came before the enumeration that proves
    # the start unwinnable (84,767); enumerated first, a complete set without a won position is the certificate's,
    # and the solver runs only its quick try
    solve = prove.solve

    def quick_only(*a, **k):
        assert k["max_states"] <= limits.PROVE_QUICK_SOLVE_STATES, "the solver ran past its quick try"
        return solve(*a, **k)
    monkeypatch.setattr(prove, "solve", quick_only)
    monkeypatch.setattr(prove.coqcheck, "find_coqc", lambda: None)
    said = []
    assert prove.prove(load(deal=7), Rules(cells=0), str(tmp_path), say=said.append) == prove.NOT_AVAILABLE
    assert said[1].startswith("deal 7 (0 free cells): unwinnable — all ") and (tmp_path / "Deal7Cells0.cert").exists()
    assert any(line.startswith("  valid for deal 7 under the rules with 0 free cells") for line in said)


def test_an_unwinnable_deal_is_still_proven(proven7):
    # deal 7 with no free cell is unwinnable: the solver's try says so (or nothing), and prove goes on
    out, status, said = proven7
    assert "2/4 check: the independent Python checker (the transliterated Lean spec) on every member" in said
    assert os.path.exists(out / "Deal7Cells0.cert")
    assert said[-2] == "Lean: not available (LEAN_BOOTSTRAP=0) — nothing checked by Lean; the modules are in " \
        + str(out / "lean")
    assert status == 0 and said[-1].startswith("proven by Coq: freecell_7_unwinnable : forall s, Reachable "
                                               "(rules 0 false 0) (msDeal 7) s -> ~ Won s (coqc ")


def test_exit_status_4_is_documented():
    text = certgen_cli.__doc__ + certgen_cli.build_parser().description
    assert re.search(r"\b4 \(prove\) the start is winnable", " ".join(text.split()))


def test_default_limits_fit_in_a_few_gigabytes():
    assert limits.EXPLORE_STATES * limits.COMMAND_BYTES_PER_POSITION <= 2e9
    for module, command in (("solver", "explore"), ("certgen", "prove"), ("certgen", "build")):
        p = _run(command, "--help", module=module, env=dict(os.environ, COLUMNS="400"))
        assert "default 20,000,000: at most 1.8 GB; a bigger K needs about 90 bytes a position" in p.stdout, p.stdout
