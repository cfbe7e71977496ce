"""A proof tool must not be talked into a false theorem (issue 31), the Coq side: the one gate for user text
(certgen/usertext.py), the driver that checks a module's statement apart from the module, `Print Assumptions`
read with types, the pinned library files, `audit-coq` and `--coqchk`. The modules compiled here are deal
#1 with no free cell (1 position) and boards with its layout, so each coqc run is short."""
import errno
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from certgen import certificate, coq, coqcheck, usertext
from certgen.paths import COQ_SRC
from solver import deals, search, spec
from solver.errors import FreecellError
from solver.rules import Rules

from helpers import ROOT

COQC = shutil.which("coqc")
needs_coqc = pytest.mark.skipif(COQC is None, reason="no coqc: install Debian's coq (apt-get install -y coq)")

# issue 31, item 1: a board file's name that made prove-coq print "proven" for deal 1 resting on an axiom (its
# notations written for the names the module's last proof uses)
INJECTION = ('" *) From Coq Require Import NArith. From FreeCell Require Import Spec. Axiom add:forall P:Prop,P. '
             'Definition start:=msDeal 1. Notation hashKey:=0. Notation search_ok:=0. '
             'Notation unwinnable_of_search:=(fun _ _ _ _=>add _). (*')
HOSTILE = [INJECTION, "*)", "(*", 'a"b', "-/", "/-", "--", "x\nAxiom bad : False.\n", "x\r\n(* y",
           "ＡＸＩＯＭ ꓮ ℂ ∗) ❨∗", "a" * 4000, "\\\" *) Axiom z : False. (* \\\"", "`tick` [x] {y} <z>", "é\u202eevil"]


def one_position_cert(source=None):
    """Deal #1 with no free cell: no legal move, one position (as a deal, or as a board of its layout)."""
    pos = deals.ms_deal(1)
    res = search.explore(pos, Rules(cells=0))
    assert res.complete and not res.won and res.states == 1
    return certificate.make(source or {"kind": "ms", "deal": 1}, {"cells": 0, "foundation_return": False}, pos,
                            res.records())


def board_cert(name):
    return one_position_cert({"kind": "board", "name": name})


@pytest.fixture(scope="module")
def out(tmp_path_factory, coq_library):
    """One output folder for the module, the run's compiled Coq library in it."""
    return coq_library(tmp_path_factory.mktemp("coq-trust"))


def check(path, ctx, out_dir, statement=coq.UNWINNABLE, **kw):
    said = []
    status, run = coqcheck.check_file(path, ctx, out_dir, COQC, statement, say=said.append, **kw)
    return status, run, "\n".join(said)


# -- 1. the gate ---------------------------------------------------------------------------------------------

def test_the_gate_lets_through_a_short_plain_alphabet():
    for name in HOSTILE:
        safe = usertext.user_text(name)
        assert set(safe) <= usertext.ALLOWED and len(safe) <= usertext.LIMIT
        for bad in ("(*", "*)", '"', "/", "\n", "\r", "`", "\\"):
            assert bad not in safe
    assert usertext.ALLOWED == set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.,#:=+-")
    assert usertext.user_text("SOL1-freecell-cells=4-N7 #3, v1.2") == "SOL1-freecell-cells=4-N7 #3, v1.2"
    assert usertext.user_text("(*x*)") == "__x__"
    assert usertext.user_text("a" * 4000) == "a" * 97 + "..."


def test_no_user_text_reaches_a_coq_module_but_through_the_gate():
    # the Coq modules of boards named by each hostile name are the same text but for the gated name
    plain, _ = coq.cert_module(board_cert("plain"), stem="B")
    for name in HOSTILE:
        cert = board_cert(name)
        text, ctx = coq.cert_module(cert, stem="B")
        assert text == plain.replace("The position plain", "The position " + usertext.user_text(cert.label()))
        # comments open and close where the template's do
        assert '"' not in text and text.count("(*") == text.count("*)") == plain.count("(*")


@needs_coqc
def test_hostile_names_compile_and_their_statement_is_checked(out):
    # a board named by the injection of issue 31: the file holds the gated name, coqc compiles it, and the
    # driver proves the statement about the board's layout written out (deal 1's, a literal position)
    for i, name in enumerate([INJECTION, "*) (* \" -/ /- --\n"]):
        path, ctx = coq.render_cert(board_cert(name), out, stem=f"Hostile{i}")
        status, run, said = check(path, ctx, out)
        assert status == 0 and run.only_primitives, said
        assert said.splitlines()[-1].startswith("proven by Coq: position_unwinnable : forall s, Reachable "
                                                "(rules 0 false 0) start s -> ~ Won s (coqc ")
        driver = open(coq.driver_path(path), encoding="utf-8").read()
        assert "(FreeCell.Spec.state\n    [[FreeCell.Spec.card 6 3; FreeCell.Spec.card 6 1; FreeCell.Spec.card 3 3;" \
            in driver and "[]\n    [0; 0; 0; 0]) s -> ~ FreeCell.Spec.Won s." in driver
        assert re.search(r"\(FreeCell\.Spec\.rules 0 false 0\) \(FreeCell\.Spec\.state", driver)
        assert not re.search(r"[^A-Za-z0-9_.,;:()\[\]%~>=\-\s*]", driver.split("*)", 1)[1])  # no user text


