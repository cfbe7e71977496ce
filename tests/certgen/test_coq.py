"""The Coq check (coq/FreeCell/, certgen/coq.py): the module, the Coq spec in step with spec.py, and
coqc on small certificates, a winnable start the search refuses and winning lines. Tests that run coqc are skipped where it is
missing ("no coqc"); the default tier compiles the library and two small certificates, the other coqc runs are
marked coq and the long ones (deal 11982 itself) slow."""
import os
import re
import subprocess
import sys

import pytest

from certgen import certificate, coq, coqcheck, specdoc
from solver import deals, packed, search, spec
from solver.lines import step_indices
from solver.rules import Rules

from helpers import ROOT
from helpers.coq import COQC, coqc_file, needs_coqc, state_term, statement_checks

def cert_of(position, cells=4, foundation_return=False, source=None, deal=None):
    rules = {"cells": cells, "foundation_return": foundation_return}
    res = search.explore(position, Rules(**rules))
    assert res.complete and not res.won
    return certificate.make(source or {"kind": "ms", "deal": deal}, rules, position, res.records())


def deal_cert(deal, cells=4, foundation_return=False):
    return cert_of(deals.ms_deal(deal), cells, foundation_return, deal=deal)


@pytest.fixture(scope="module")
def out(tmp_path_factory, coq_library):
    """One output folder for the module, the run's compiled Coq library in it."""
    return coq_library(tmp_path_factory.mktemp("coq-out"))


def coqc_text(out_dir, name, text):
    """coqc on ``text`` written to <out_dir>/coq/<name>.v."""
    path = os.path.join(out_dir, "coq", name + ".v")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return coqc_file(path, out_dir)


def proven(path, ctx, out_dir, statement=coq.UNWINNABLE):
    """The module at ``path`` compiled and its statement checked through the driver: (status, run, words)."""
    said = []
    status, run = coqcheck.check_file(path, ctx, out_dir, COQC, statement, say=said.append)
    return status, run, "\n".join(said)


# -- the module (no coqc needed) ------------------------------------------------------------------------

def test_the_module_of_11982_holds_no_positions(cert11982):
    text, ctx = coq.cert_module(cert11982)
    assert ctx["state_count"] == 84767 and len(text) < 2000
    assert "Lemma search_ok : checkSearch hashKey standard (msDeal 11982) = true.\n" \
        "Proof. vm_cast_no_check (eq_refl true). Qed." in text
    assert "Proof. exact (unwinnable_of_search hashKey standard (msDeal 11982) search_ok). Qed." in text
    assert "the certificate the fast checker accepted holds 84767 positions" in text


def test_print_assumptions_is_read():
    # the whole output must be one report; entries are `name : type`, a long one over several lines
    assert coqcheck.parse_assumptions("Closed under the global context\n") == []
    assert coqcheck.parse_assumptions("foo\nClosed under the global context\n") is None
    out = "Axioms:\nsub : int -> int -> int\nset\n  : forall A : Type," \
          "\n    array A -> int -> A -> array A\nclassic : forall P : Prop, P \\/ ~ P\n"
    assert coqcheck.parse_assumptions(out) == [
        ("sub", "int -> int -> int"),
        ("set", "forall A : Type, array A -> int -> A -> array A"),
        ("classic", "forall P : Prop, P \\/ ~ P")]
    run = coqcheck.CoqRun(True, 0, 0, out, "", coqcheck.parse_assumptions(out))
    assert not run.only_primitives and coqcheck.assumptions_words(run) == "ASSUMES classic : forall P : Prop, P \\/ ~ P"
    assert coqcheck.parse_assumptions("no report") is None


def test_rules_and_start_in_coq():
    assert coq.rules_coq(spec.STANDARD) == "standard"
    assert coq.rules_coq(spec.Rules(cells=1, foundation_return=True)) == "(rules 1 true 0)"
    text = coq.state_coq(spec.ms_deal(11982))
    assert text.splitlines()[1].startswith("    [[card 13 0; card 11 1; card 6 0;")
    assert "(* free cells: none *)" in text and text.endswith("[0; 0; 0; 0]")


# -- the Coq spec against Lean's and Python's (no coqc needed) -------------------------------------------

def test_every_lean_definition_has_its_coq_twin_in_the_same_order():
    lean = [name for name, _ in specdoc.lean_chunks(open(specdoc.SPEC_LEAN, encoding="utf-8").read())]
    coqs = list(specdoc.coq_chunks(open(specdoc.SPEC_COQ, encoding="utf-8").read()))
    assert [n for n in coqs if n in lean] == lean


def test_no_axiom_and_no_admitted_in_the_coq_sources():
    texts = [open(os.path.join(coqcheck.COQ_SRC, n + ".v"), encoding="utf-8").read() for n in coqcheck.LIBRARY]
    tdir = os.path.join(ROOT, "certgen", "templates", "coq")
    texts += [open(os.path.join(tdir, n), encoding="utf-8").read() for n in os.listdir(tdir)]
    for text in texts:
        code = re.sub(r"\(\*.*?\*\)", "", text, flags=re.S)
        # a section's variables are arguments of what it defines once it ends, not assumptions
        code = re.sub(r"\bSection (\w+)\..*?\bEnd \1\.", lambda m: m.group(0).replace("Variable ", "Argument "), code,
                      flags=re.S)
        assert not re.search(r"\b(Axiom|Axioms|Parameter|Parameters|Conjecture|Hypothesis|Variable|Admitted|"
                             r"admit|Admit)\b", code), text[:80]


# -- coqc ------------------------------------------------------------------------------------------------

def sample_positions():
    """Positions along winning lines and random walks, under several rules: cards home, foundation
    returns, full free cells, empty columns."""
    import random
    from solver import solve
    rng = random.Random(16)
    out = []
    r = solve.solve(deals.ms_deal(1))
    path = r.path
    for rules in (spec.STANDARD, spec.Rules(cells=2, foundation_return=True)):
        out += [(rules, s) for s in path[::15]]
    for deal, rules in ((617, spec.Rules(cells=1)), (11982, spec.Rules(cells=0, foundation_return=True)),
                        (1941, spec.Rules(cells=8, foundation_return=True))):
        s = spec.ms_deal(deal)
        for step in range(90):
            if step % 15 == 0:
                out.append((rules, s))
            s = rng.choice(spec.moves(rules, s) or [spec.ms_deal(deal)])
    return out


@needs_coqc
@pytest.mark.coq
def test_coq_moves_and_deals_agree_with_python(out):
    samples = sample_positions()
    assert any(s.home != (0, 0, 0, 0) and r.foundation_return for r, s in samples)
    assert any(len(s.cells) == r.cells for r, s in samples)
    lines = ["From Coq Require Import List NArith.", "From FreeCell Require Import Spec.",
             "Import ListNotations.", ""]
    for n, (r, s) in enumerate(samples):
        succ = "; ".join(state_term(t) for t in spec.moves(r, s))
        lines.append(f"Lemma moves_{n} : moves {coq.rules_coq(r)} ({state_term(s)}) = [{succ}].\n"
                     f"Proof. vm_compute. reflexivity. Qed.")
    for n, deal in enumerate((1, 617, 11982, 1000000, 2147483647, 2147483648, 4294967296, 8589934591)):
        lines.append(f"Lemma deal_{n} : msDeal {deal} = {state_term(spec.ms_deal(deal))}.\n"
                     f"Proof. vm_compute. reflexivity. Qed.")
    won = spec.State((((),) * 8), (), (13, 13, 13, 13))
    lines.append(f"Lemma won_ok : won ({state_term(won)}) = true /\\ won (msDeal 1) = false.\n"
                 f"Proof. split; vm_compute; reflexivity. Qed.")
    path = os.path.join(out, "coq", "Agree.v")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    run = coqc_file(path, out)
    assert run.ok, run.output[-3000:]
    # and a disagreement is caught: the first sample's successors in another order
    r, s = samples[0]
    succ = spec.moves(r, s)
    assert len(succ) > 1
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:4]) + f"\nLemma moves_0 : moves {coq.rules_coq(r)} ({state_term(s)}) = "
                f"[{'; '.join(state_term(t) for t in succ[::-1])}].\nProof. vm_compute. reflexivity. Qed.\n")
    assert not coqc_file(path, out).ok


@needs_coqc
@pytest.mark.coq
def test_the_fence_lemmas_need_no_axiom(out):
    run = coqc_text(out, "Lemmas", "From FreeCell Require Import Spec Cert.\n"
                    + "".join(f"Print Assumptions {n}.\n" for n in
                              ("cert_sound", "unwinnable_of_cert", "replay_reachable", "winnable_of_check")))
    assert run.ok and run.output.count(coqcheck.CLOSED) == 4, run.output