@needs_coqc
@pytest.mark.slow
def test_every_hostile_name_compiles_and_is_checked(out):
    for i, name in enumerate(HOSTILE):
        path, ctx = coq.render_cert(board_cert(name), out, stem=f"AllHostile{i}")
        status, run, said = check(path, ctx, out)
        assert status == 0 and run.only_primitives, said


# -- 2. the statement, checked apart from the module ---------------------------------------------------------

def injected(ctx, text, name=INJECTION):
    """A module as the renderer wrote it before the gate: the board's name raw in the title, twice."""
    lines = text.split("\n")
    assert lines[1].startswith("(* The position ")
    lines[1] = f"(* The position {name}, {ctx['rules_text']}: {ctx['state_count']} positions. *)"
    return "\n".join(lines).replace(f"(** {ctx['title']} cannot", f"(** The position {name} cannot")


@needs_coqc
@pytest.mark.parametrize("name,reason", [
    (INJECTION, "(ASSUMES Injected.add : forall P : Prop, P): NOT proven"),
    (INJECTION.replace("msDeal 1", "msDeal 2"), "the statement check failed"),
    (INJECTION.replace(" Definition start:=msDeal 1.", ""), "coqc failed"),
])
def test_the_injection_of_issue_31_is_refused(out, name, reason):
    # the file the renderer wrote before the gate, for a board with deal 1's layout: with `start := msDeal 1`
    # (the layout itself) it compiles and the statement matches, but it rests on the axiom `add`; with
    # `msDeal 2` the driver's statement about the board's literal position does not match; with no `start`
    # coqc refuses it. Each time: NOT proven, status 1
    path, ctx = coq.render_cert(board_cert(name), out, stem="Injected")
    text = injected(ctx, open(path, encoding="utf-8").read(), name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    status, run, said = check(path, ctx, out)
    assert status == 1 and "proven by Coq" not in said and said.endswith("NOT proven") and reason in said, said


@needs_coqc
def test_an_axiom_named_like_a_primitive_is_refused(out):
    # the module proves its real statement from an axiom called `add`: the kernel accepts the definition, the
    # driver's Print Assumptions lists `Generated.<Stem>.add`-ish with its type, which is no primitive's
    path, ctx = coq.render_cert(one_position_cert(), out, stem="AxiomAdd")
    text = open(path, encoding="utf-8").read()
    text = text.replace("Import ListNotations.", "Axiom add : forall P : Prop, P.\nImport ListNotations.")
    text, n = re.subn(r"Proof\. exact \(unwinnable_of_search .*?\)\. Qed\.", "Proof. exact (add _). Qed.", text)
    assert n == 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    status, run, said = check(path, ctx, out)
    assert status == 1 and "(ASSUMES AxiomAdd.add : forall P : Prop, P): NOT proven" in said, said



@needs_coqc
def test_an_axiom_in_a_library_named_like_a_primitive_s_is_refused(tmp_path):
    # files planted in <out>/coq: Generated.CarryType (`carry A := False`) and Generated.PrimInt63 (`int := unit`,
    # an axiom `addc : int -> int -> CarryType.carry int`, that is unit -> unit -> False); the module proves deal
    # 1 unwinnable under the standard rules (false) from it. Named by its shortest suffix, the axiom would print
    # as `PrimInt63.addc : PrimInt63.int -> PrimInt63.int -> CarryType.carry PrimInt63.int`, word for word a
    # primitive's signature; in the driver, where Coq's own primitives are imported, it cannot print bare.
    out = str(tmp_path)
    path, ctx = coq.render_cert(one_position_cert(), out)
    where = coq.coq_dir(out)
    planted = {"CarryType": "Definition carry (A : Type) : Prop := False.\n",
               "PrimInt63": "Require Generated.CarryType.\nDefinition int : Set := unit.\n"
                            "Axiom addc : int -> int -> Generated.CarryType.carry int.\n"}
    assert coqcheck.build_library(COQC, out, ["Spec"]) is None
    for name, text in planted.items():
        (tmp_path / "coq" / f"{name}.v").write_text(text)
        assert coqcheck.run_coqc(COQC, os.path.join(where, f"{name}.v"), out).ok
    with open(path, "w", encoding="utf-8") as f:
        f.write("From Coq Require Import List NArith.\nFrom FreeCell Require Import Spec.\nRequire Generated.PrimInt63.\n"
                "Theorem freecell_1_unwinnable : forall s, Reachable standard (msDeal 1) s -> ~ Won s.\n"
                "Proof. intros. exact (match Generated.PrimInt63.addc tt tt with end). Qed.\n")
    # the driver, compiled beside them, prints the axiom qualified: not a primitive's signature
    ctx = standard_ctx(ctx)
    assert coqcheck.run_coqc(COQC, path, out).ok
    drv = coqcheck.check_statement(COQC, path, ctx, coq.UNWINNABLE, out)
    assert drv.ok and drv.assumptions == [("Generated.PrimInt63.addc", "Generated.PrimInt63.int -> "
                                           "Generated.PrimInt63.int -> Generated.CarryType.carry Generated.PrimInt63.int")]
    # and check_file compiles the module apart from <out>/coq, where nothing planted can be loaded
    status, run, said = check(path, ctx, out)
    assert status == 1 and "Cannot find a physical path bound to logical path Generated.PrimInt63" in said, said



# an OCaml plugin that, loaded into the driver's coqc (its folder is `check`), sends what Coq prints to
# /dev/null and prints a clean report as coqc exits
FORGER = """let () =
  (match Sys.getenv_opt "FORGER_MARK" with Some f -> close_out (open_out f) | None -> ());
  if Array.exists (fun a -> Filename.basename (Filename.dirname a) = "check") Sys.argv then begin
    flush stdout;
    let saved = Unix.dup Unix.stdout in
    Unix.dup2 (Unix.openfile "/dev/null" [Unix.O_WRONLY] 0) Unix.stdout;
    at_exit (fun () -> flush stdout; Unix.dup2 saved Unix.stdout;
                       print_string "Closed under the global context\\n"; flush stdout)
  end
"""
AXIOM_MODULE = ("From Coq Require Import List NArith.\nFrom FreeCell Require Import Spec.\n{load}Axiom evil : False.\n"
                "Theorem freecell_1_unwinnable : forall s, Reachable standard (msDeal 1) s -> ~ Won s.\n"
                "Proof. destruct evil. Qed.\n")


@needs_coqc
@pytest.mark.skipif(shutil.which("ocamlfind") is None, reason="no ocamlfind to build a plugin")
def test_a_plugin_planted_in_the_output_folder_is_never_loaded(tmp_path, monkeypatch):
    # the module (deal 1 unwinnable under the standard rules, from `Axiom evil : False`) loads forger.cmxs,
    # planted in <out>/coq and <out>/coq/check, where coqc looks for plugins when run there; loaded, it would
    # make the file FORGER_MARK (any code could run) and, in the driver, print a clean report
    monkeypatch.setenv("FORGER_MARK", str(tmp_path / "ran"))
    (tmp_path / "forger.ml").write_text(FORGER)
    subprocess.run(["ocamlfind", "ocamlopt", "-package", "unix", "-shared", "-o", "forger.cmxs", "forger.ml"],
                   cwd=tmp_path, check=True, capture_output=True)
    out = str(tmp_path / "o")
    path, ctx = coq.render_cert(one_position_cert(), out)
    os.makedirs(os.path.join(coq.coq_dir(out), "check"))
    for where in ("", "check"):
        shutil.copy(tmp_path / "forger.cmxs", os.path.join(coq.coq_dir(out), where))
    with open(path, "w", encoding="utf-8") as f:
        f.write(AXIOM_MODULE.format(load='Declare ML Module "forger:forger.plugin".\n'))
    status, run, said = check(path, standard_ctx(ctx), out)
    assert status == 1 and "Can't find file forger.cmxs on loadpath" in run.output and said.endswith("NOT proven"), said
    assert not os.path.exists(tmp_path / "ran")


@needs_coqc
@pytest.mark.skipif(shutil.which("coqchk") is None, reason="no coqchk")
def test_coqchk_refuses_an_axiom_outside_coq_s_library(tmp_path):
    # what coqchk reads does not depend on what coqc printed: the module's axiom is in its summary
    out = str(tmp_path)
    path, ctx = coq.render_cert(one_position_cert(), out)
    with open(path, "w", encoding="utf-8") as f:
        f.write(AXIOM_MODULE.format(load=""))
    status, run, said = check(path, standard_ctx(ctx), out)
    assert status == 1 and "ASSUMES Deal1Cells0.evil : False" in said, said      # the driver's report
    chk = coqcheck.run_coqchk(shutil.which("coqchk"), path, out, ["Spec"])
    assert "Generated.Deal1Cells0.evil" in coqcheck.coqchk_axioms(chk.output) and not chk.ok, chk.output[-2000:]
    assert chk.output.endswith("Error: axioms outside Coq's standard library: Generated.Deal1Cells0.evil\n")


def shadowed(text, where):
    """The module of deal 1 with no free cell made to state `Reachable standard (msDeal 1)` (false: deal 1 is
    winnable) with `standard` meaning the rules with no free cell: defined in the module, or left to a
    library file (Search.v) that defines it."""
    text = text.replace("(rules 0 false 0)", "standard")
    if where == "module":
        text = text.replace("(** The search", "Definition standard := rules 0 false 0.\n(** The search", 1)
    return text


def standard_ctx(ctx):
    """What the shadowed file claims: the standard rules."""
    return dict(ctx, **coq._rules_context(Rules()))


@needs_coqc
def test_standard_shadowed_in_the_module_is_refused(out, tmp_path):
    cert = one_position_cert()
    path, ctx = coq.render_cert(cert, out)          # Deal1Cells0.v, the name audit-coq expects
    text = shadowed(open(path, encoding="utf-8").read(), "module")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    assert coqcheck.build_library(COQC, out) is None and coqcheck.run_coqc(COQC, path, out).ok   # coqc alone accepts it
    status, run, said = check(path, standard_ctx(ctx), out)
    assert status == 1 and "the statement check failed" in said and said.endswith("NOT proven"), said
    # audit-coq names the line that differs from the rendering of its certificate
    certificate.write(str(tmp_path / "Deal1Cells0.cert"), cert)
    said = []
    assert coqcheck.audit_file(path, str(tmp_path / "Deal1Cells0.cert"), COQC, said.append) == 1
    rendered = "(** The search of `Search.v` from the start, run by the kernel's virtual machine (`vm_compute`)"
    assert said == [f"{path} is not the module rendered from {tmp_path / 'Deal1Cells0.cert'}: line 7 is "
                    f"'Definition standard := rules 0 false 0.', the rendering has {ascii(rendered[:70])}: NOT audited"]


def edited_library(tmp_path, monkeypatch, name, tail):
    """coq/FreeCell/ copied, with ``tail`` appended to ``name``.v, in place of the library."""
    src = tmp_path / "FreeCell"
    shutil.copytree(COQ_SRC, src)
    with open(src / f"{name}.v", "a", encoding="utf-8") as f:
        f.write(tail)
    monkeypatch.setattr(coqcheck, "COQ_SRC", str(src))
    return src


@pytest.fixture
def evil_search(tmp_path, monkeypatch):
    """coq/FreeCell/ copied, with `Definition standard := rules 0 false 0.` at the end of Search.v."""
    return edited_library(tmp_path, monkeypatch, "Search", "\nDefinition standard := rules 0 false 0.\n")


@needs_coqc
def test_standard_shadowed_at_the_end_of_search_v_is_refused(tmp_path, evil_search, monkeypatch, coq_library):
    cert = one_position_cert()
    work = coq_library(tmp_path / "o")
    path, ctx = coq.render_cert(cert, work, stem="ShadowSearch")
    text = shadowed(open(path, encoding="utf-8").read(), "search")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    evil = coqcheck.hashlib.sha256((evil_search / "Search.v").read_bytes()).hexdigest()
    refused = f"coq/FreeCell/Search.v is not the pinned file (sha256 {evil[:16]}..., pinned {coqcheck.PINNED['Search'][:16]}...)"
    # prove-coq's check refuses the edited file before compiling anything; audit-coq names it
    status, run, said = check(path, standard_ctx(ctx), work)
    assert status == 1 and run is None and said.splitlines()[-1] == (
        f"{refused}: a library file that is not the reviewed one (certgen/coqcheck.py PINNED): NOT proven"), said
    certificate.write(str(tmp_path / "ShadowSearch.cert"), cert)
    said = []
    assert coqcheck.audit_file(path, str(tmp_path / "ShadowSearch.cert"), COQC, said.append) == 1
    assert said == [f"{path}: {refused}: NOT audited"]
    # and were it pinned, the driver would refuse it: coqc accepts the module, the statement does not match
    monkeypatch.setitem(coqcheck.PINNED, "Search", evil)
    status, run, said = check(path, standard_ctx(ctx), work)
    assert run.ok and status == 1, said
    assert "the statement check failed" in said and said.endswith("NOT proven"), said


def test_an_edited_spec_is_refused_before_anything_is_compiled(tmp_path, monkeypatch):
    edited_library(tmp_path, monkeypatch, "Spec", "\n")
    path, ctx = coq.render_cert(one_position_cert(), str(tmp_path / "o"))
    said = []
    assert coqcheck.check_file(path, ctx, str(tmp_path / "o"), "coqc-never-run", coq.UNWINNABLE, say=said.append)[0] == 1
    assert said[-1].startswith("coq/FreeCell/Spec.v is not the pinned file") and said[-1].endswith("NOT proven")
    assert not os.path.exists(coqcheck.library_dir(str(tmp_path / "o")))


def test_the_library_files_have_their_pinned_digests():
    assert coqcheck.library_changes() == []
    assert sorted(coqcheck.PINNED) == sorted(coqcheck.LIBRARY) == sorted(n[:-2] for n in os.listdir(COQ_SRC) if n.endswith(".v"))


def test_the_driver_holds_identifiers_only():
    with pytest.raises(ValueError):
        coq.driver_text("Generated.X", "thm. Axiom a : False", "True")
    with pytest.raises(ValueError):
        coq.driver_text("Generated.X Y", "thm", "True")
    ctx = {"rules_full": "(FreeCell.Spec.rules 4 false 0)", "start_full": "(FreeCell.Spec.msDeal 11982%N)"}
    assert coq.full_statement(coq.UNWINNABLE, ctx) == (
        "forall s, FreeCell.Spec.Reachable (FreeCell.Spec.rules 4 false 0) (FreeCell.Spec.msDeal 11982%N) s -> "
        "~ FreeCell.Spec.Won s")


# -- 3. Print Assumptions, read with types --------------------------------------------------------------------

@pytest.mark.parametrize("output", [
    "Axioms:\nchecked relies on an unsafe hierarchy.\n",
    "Axioms:\nEvil.loop is assumed to be guarded.\n",
    "Axioms:\nPrimInt63.int : Set\nTheory:\nType hierarchy is collapsed (logic is inconsistent)\n",
    "Axioms:\n",
    "Closed under the global context\nAxioms:\nPrimInt63.int : Set\n",
    "Axioms:\n  : Set\n",
])
def test_an_unexpected_report_is_no_report(output):
    assert coqcheck.parse_assumptions(output) is None


def test_a_primitive_name_with_another_type_is_refused():
    run = coqcheck.CoqRun(True, 0, 0, "", "", [("add", "forall P : Prop, P"), ("int", "Set")])
    assert not run.only_primitives and run.unexpected == ["add : forall P : Prop, P"]
    # a qualified name is an object of another file than Coq's, which the driver imports
    assert coqcheck.CoqRun(True, 0, 0, "", "", [("PrimInt63.add", coqcheck.PRIMITIVE_SIGNATURES["add"])]).unexpected


@needs_coqc
def test_the_primitive_signatures_are_the_ones_coqc_prints(tmp_path):
    # every `Primitive` of Coq's PrimInt63 and PArray but max_length (no assumption), as coqc prints them
    where = subprocess.run([COQC, "-where"], capture_output=True, text=True).stdout.strip()
    names = []
    for lib, rel in (("Coq.Numbers.Cyclic.Int63.PrimInt63", "Numbers/Cyclic/Int63/PrimInt63.v"),
                     ("Coq.Array.PArray", "Array/PArray.v")):
        with open(os.path.join(where, "theories", rel), encoding="utf-8") as f:
            names += [f"@{lib}.{n}" for n in re.findall(r"^Primitive (\w+)", f.read(), re.M) if n != "max_length"]
    path = tmp_path / "Prims.v"
    path.write_text("Require Coq.Numbers.Cyclic.Int63.PrimInt63 Coq.Array.PArray.\n"
                    f"Definition all := ({', '.join(names)}).\n{coq.PRIMITIVE_IMPORTS}\nSet Printing Width 1000.\n"
                    "Print Assumptions all.\n")
    p = subprocess.run([COQC, "-q", str(path)], capture_output=True, text=True, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert dict(coqcheck.parse_assumptions(p.stdout)) == coqcheck.PRIMITIVE_SIGNATURES and len(names) == 38


# -- 4. audit-coq ----------------------------------------------------------------------------------------------

@needs_coqc
def test_audit_coq_refuses_in_one_line(tmp_path):
    # refusals come before anything is compiled: a changed digit of the module, a module audited against another
    # certificate, a missing file
    cert = one_position_cert()
    certificate.write(str(tmp_path / "Deal1Cells0.cert"), cert)
    path, _ = coq.render_cert(cert, str(tmp_path))
    assert path == str(tmp_path / "coq" / "Deal1Cells0.v")
    text = open(path, encoding="utf-8").read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace("search_ok : checkSearch hashKey (rules 0", "search_ok : checkSearch hashKey (rules 1"))
    p = subprocess.run([sys.executable, "-m", "certgen", "audit-coq", path, "--cert", str(tmp_path / "Deal1Cells0.cert")],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 1 and len(p.stdout.strip().splitlines()) == 1 and "line 9 is 'Lemma search_ok : " \
        "checkSearch hashKey (rules 1 false 0) (msDeal 1) = t', the rendering has 'Lemma search_ok : checkSearch " \
        "hashKey (rules 0 false 0) (msDeal 1) = t'" in p.stdout, p.stdout
    other = str(tmp_path / "Other.cert")
    certificate.write(other, board_cert("b.txt"))
    said = []
    assert coqcheck.audit_file(path, other, COQC, said.append) == 1
    assert said == [f"{path}: {other} is the certificate of b.txt (its module is Boardc9fc6fd0Cells0.v), not of "
                    "this module: NOT audited"]
    p = subprocess.run([sys.executable, "-m", "certgen", "audit-coq", str(tmp_path / "coq" / "Nope.v")], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode != 0 and "Traceback" not in p.stderr and "no such file" in p.stderr


@needs_coqc
@pytest.mark.coq
def test_audit_coq_command(tmp_path):
    # an audit compiles the whole library again in a fresh folder (by design): the coq tier
    cert = one_position_cert()
    certificate.write(str(tmp_path / "Deal1Cells0.cert"), cert)
    path, _ = coq.render_cert(cert, str(tmp_path))
    p = subprocess.run([sys.executable, "-m", "certgen", "audit-coq", path], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.strip().splitlines()
    assert lines[0].startswith("audit-coq: ") and lines[0].endswith("coq/FreeCell/*.v have their pinned digests")
    assert lines[-1].startswith("proven by Coq: freecell_1_unwinnable : forall s, Reachable (rules 0 false 0) "
                                "(msDeal 1) s -> ~ Won s (coqc ")


# -- 5. coqchk ----------------------------------------------------------------------------------------------------

@needs_coqc
@pytest.mark.coq
@pytest.mark.skipif(shutil.which("coqchk") is None, reason="no coqchk")
def test_coqchk_checks_the_compiled_files_again(out):
    path, ctx = coq.render_cert(one_position_cert(), out, stem="Checked")
    status, run, said = check(path, ctx, out, coqchk=True)
    assert status == 0 and ", coqchk " in said.splitlines()[-1], said
    log = run.extra["coqchk"].output
    assert all(line in log for line in coqcheck.COQCHK_CLEAN) and "Coq.Numbers.Cyclic.Int63.PrimInt63.add" in log


# -- 6. Columns.v -------------------------------------------------------------------------------------------------

def test_columns_v_says_that_certup_to_v_checks_certificates_up_to_column_order():
    with open(os.path.join(COQ_SRC, "Columns.v"), encoding="utf-8") as f:
        head = f.read().split("*)", 1)[0]
    assert "no certificate of an enumeration up to column order is checked by Coq" not in head
    assert "`CertUpTo.v` checks a certificate up to" in " ".join(head.split()).replace("\n", " ")


def test_trust_md_says_what_an_attacker_who_controls_each_input_can_do():
    with open(os.path.join(ROOT, "docs", "TRUST.md"), encoding="utf-8") as f:
        text = f.read()
    table = text.split("## What an attacker who controls X can do", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| **")]
    assert [r.split("**")[1] for r in rows] == ["file names", "certificate bytes", "generated files",
                                                "`Decode.lean` / `Search.v`", "survey folders", "journals",
                                                "work folders", "the environment", "the play cache"]
    assert all(r.count(" | ") == 2 and r.endswith(" |") for r in rows)
    assert "audit-coq" in text and "--coqchk" in text and "PRIMITIVE_SIGNATURES" in text


# -- 6. prove-survey ----------------------------------------------------------------------------------------------

@needs_coqc
def test_prove_survey_refuses_a_certificate_under_other_rules_than_the_survey_s(tmp_path, coq_library):
    # a survey of deals 1-2 with no free cell; certs/Deal1Cells0.cert replaced by deal 1's certificate with
    # foundation returns (valid, and its theorem true, but not about the rules the survey and "proven: 1" name)
    from certgen import prove, survey
    d = str(tmp_path / "s")
    assert survey.run(1, 2, d, rules=Rules(cells=0))["certificates"] == ["Deal1Cells0.cert", "Deal2Cells0.cert"]
    other = Rules(cells=0, foundation_return=True)
    res = search.explore(deals.ms_deal(1), other)
    certificate.write(os.path.join(d, "certs", "Deal1Cells0.cert"), certificate.make(
        {"kind": "ms", "deal": 1}, other.to_dict(), deals.ms_deal(1), res.records()))
    said = []
    assert prove.prove_survey(d, coq_library(tmp_path / "o"), None, say=said.append, prover="coq") == prove.REFUSED
    assert "Deal1Cells0.cert: a certificate under other rules than the survey's (0 free cells): it proves nothing " \
           "about deal 1 here" in said
    assert said[-1] == "proven: 2; could not prove: 1" and not os.path.exists(tmp_path / "o" / "coq" / "Deal1Cells0FoundationReturn.v")


@needs_coqc
def test_a_spec_vo_put_in_the_library_cache_is_not_used(tmp_path):
    # <out>/coq-lib/Spec.vo replaced by one compiled from a Spec.v where `Won s := False`, its stamp kept; the
    # module claims deal 1 unwinnable under the standard rules (false) by `~ False`
    out = str(tmp_path / "o")
    path, ctx = coq.render_cert(one_position_cert(), out)
    lib = coqcheck.library_dir(out)
    assert coqcheck.build_library(COQC, out, ["Spec"]) is None
    evil = tmp_path / "Spec.v"
    won = "Definition Won (s : State) : Prop := home s = [13; 13; 13; 13]."
    evil.write_text(open(os.path.join(COQ_SRC, "Spec.v"), encoding="utf-8").read().replace(won, "Definition Won (s : State) : Prop := False."))
    subprocess.run([COQC, "-q", "-Q", lib, "FreeCell", "-o", os.path.join(lib, "Spec.vo"), str(evil)], check=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("From Coq Require Import List NArith.\nFrom FreeCell Require Import Spec.\n"
                "Theorem freecell_1_unwinnable : forall s, Reachable standard (msDeal 1) s -> ~ Won s.\n"
                "Proof. intros s _ h; exact h. Qed.\n")
    status, run, said = check(path, standard_ctx(ctx), out)
    assert status == 1 and "coqc failed" in said and "NOT proven" in said, said


FORGED_SEARCH = """From Coq Require Import List Bool Arith NArith PArith PrimInt63 Uint63.
From FreeCell Require Import Spec Fast.
Definition flag : int := 19088743%uint63.
Definition checkSearch (hash : FState -> positive) (r : Rules) (s0 : State) : bool := (flag =? 0)%uint63.
Theorem unwinnable_of_search hash r s0 : checkSearch hash r s0 = true -> forall s, Reachable r s0 s -> ~ Won s.
Proof. unfold checkSearch, flag; vm_compute; discriminate. Qed.
Definition hashKey (s : FState) : positive := xH.
"""


@needs_coqc
def test_a_search_vo_crafted_in_the_library_folder_is_not_used(tmp_path):
    # <out>/coq-lib/Search.vo replaced, its stamp kept, by one whose theorem was proved for `flag` = 19088743
    # (0x1234567) and whose bytes then say `flag` = 0: Coq does not check a .vo again when it loads it, so
    # `checkSearch` is true and the theorem is taken as proved. The start is won (every card home): false.
    out = str(tmp_path / "o")
    won = spec.State(tuple(() for _ in range(8)), (), (13, 13, 13, 13))
    inputs = coq.CertInputs(won, 1, Rules(), None, "won")
    ctx = coq.cert_context(inputs, "Won")
    path = os.path.join(coq.coq_dir(out), ctx["name"] + ".v")
    os.makedirs(os.path.dirname(path))
    with open(path, "w", encoding="utf-8") as f:
        f.write(coq.render_text("Deal.v.j2", **ctx))
    assert coqcheck.build_library(COQC, out) is None
    lib = coqcheck.library_dir(out)
    (tmp_path / "Search.v").write_text(FORGED_SEARCH)
    vo = os.path.join(lib, "Search.vo")
    subprocess.run([COQC, "-q", "-Q", lib, "FreeCell", "-o", vo, str(tmp_path / "Search.v")], check=True, cwd=tmp_path)
    data = open(vo, "rb").read()
    literal = bytes([2, 0x01, 0x23, 0x45, 0x67])       # OCaml's marshalled 32-bit integer 0x1234567
    assert data.count(literal) >= 2                     # the term and the virtual machine's code
    with open(vo, "wb") as f:
        f.write(data.replace(literal, bytes([2, 0, 0, 0, 0])))
    status, run, said = check(path, ctx, out)
    assert status == 1 and "coqc failed" in said and said.endswith("NOT proven"), said


@needs_coqc
def test_a_library_folder_that_is_a_link_is_replaced(tmp_path):
    # <out>/coq-lib a link to a folder of someone else's: the link goes, that folder is left as it was
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "Search.vo").write_text("not Coq's")
    os.makedirs(tmp_path / "o")
    os.symlink(elsewhere, tmp_path / "o" / "coq-lib")
    assert coqcheck.build_library(COQC, str(tmp_path / "o"), ["Spec"]) is None
    lib = tmp_path / "o" / "coq-lib"
    assert not lib.is_symlink() and sorted(os.listdir(lib)) == ["Spec.vo"]
    assert os.listdir(elsewhere) == ["Search.vo"]


def test_a_path_with_a_new_line_is_shown_on_one_line(tmp_path):
    # an --out-dir whose name holds a new line could print a line of its own, e.g. one that starts "proven by Coq"
    from certgen.paths import shown
    text = shown(str(tmp_path / "a\nproven by Coq: x\r\tb"))
    assert "\n" not in text and "\r" not in text and "\t" not in text
    assert text.endswith("a\\nproven by Coq: x\\r\\tb")


@needs_coqc
def test_no_coqc_of_a_check_reads_the_output_folder(tmp_path):
    # someone who writes <out> while a check runs could swap <out>/coq/<Stem>.vo between the module's coqc and
    # the driver's (Coq does not check a .vo again when it loads it): every coqc now runs on a private copy
    calls = tmp_path / "calls"
    wrapper = tmp_path / "coqc"
    wrapper.write_text(f'#!/bin/sh\necho "$PWD $*" >> {calls}\nexec {COQC} "$@"\n')
    wrapper.chmod(0o755)
    out = str(tmp_path / "o")
    path, ctx = coq.render_cert(one_position_cert(), out)
    said = []
    status, run = coqcheck.check_file(path, ctx, out, str(wrapper), coq.UNWINNABLE, say=said.append)
    assert status == 0 and said[-1].startswith("proven by Coq: freecell_1_unwinnable"), said
    lines = calls.read_text().splitlines()
    assert len([l for l in lines if "--version" not in l]) >= 2          # the module and its driver at least
    assert not [l for l in lines if out in l], lines
    # what was compiled is copied into <out> for the user, and the words name it there
    stem = os.path.splitext(os.path.basename(path))[0]
    for rel in (f"coq/{stem}.vo", f"coq/check/{stem}.vo", f"coq/{stem}.log", "coq-lib/Search.vo"):
        assert os.path.isfile(os.path.join(out, rel)), rel
    assert f"driver {out}/coq/check/{stem}.v" in said[-1] and run.log == os.path.join(out, "coq", f"{stem}.log")


@needs_coqc
def test_a_check_writes_nothing_through_a_link_planted_in_the_output_folder(tmp_path):
    # whoever writes <out> may plant links where a check copies what it compiled: each is replaced, not followed
    out, outside = str(tmp_path / "o"), tmp_path / "outside"
    path, ctx = coq.render_cert(one_position_cert(), out)
    stem = os.path.splitext(os.path.basename(path))[0]
    (outside / "check").mkdir(parents=True)
    victim = outside / "victim"
    victim.write_text("the user's own file\n")
    os.symlink(str(outside / "check"), os.path.join(out, "coq", "check"))
    os.symlink(str(victim), os.path.join(out, "coq", f"{stem}.log"))
    said = []
    status, run = coqcheck.check_file(path, ctx, out, COQC, coq.UNWINNABLE, say=said.append)
    assert status == 0 and said[-1].startswith("proven by Coq: freecell_1_unwinnable"), said
    assert os.listdir(outside / "check") == [] and victim.read_text() == "the user's own file\n"
    for rel in (f"coq/check/{stem}.vo", f"coq/check/{stem}.v", f"coq/{stem}.log"):
        p = os.path.join(out, rel)
        assert os.path.isfile(p) and not os.path.islink(p) and not os.path.islink(os.path.dirname(p)), rel


@needs_coqc
def test_an_output_folder_that_cannot_take_the_compiled_files_is_one_line_and_nothing_proven(tmp_path, monkeypatch):
    out = str(tmp_path / "o")
    path, ctx = coq.render_cert(one_position_cert(), out)

    write = coqcheck.write_atomic

    def full(p, data):                  # the check's own folder has room; the output folder is full
        if p.startswith(out):
            raise OSError(errno.ENOSPC, "No space left on device", p)
        return write(p, data)
    monkeypatch.setattr(coqcheck, "write_atomic", full)
    said = []
    with pytest.raises(FreecellError, match=r"could not be copied into the output folder \(No space left on device\): "
                                            r"nothing is claimed"):
        coqcheck.check_file(path, ctx, out, COQC, coq.UNWINNABLE, say=said.append)
    assert not [s for s in said if "proven by Coq" in s], said


@needs_coqc
def test_sigterm_to_prove_coq_stops_coqc_and_leaves_no_private_folder(tmp_path):
    # SIGTERM ended prove-coq at once: coqc ran on, orphaned, and the check's private folder stayed in /tmp
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = subprocess.Popen([sys.executable, "-m", "certgen", "prove-coq", "--deal", "11982", "--out-dir",
                          str(tmp_path / "o")], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "TMPDIR": str(tmp)}, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not subprocess.run(["pgrep", "-g", str(p.pid), "coqc"], capture_output=True).stdout:
            assert p.poll() is None and time.monotonic() < deadline, p.communicate()
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        time.sleep(0.5)
        left = subprocess.run(["pgrep", "-g", str(p.pid)], capture_output=True, text=True).stdout.split()
        if left:
            os.killpg(p.pid, signal.SIGKILL)
    assert p.returncode == 130 and err.splitlines()[-1] == "stopped (SIGTERM) before an answer, nothing is claimed", \
        (p.returncode, err)
    assert left == [] and os.listdir(tmp) == []