# Fast.v: the check on positions with constructor cards, proved equal to the spec's; Search.v's search on them
FAST_THEOREMS = {
    "fmoves_abs": "forall r s, map absS (fmoves r s) = moves r (absS s)",
    "fcanon_abs": "forall s, absS (fcanon s) = canon (absS s)",
    "fautoplay_abs": "forall s, absS (fautoplay s) = autoplay (absS s)",
    "fsettled_abs": "forall s, fsettled s = settled (absS s)",
    "unwinnable_of_fast":
        "forall hash r s0 c, checkFast hash r s0 c = true -> forall s, Reachable r s0 s -> ~ Won s",
    "unwinnable_of_fast_up_to_column_order":
        "forall hash r s0 c, length (cols s0) = 8 -> checkFastUpTo hash r s0 c = true -> "
        "forall s, Reachable r s0 s -> ~ Won s",
    "unwinnable_of_fast_auto":
        "forall hash r s0 c, checkFastAuto hash r s0 c = true -> forall s, Reachable r s0 s -> ~ Won s",
    # Search.v: the search the modules run
    "unwinnable_of_search": "forall hash r s0, checkSearch hash r s0 = true -> forall s, Reachable r s0 s -> ~ Won s",
    "unwinnable_of_search_up_to_column_order":
        "forall hash r s0, length (cols s0) = 8 -> checkSearchUpTo hash r s0 = true -> "
        "forall s, Reachable r s0 s -> ~ Won s",
    "unwinnable_of_search_auto":
        "forall hash r s0, checkSearchAuto hash r s0 = true -> forall s, Reachable r s0 s -> ~ Won s",
}


@needs_coqc
@pytest.mark.coq
def test_the_fast_check_is_proved_equal_to_the_spec_with_no_axiom(out):
    head = "From Coq Require Import List.\nFrom FreeCell Require Import Spec CertUpTo CertAuto Fast Search.\n"
    run = coqc_text(out, "FastCheck", head + statement_checks(FAST_THEOREMS))
    assert run.ok and run.output.count(coqcheck.CLOSED) == len(FAST_THEOREMS), run.output
    # and a statement the file does not prove is refused: the moves in another order
    wrong = {"fmoves_abs": "forall r s, rev (map absS (fmoves r s)) = moves r (absS s)"}
    assert not coqc_text(out, "FastCheck", head + statement_checks(wrong)).ok


# Columns.v: the theorems, with their statements written out here (a changed statement fails to type)
COLUMN_THEOREMS = {
    "moves_swapCols_perm": "forall r i j s, length (cols s) = 8 -> i < 8 -> j < 8 -> "
                           "Permutation (moves r (swapCols i j s)) (map (swapCols i j) (moves r s))",
    "moves_swapCols_iff": "forall r i j s t, length (cols s) = 8 -> i < 8 -> j < 8 -> "
                          "In t (moves r s) <-> In (swapCols i j t) (moves r (swapCols i j s))",
    "moves_keep_8_columns": "forall r s t, length (cols s) = 8 -> In t (moves r s) -> length (cols t) = 8",
    "msDeal_8_columns": "forall n, length (cols (msDeal n)) = 8",
    "Won_swapCols": "forall i j s, Won (swapCols i j s) <-> Won s",
    "ColEquiv_iff": "forall s u, length (cols s) = 8 -> ColEquiv s u <-> SameUpToOrder s u",
    "Reachable_ColEquiv": "forall r s0 s0' t, length (cols s0) = 8 -> ColEquiv s0 s0' -> Reachable r s0 t -> "
                          "exists t', Reachable r s0' t' /\\ ColEquiv t t'",
    "winnable_ColEquiv": "forall r s0 s0', length (cols s0) = 8 -> ColEquiv s0 s0' -> "
                         "(exists t, Reachable r s0 t /\\ Won t) <-> (exists t, Reachable r s0' t /\\ Won t)",
    "unwinnable_of_fence_up_to_order":
        "forall r s0 (C : State -> Prop), length (cols s0) = 8 -> (exists c, C c /\\ ColEquiv s0 c) -> "
        "(forall s t, C s -> In t (moves r s) -> exists c, C c /\\ ColEquiv t c) -> "
        "(forall s, C s -> ~ Won s) -> forall s, Reachable r s0 s -> ~ Won s",
    "unwinnable_of_fence_up_to_column_order":
        "forall r s0 (C : State -> Prop), length (cols s0) = 8 -> (exists c, C c /\\ SameUpToOrder s0 c) -> "
        "(forall s t, C s -> In t (moves r s) -> exists c, C c /\\ SameUpToOrder t c) -> "
        "(forall s, C s -> ~ Won s) -> forall s, Reachable r s0 s -> ~ Won s",
}


@needs_coqc
@pytest.mark.coq
def test_moves_commute_with_reordering_the_columns_in_coq(out):
    # Columns.v is compiled with the library; each theorem has the statement above and no axiom
    run = coqc_text(out, "ColumnsCheck", "From Coq Require Import List Permutation.\n"
                    "From FreeCell Require Import Spec Columns.\n" + statement_checks(COLUMN_THEOREMS))
    assert run.ok and run.output.count(coqcheck.CLOSED) == len(COLUMN_THEOREMS), run.output
    # and a statement the file does not prove is refused: moves commute with a swap of any two places
    assert not coqc_text(out, "ColumnsCheck", "From Coq Require Import List.\n"
                         "From FreeCell Require Import Spec Columns.\n"
                         "Definition wrong : forall r i j s t, In t (moves r s) -> "
                         "In (swapCols i j t) (moves r (swapCols i j s)) := moves_swapCols.\n").ok


# Autoplay.v: safe cards to the foundations never lose a win (without foundation returns)
AUTOPLAY_THEOREMS = {
    "AutoStep_move": "forall r s t, AutoStep s t -> In t (moves r s)",
    "validb_Valid": "forall s, validb s = true -> Valid s",
    "msDeal_11982_valid": "Valid (msDeal 11982)",
    "unwinnable_of_autoplay_fence":
        "forall r s0 (C : State -> Prop), foundationReturn r = false -> Valid s0 -> "
        "(exists c, C c /\\ AutoReach s0 c) -> "
        "(forall s t, C s -> In t (moves r s) -> exists c, C c /\\ AutoReach t c) -> "
        "(forall s, C s -> ~ Won s) -> forall s, Reachable r s0 s -> ~ Won s",
    "unwinnable_of_autoplay_fence_up_to_column_order":
        "forall r s0 (C : State -> Prop), foundationReturn r = false -> Valid s0 -> "
        "(exists c, C c /\\ exists u, AutoReach s0 u /\\ SameUpToOrder u c) -> "
        "(forall s t, C s -> In t (moves r s) -> exists c, C c /\\ exists u, AutoReach t u /\\ SameUpToOrder u c) -> "
        "(forall s, C s -> ~ Won s) -> forall s, Reachable r s0 s -> ~ Won s",
    # the looser rules of the C core: "safe" (lowSafe) and "twos" (lowTwos)
    "unwinnable_of_safe_autoplay_fence":
        "forall r s0 (C : State -> Prop), foundationReturn r = false -> Valid s0 -> "
        "(exists c, C c /\\ AutoReachBy lowSafe s0 c) -> "
        "(forall s t, C s -> In t (moves r s) -> exists c, C c /\\ AutoReachBy lowSafe t c) -> "
        "(forall s, C s -> ~ Won s) -> forall s, Reachable r s0 s -> ~ Won s",
    "unwinnable_of_safe_autoplay_fence_up_to_column_order":
        "forall r s0 (C : State -> Prop), foundationReturn r = false -> Valid s0 -> "
        "(exists c, C c /\\ exists u, AutoReachBy lowSafe s0 u /\\ SameUpToOrder u c) -> "
        "(forall s t, C s -> In t (moves r s) -> "
        "exists c, C c /\\ exists u, AutoReachBy lowSafe t u /\\ SameUpToOrder u c) -> "
        "(forall s, C s -> ~ Won s) -> forall s, Reachable r s0 s -> ~ Won s",
    "unwinnable_of_twos_autoplay_fence":
        "forall r s0 (C : State -> Prop), foundationReturn r = false -> Valid s0 -> "
        "(exists c, C c /\\ AutoReachBy lowTwos s0 c) -> "
        "(forall s t, C s -> In t (moves r s) -> exists c, C c /\\ AutoReachBy lowTwos t c) -> "
        "(forall s, C s -> ~ Won s) -> forall s, Reachable r s0 s -> ~ Won s",
    "unwinnable_of_twos_autoplay_fence_up_to_column_order":
        "forall r s0 (C : State -> Prop), foundationReturn r = false -> Valid s0 -> "
        "(exists c, C c /\\ exists u, AutoReachBy lowTwos s0 u /\\ SameUpToOrder u c) -> "
        "(forall s t, C s -> In t (moves r s) -> "
        "exists c, C c /\\ exists u, AutoReachBy lowTwos t u /\\ SameUpToOrder u c) -> "
        "(forall s, C s -> ~ Won s) -> forall s, Reachable r s0 s -> ~ Won s",
    # what an automatic move is, for any rule (the constructors of AutoStepBy and AutoReachBy)
    "auto_col":
        "forall low s i c rest, i < 8 -> nth i (cols s) [] = c :: rest -> homeBy low (home s) c = true -> "
        "AutoStepBy low s (state (set (cols s) i rest) (cells s) (set (home s) (suit c) (rank c)))",
    "auto_cell":
        "forall low s c, In c (cells s) -> homeBy low (home s) c = true -> "
        "AutoStepBy low s (state (cols s) (erase cardEqb (cells s) c) (set (home s) (suit c) (rank c)))",
    "ar_refl": "forall low s, AutoReachBy low s s",
    "ar_step": "forall low s t u, AutoStepBy low s t -> AutoReachBy low t u -> AutoReachBy low s u",
}
AUTOPLAY_DEFINITIONS = {
    "safeHome": "fun (h : list nat) (c : Card) => canHome h c && "
                "((rank c =? 1) || ((rank c - 1 <=? nth (if red c then 0 else 1) h 0) && "
                "(rank c - 1 <=? nth (if red c then 3 else 2) h 0)))",
    "AutoStep": "AutoStepBy lowOthers",
    "AutoReach": "AutoReachBy lowOthers",
    "homeBy": "fun (low : list nat -> Card -> bool) (h : list nat) (c : Card) => canHome h c && low h c",
    # solver/fc_internal.h's safe_home, mode FC_AUTOPLAY_SAFE: ranks 1 and 2; both other-colour foundations at rank - 1
    # or more; or both at rank - 2 and the other suit of the colour (3 - suit) at rank - 3
    "lowSafe": "fun (h : list nat) (c : Card) => (rank c <=? 2) || "
               "((rank c - 1 <=? nth (if red c then 0 else 1) h 0) && "
               "(rank c - 1 <=? nth (if red c then 3 else 2) h 0)) || "
               "((rank c - 2 <=? nth (if red c then 0 else 1) h 0) && "
               "(rank c - 2 <=? nth (if red c then 3 else 2) h 0) && (rank c - 3 <=? nth (3 - suit c) h 0))",
    # mode FC_AUTOPLAY_TWOS: ranks 1 and 2 only
    "lowTwos": "fun (h : list nat) (c : Card) => rank c <=? 2",
    "deck": "map (fun i => card (i / 4 + 1) (i mod 4)) (seq 0 52)",
    "Valid": "fun s => length (cols s) = 8 /\\ length (home s) = 4 /\\ "
             "Permutation (concat (cols s) ++ cells s ++ homeCards (home s)) deck",
}


@needs_coqc
@pytest.mark.coq
def test_autoplay_fence_in_coq(out):
    # Autoplay.v is compiled with the library; each theorem has the statement above and no axiom, and the
    # definitions its statements rest on are the ones written here (checked by conversion)
    run = coqc_text(out, "AutoplayCheck", "From Coq Require Import List Bool Arith NArith Permutation.\n"
                    "From FreeCell Require Import Spec Columns Autoplay.\nImport ListNotations.\n"
                    + "".join(f"Example def_{n} : {n} = ({d}) := eq_refl.\n" for n, d in AUTOPLAY_DEFINITIONS.items())
                    + statement_checks(AUTOPLAY_THEOREMS).replace("msDeal 11982", "msDeal 11982%N"))
    assert run.ok and run.output.count(coqcheck.CLOSED) == len(AUTOPLAY_THEOREMS), run.output


@needs_coqc
@pytest.mark.parametrize("deal,cells,fr,theorem", [
    (1, 1, False, "freecell_1_unwinnable : forall s, Reachable (rules 1 false 0) (msDeal 1) s -> ~ Won s"),
    pytest.param(3, 1, True, "freecell_3_unwinnable : forall s, Reachable (rules 1 true 0) (msDeal 3) s -> ~ Won s",
                 marks=pytest.mark.coq),
    pytest.param(11982, 2, False, "freecell_11982_unwinnable : forall s, Reachable (rules 2 false 0) (msDeal 11982) s "
                 "-> ~ Won s", marks=pytest.mark.coq),
])
def test_small_certificates_are_proven_by_coq(out, tmp_path, deal, cells, fr, theorem):
    path = str(tmp_path / "c.cert")
    certificate.write(path, deal_cert(deal, cells, fr))
    status, run = coqcheck.prove_cert(certificate.read(path), out, COQC)
    assert status == 0 and run.ok, run.output[-3000:]
    assert "Theorem " + theorem + "." in open(run.log[:-len(".log")] + ".v", encoding="utf-8").read()
    assert run.assumptions and run.only_primitives     # the data are primitive arrays; no axiom
    names = [n for n, _ in run.assumptions]
    assert "int" in names and "array" in names


@needs_coqc
@pytest.mark.coq
def test_a_board_start_is_written_out_and_proven(out):
    mid = deals.ms_deal(11982)
    rules = Rules(cells=1)
    res = search.explore(mid, rules)
    start = spec.from_position(packed.unpack(res.records()[40]))
    cert = cert_of(spec.to_position(start), cells=1, source={"kind": "board", "name": "mid-game.txt"})
    path, ctx = coq.render_cert(cert, out)
    text = open(path, encoding="utf-8").read()
    assert "Definition start : State :=" in text and "Theorem position_unwinnable : forall s, Reachable " \
        "(rules 1 false 0) start s -> ~ Won s." in text
    status, run, said = proven(path, ctx, out)
    assert status == 0 and run.only_primitives, said


def near_won_start():
    """A position of deal 1's winning line with 40 cards home: winnable, and little is reachable from it."""
    from solver import solve
    r = solve.solve(deals.ms_deal(1))
    return next(s for s in r.path if sum(s.home) >= 40)


@needs_coqc
@pytest.mark.parametrize("canonical", [False, pytest.param(True, marks=pytest.mark.coq)])
def test_a_winnable_start_is_refused_by_the_search(out, canonical):
    # a certificate that says unwinnable for a start from which a won position is reachable: Coq's search
    # reaches it, ends with Fail, and `search_ok` does not type
    start = near_won_start()
    assert search.explore(spec.to_position(start)).won
    rules = {"cells": 4, "foundation_return": False, **({"column_order": True} if canonical else {})}
    cert = certificate.make({"kind": "board", "name": "near-won.txt"}, rules, spec.to_position(start),
                            [packed.pack(spec.to_position(start))])
    path, ctx = coq.render_cert(cert, out, stem="RefusedWinnable" + "UpTo" * canonical)
    assert f"Lemma search_ok : {ctx['check']} hashKey standard start = true." in open(path, encoding="utf-8").read()
    status, run, said = proven(path, ctx, out)
    assert status == 1 and not run.ok and "has type \"true = true\" while it is expected to have type" \
        in run.output, said


@needs_coqc
@pytest.mark.coq
@pytest.mark.parametrize("old,new", [("if ok s then", "if true then"),           # members not tested
                                     ("let (c', todo') := push c todo (fmoves r s) in Busy c' todo'",
                                      "Done c")])                                 # Done too soon
def test_a_search_that_skips_a_test_is_not_proved(tmp_path, monkeypatch, old, new):
    # Search.v with its search made unsound: its proof no longer goes through, so no module could use it
    import hashlib
    import shutil
    src = tmp_path / "FreeCell"
    shutil.copytree(coqcheck.COQ_SRC, src)
    text = (src / "Search.v").read_text(encoding="utf-8")
    assert text.count(old) == 1
    (src / "Search.v").write_text(text.replace(old, new), encoding="utf-8")
    monkeypatch.setattr(coqcheck, "COQ_SRC", str(src))
    monkeypatch.setitem(coqcheck.PINNED, "Search", hashlib.sha256((src / "Search.v").read_bytes()).hexdigest())
    err = coqcheck.build_library(COQC, str(tmp_path / "o"))
    assert err is not None and err.startswith("coqc Search.v failed: ") and "Error" in err, err
    assert "Error: In environment hash : FState -> positive r : Rules" in err, err   # a step of a proof fails


@needs_coqc
@pytest.mark.coq
def test_a_winning_line_is_proven_and_a_short_one_refused(out):
    from solver import solve
    r = solve.solve(deals.ms_deal(1))
    idx = step_indices(spec.STANDARD, r.path[0], r.path[1:])
    path, ctx = coq.render_win(idx, spec.ms_deal(1), spec.STANDARD, out, deal=1)
    text = open(path, encoding="utf-8").read()
    assert "Theorem freecell_1_winnable : exists s, Reachable standard (msDeal 1) s /\\ Won s." in text
    status, run, said = proven(path, ctx, out, coq.WINNABLE)
    assert status == 0 and run.assumptions == [], said     # closed under the global context
    with pytest.raises(ValueError):
        coq.render_win(idx[:-1], spec.ms_deal(1), spec.STANDARD, out, deal=1)
    # the same file with the last move cut off: Coq refuses it
    short = "Definition solution : list nat := [" + "; ".join(map(str, idx[:-1])) + "]."
    with open(path, "w", encoding="utf-8") as f:
        f.write(re.sub(r"Definition solution : list nat := \[.*?\]\.", short, text, flags=re.S))
    run = coqc_file(path, out)
    assert not run.ok and "while it is expected to have type\n \"checkWin standard (msDeal 1) solution = true\"" \
        in run.output, run.output


def test_prove_coq_without_coqc_says_so(tmp_path):
    env = dict(os.environ, PATH=os.path.dirname(sys.executable))
    p = subprocess.run([sys.executable, "-m", "certgen", "prove-coq", "--deal", "1", "--cells", "1", "--out-dir",
                        str(tmp_path), "--no-progress"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert p.returncode == 3, p.stdout + p.stderr          # prove --prover coq: fails before the search
    assert p.stderr == "Coq is not available (coqc is not on PATH; Debian: apt-get install coq): nothing was checked\n"


@needs_coqc
@pytest.mark.coq
@pytest.mark.parametrize("flags,stem,words", [
    ([], "Deal11982Cells1", "nothing back from the foundations: 83 states"),
    (["--canonical"], "Deal11982Cells1ColumnOrder", "nothing back from the foundations up to column order: 83 states"),
])
def test_prove_coq_command(tmp_path, flags, stem, words):
    p = subprocess.run([sys.executable, "-m", "certgen", "prove-coq", "--deal", "11982", "--cells", "1",
                        "--out-dir", "o", "--no-progress"] + flags, cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    last = p.stdout.strip().splitlines()[-1]
    assert last.startswith("proven by Coq: freecell_11982_unwinnable : forall s, Reachable (rules 1 false 0) "
                           "(msDeal 11982) s -> ~ Won s (coqc ")
    assert f"valid for deal 11982 under the rules with 1 free cell and {words}" in p.stdout
    assert (tmp_path / "o" / "coq" / f"{stem}.v").exists() and (tmp_path / "o" / "coq-lib" / "Spec.vo").exists()
    assert ("checkSearchUpTo" in (tmp_path / "o" / "coq" / f"{stem}.v").read_text()) == bool(flags)


@needs_coqc
@pytest.mark.coq
def test_prove_coq_column_order_of_a_winnable_deal_proves_the_win(tmp_path):
    # a winnable start: the line on the real columns, whatever the enumeration counted
    p = subprocess.run([sys.executable, "-m", "certgen", "prove-coq", "--deal", "1", "--canonical",
                        "--out-dir", "o", "--no-progress"], cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1].startswith(
        "proven by Coq: freecell_1_winnable : exists s, Reachable standard (msDeal 1) s /\\ Won s")


@needs_coqc
@pytest.mark.slow
def test_11982_is_proven_by_coq(out, cert11982):
    status, run = coqcheck.prove_cert(cert11982, out, COQC)
    assert status == 0 and run.only_primitives, run.output[-3000:]


def test_trust_md_has_a_row_for_every_coq_file():
    # docs/TRUST.md's file-by-file table says what each Coq file is and what trusting it means
    with open(os.path.join(ROOT, "docs", "TRUST.md"), encoding="utf-8") as f:
        rows = [line for line in f if line.startswith("| ")]
    for name in sorted(os.listdir(os.path.join(ROOT, "coq", "FreeCell"))):
        if name.endswith(".v"):
            row = next((r for r in rows if r.startswith(f"| `coq/FreeCell/{name}`")), None)
            assert row is not None, f"docs/TRUST.md has no row for coq/FreeCell/{name}"
    statuses = {name: next(r for r in rows if r.startswith(f"| `coq/FreeCell/{name}`")).split("|")[2]
                for name in ("Spec.v", "Cert.v", "Search.v", "Columns.v")}
    assert "**trusted**" in statuses["Spec.v"] and "kernel-checked" in statuses["Cert.v"] \
        and "kernel-checked" in statuses["Search.v"] and "kernel-checked" in statuses["Columns.v"]
    vm = next(r for r in rows if "vm_cast_no_check" in r)
    assert "virtual machine" in vm and "Print Assumptions" in vm and "make prove-coq" in vm


# -- certificates up to column order (CertUpTo.v) ----------------------------------------------------------

def canon_cert(position, cells=4, source=None, deal=None):
    """A certificate up to column order: the C core's enumeration up to column order, each position put
    in the checkers' column order (certgen/columns.py)."""
    from certgen.columns import canon
    res = search.explore(position, Rules(cells=cells, canonical=True))
    assert res.complete and not res.won
    records = {packed.pack(spec.to_position(canon(spec.from_position(packed.unpack(r))))) for r in res.records()}
    return certificate.make(source or {"kind": "ms", "deal": deal},
                            {"cells": cells, "foundation_return": False, "column_order": True}, position,
                            sorted(records))


UPTO_THEOREMS = {
    "canon_same": "forall s, SameUpToOrder s (canon s)",
    "unwinnable_of_cert_up_to_column_order":
        "forall hash r s0 c, length (cols s0) = 8 -> checkCertUpTo hash r s0 c = true -> "
        "forall s, Reachable r s0 s -> ~ Won s",
}


@needs_coqc
@pytest.mark.coq
def test_the_column_order_check_is_sound_in_coq_and_canon_is_its_python_twin(out):
    from certgen.columns import canon
    path = os.path.join(out, "coq", "UpToCheck.v")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    lines = ["From Coq Require Import List PArith Permutation.",
             "From FreeCell Require Import Spec Cert Columns CertUpTo.", "Import ListNotations."]
    lines.append(statement_checks(UPTO_THEOREMS))
    samples = [s for _, s in sample_positions()]
    # a position with two empty columns and one moved off its start column, as well as the samples
    samples.append(spec.State(((),) + samples[-1].cols[1:4] + ((),) + samples[-1].cols[5:], (), (0, 0, 0, 0)))
    assert any(canon(s) != s for s in samples) and any(() in s.cols for s in samples)
    lines += [f"Lemma canon_{n} : canon ({state_term(s)}) = {state_term(canon(s))}.\n"
              f"Proof. vm_compute. reflexivity. Qed." for n, s in enumerate(samples)]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    run = coqc_file(path, out)
    assert run.ok and run.output.count(coqcheck.CLOSED) == len(UPTO_THEOREMS), run.output[-3000:]
    # the order matters to the twins: a sample written with two columns swapped is refused
    s = next(s for s in samples if canon(s) != s)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:3]) + f"\nLemma canon_x : canon ({state_term(s)}) = {state_term(s)}.\n"
                "Proof. vm_compute. reflexivity. Qed.\n")
    assert not coqc_file(path, out).ok


@needs_coqc
@pytest.mark.coq
@pytest.mark.parametrize("deal,cells,theorem", [
    (1, 1, "freecell_1_unwinnable : forall s, Reachable (rules 1 false 0) (msDeal 1) s -> ~ Won s"),
    (11982, 2, "freecell_11982_unwinnable : forall s, Reachable (rules 2 false 0) (msDeal 11982) s -> ~ Won s"),
])
def test_certificates_up_to_column_order_are_proven_by_coq(out, deal, cells, theorem):
    cert = canon_cert(deals.ms_deal(deal), cells, deal=deal)
    path, ctx = coq.render_cert(cert, out, stem=f"UpTo{deal}Cells{cells}")
    text = open(path, encoding="utf-8").read()
    assert ctx["column_order"] and "Theorem " + theorem + "." in text
    assert f"Lemma search_ok : checkSearchUpTo hashKey (rules {cells} false 0) (msDeal {deal}) = true." in text
    assert f"(msDeal_8_columns {deal}) search_ok" in text
    status, run, said = proven(path, ctx, out)
    assert status == 0 and run.only_primitives, said
    # never more positions than with fixed columns (as many here: no column is emptied in these sets)
    assert len(cert.records) <= search.explore(deals.ms_deal(deal), Rules(cells=cells)).states


@needs_coqc
@pytest.mark.coq
def test_a_board_start_up_to_column_order_is_proven(out):
    # a written-out start: the 8-column hypothesis is computed (eq_refl)
    res = search.explore(deals.ms_deal(11982), Rules(cells=1))
    start = spec.from_position(packed.unpack(res.records()[40]))
    cert = canon_cert(spec.to_position(start), cells=1, source={"kind": "board", "name": "mid-game.txt"})
    path, ctx = coq.render_cert(cert, out, stem="UpToBoard")
    text = open(path, encoding="utf-8").read()
    assert "Definition start : State :=" in text and "start eq_refl search_ok" in text
    status, run, said = proven(path, ctx, out)
    assert status == 0 and run.only_primitives, said


@needs_coqc
@pytest.mark.slow
def test_11982_up_to_column_order_is_proven_by_coq(out):
    # the seed's theorem from 83,239 positions up to column order (84,767 with fixed columns)
    cert = canon_cert(deals.ms_deal(11982), deal=11982)
    assert len(cert.records) == 83_239
    path, ctx = coq.render_cert(cert, out, stem="UpTo11982")
    status, run, said = proven(path, ctx, out)
    assert status == 0 and run.only_primitives, said


def test_a_full_disk_is_not_called_a_proof_failure(tmp_path, monkeypatch):
    # on a full tmpfs coqc wrote a truncated .vo and complained "No such
    # assumption", said as "the Coq library does not compile … NOT proven"; now one line naming the disk
    from collections import namedtuple
    from solver.errors import FreecellError
    Vfs = namedtuple("Vfs", "f_bavail f_frsize")
    monkeypatch.setattr(coqcheck.os, "statvfs", lambda path: Vfs(100, 4096))
    with pytest.raises(FreecellError, match="no space left on the device .*nothing was checked by Coq"):
        coqcheck.refuse_if_disk_full(str(tmp_path))

    class Failed:
        returncode, stdout, stderr = 1, "", "Error: No such assumption."
    monkeypatch.setattr(coqcheck.subprocess, "run", lambda *a, **k: Failed)
    monkeypatch.setattr(coqcheck, "coqc_version", lambda coqc: "coqc 8.16.1")
    with pytest.raises(FreecellError, match="no space left"):
        coqcheck.build_library("coqc", str(tmp_path))
    # with room on the disk the same failure is coqc's own complaint, as before
    monkeypatch.setattr(coqcheck.os, "statvfs", lambda path: Vfs(1 << 20, 4096))
    assert coqcheck.refuse_if_disk_full(str(tmp_path)) is None
    assert coqcheck.build_library("coqc", str(tmp_path)).startswith("coqc Spec.v failed: Error: No such assumption.")
