"""Issue 31, Lean: a generated statement means what its text says. Its names are written from the root
(`_root_.FreeCell.Reachable`, …), so no declaration in a namespace between can stand for them; `make audit`
refuses, in the hand-written files and the generated modules, what could shadow a name or change what a
statement's notation, numerals or names mean, and pins the hand-written files' digests; and every Lean file
of lean/ belongs to a lake library."""
import os
import re
import shutil

import pytest

from certgen import audit, certificate, render
from certgen.members import Decoder
from certgen.paths import AUDIT_FILE
from certgen.templating import read_text
from solver import deals, search, spec
from solver.rules import STANDARD, Rules

from helpers import ROOT

LEAN = os.path.join(ROOT, "lean")
IDENT = re.compile(r"(?<![\w.'])[A-Za-z_][\w'!?]*(?:\.[A-Za-z_][\w'!?]*)*")


@pytest.fixture(scope="module")
def small():
    """Deal 11982 with one free cell: its certificate (83 positions)."""
    pos = deals.ms_deal(11982)
    res = search.explore(pos, Rules(cells=1))
    return certificate.make({"kind": "ms", "deal": 11982}, {"cells": 1, "foundation_return": False}, pos,
                            res.records())


def modules(small):
    """One module of every kind certgen renders: Deal, Mutant, a board's (start written out), Win (a deal and
    a position), Kernel, SpecGuards, and the standalone file."""
    rules = Rules(cells=1)
    d = Decoder()
    states = [d.state(r) for r in small.records]
    s0 = spec.ms_deal(11982)
    mid = states[40]
    sub = render.kernel_states(rules, mid, limit=10 ** 5)
    nearly = spec.State(cols=(((spec.Card(13, 3),),) + ((),) * 7), cells=(), home=(13, 13, 13, 12))
    win_idx = [spec.moves(STANDARD.spec(), nearly).index(spec.State(cols=((),) * 8, cells=(), home=(13,) * 4))]
    return {
        "Deal": render.module_text(render.cert_context(states, s0, rules, 11982)),
        "Mutant": render.module_text(render.cert_context(states[1:], s0, rules, 11982, stem="MutantX",
                                                         mutation="deal")),
        "Board": render.module_text(render.cert_context(sub, mid, rules, None, stem="BoardX", label="mid-game")),
        "WinDeal": read_text(os.path.join(render.GENERATED, "WinDeal617.lean")),
        "WinBoard": render.win_text(win_idx, nearly, STANDARD, None, "WinBoardX", "nearly won"),
        "WinKernel": render.win_text(win_idx, nearly, STANDARD, None, "WinKernelX", "nearly won", kernel=True),
        "Kernel": render.kernel_text(1, Rules(cells=1)),
        "Standalone": render.standalone_text(render.cert_context(states, s0, rules, 11982), "F.lean"),
    }


def statements(text):
    """(name, statement) of every theorem, and (name, type) of every `def`, in the part certgen writes."""
    code = audit.lean_code(text.split("-- Part 4 ---", 1)[-1])
    while re.search(r"\{[^{}]*\}", code):       # structure instances: `{ cells := 1 }` (fields, numerals)
        code = re.sub(r"\{[^{}]*\}", "⟪⟫", code)
    return re.findall(r"^(?:theorem|def) (\w+) : (.*?) :=", code, re.M | re.S)


def test_every_statement_names_the_trusted_definitions_from_the_root(small):
    """Every name in a theorem statement or a definition's type is the module's own (`start`, `cert`,
    `solution`, …), the bound `s`, a field of a structure instance (`cells`), or written from the root. On
    main before this, `Reachable Rules.standard (msDeal 11982) s → ¬ Won s` was found innermost first: a
    `def Won` in `namespace FreeCell.Generated.X` (or `FreeCell.Generated`) would have changed its meaning."""
    for kind, text in modules(small).items():
        found = statements(text)
        own = {name for name, _ in found}
        theorems = [(n, t) for n, t in found if "Reachable" in t]
        assert len(theorems) == (0 if kind == "Mutant" else 1), kind
        for name, stmt in found:
            for ident in IDENT.findall(stmt):
                assert ident in own | {"s"} or ident.startswith("_root_."), (kind, name, ident, stmt)
        for name, stmt in theorems:
            assert "_root_.FreeCell.Reachable " in stmt and "_root_.FreeCell.Won s" in stmt, (kind, stmt)
            assert "_root_.FreeCell.msDeal " in stmt or " start s" in stmt, (kind, stmt)
    board = modules(small)["Board"]
    assert "def start : _root_.FreeCell.State :=" in board
    assert ("theorem position_unwinnable : ∀ s, _root_.FreeCell.Reachable { cells := 1 } start s → "
            "¬ _root_.FreeCell.Won s :=") in board
    assert render.rules_lean(STANDARD, render.SPEC_ROOT) == "_root_.FreeCell.Rules.standard"


def test_the_shipped_modules_name_the_trusted_definitions_from_the_root():
    for name in sorted(os.listdir(render.GENERATED)):
        text = read_text(os.path.join(render.GENERATED, name))
        for thm, stmt in statements(text):
            for ident in IDENT.findall(stmt):
                assert ident.startswith("_root_.") or ident in {"s", "start", "cert", "solution"}, \
                    (name, thm, ident)


# -- The audit's scan: what could shadow a name, and the pinned digests --------------------------------------

def library_copy(tmp_path):
    lean = tmp_path / "lean"
    shutil.copytree(LEAN, lean)
    shutil.copy(os.path.join(ROOT, "lakefile.lean"), tmp_path / "lakefile.lean")
    return lean, str(tmp_path / "lakefile.lean")


FORGED = [
    # (file, text added before its last `end`, or appended, what the one line names)
    ("Decode.lean", "end FreeCell\nnamespace FreeCell.Generated\ndef Won (s : State) : Prop := True\nend "
                    "FreeCell.Generated\nnamespace FreeCell", "`namespace FreeCell.Generated`"),
    ("Decode.lean", "def Generated.Deal11982.msDeal (n : Nat) : State := FreeCell.msDeal 1",
     "the dotted name `Generated.Deal11982.msDeal`"),
    ("Decode.lean", "abbrev standard : Rules := { cells := 9 }", "a declaration of `standard`"),
    ("Cert.lean", "theorem Won : True := trivial", "a declaration of `Won`"),
    ("Decode.lean", "def true : Bool := false", "a declaration of `true`"),
    ("Decode.lean", "structure Generated where\n  Won : Nat", "a declaration of `Generated`"),
    ("Decode.lean", "instance : OfNat Nat 11982 := ⟨1⟩", "`instance : OfNat Nat 11982"),
    ("Decode.lean", "deriving instance BEq for Card", "`deriving`"),
    ("Decode.lean", "open FreeCell.Generated in\ndef z := 1", "`open`"),
    ("Decode.lean", "local notation \"¬\" p => p", "`local`"),
    ("Decode.lean", "scoped infix:50 \" ≠ \" => Eq", "`infix` (and 1 more)"),
    ("Decode.lean", "class Hidden where x : Nat", "`class`"),
    ("Decode.lean", "#print axioms decodeCert", "`#print`"),
    ("Decode.lean", "#check_failure 1", "`#check_failure`"),
    ("Decode.lean", "def _root_.FreeCell.Generated.Won := 1", "`_root_.FreeCell.Generated.Won`"),
    ("Decode.lean", "set_option autoImplicit true", "`set_option autoImplicit true`"),
    ("Decode.lean", "export Rules (standard)", "`export`"),
    ("Decode.lean", "macro_rules | `(¬ $p) => `($p)", "`macro_rules`"),
    ("Decode.lean", "elab \"x\" : term => return default", "`elab`"),
    ("Decode.lean", "attribute [simp] decodeCert", "`attribute`"),
    ("Decode.lean", "#eval IO.println \"hi\"", "`#eval`"),
    ("Generated/WinDeal617.lean", "end FreeCell.Generated.WinDeal617\nnamespace FreeCell.Generated\ndef x := 1\nend"
     " FreeCell.Generated\nnamespace FreeCell.Generated.WinDeal617", "`namespace FreeCell.Generated` (only "
     "`namespace FreeCell.Generated.WinDeal617` here"),
    ("Generated/WinDeal617.lean", "def msDeal (n : Nat) : _root_.FreeCell.State := _root_.FreeCell.msDeal 1",
     "a declaration of `msDeal`"),
    ("Generated/SpecGuards.lean", "#eval 1", "`#eval`"),
]


@pytest.mark.parametrize("file, added, named", FORGED, ids=[f"{f}:{n}" for f, _, n in FORGED])
def test_the_audit_refuses_what_could_shadow_a_statement(tmp_path, file, added, named):
    """Each forged file is refused in one line naming what is wrong (on main before this, the `namespace`,
    the declarations, `instance`, `deriving`, `open`, `local`, `scoped`, `class`, `#print`, `_root_` passed)."""
    lean, lakefile = library_copy(tmp_path)
    path = lean / "FreeCell" / file
    text = path.read_text(encoding="utf-8")
    last_end = text.rindex("\nend ")
    path.write_text(text[:last_end] + "\n" + added + text[last_end:], encoding="utf-8")
    problems = audit.scan_library(str(lean), lakefile)
    assert len(problems) == 1 and problems[0].startswith(f"lean/FreeCell/{file}: ") and named in problems[0], \
        problems
    assert "\n" not in problems[0]


def test_the_hand_written_files_are_pinned(tmp_path):
    """An edit the scan has no word for (a harmless-looking `def`, one changed constant in Spec.lean) is named
    by the pinned SHA-256; an unknown hand-written file and a missing one are named too."""
    assert audit.scan_library() == []
    for rel, digest in audit.LIBRARY_DIGESTS.items():
        with open(os.path.join(LEAN, rel), "rb") as f:
            assert audit.hashlib.sha256(f.read()).hexdigest() == digest, f"{rel}: pin the reviewed file"
    lean, lakefile = library_copy(tmp_path)
    spec_lean = lean / "FreeCell" / "Spec.lean"
    good = spec_lean.read_text(encoding="utf-8")
    spec_lean.write_text(good.replace("[13, 13, 13, 13]", "[13, 13, 13, 12]"), encoding="utf-8")
    (problem,) = audit.scan_library(str(lean), lakefile)
    assert problem.startswith("lean/FreeCell/Spec.lean: its SHA-256 is ") and "LIBRARY_DIGESTS" in problem
    spec_lean.write_text(good, encoding="utf-8")
    decode = lean / "FreeCell" / "Decode.lean"
    decode.write_text(decode.read_text(encoding="utf-8") + "\ndef helper : Nat := 1\n", encoding="utf-8")
    (problem,) = audit.scan_library(str(lean), lakefile)
    assert problem.startswith("lean/FreeCell/Decode.lean: its SHA-256 is ")
    decode.unlink()
    (lean / "FreeCell" / "Extra.lean").write_text("import FreeCell.Spec\n", encoding="utf-8")
    assert audit.scan_library(str(lean), lakefile) == [
        "lean/FreeCell/Extra.lean: a hand-written Lean file the audit does not pin (certgen/audit.py "
        "LIBRARY_DIGESTS)",
        "lean/FreeCell/Decode.lean: missing (the audit pins it)"]


def test_the_library_declares_no_trusted_name_twice():
    names = audit.trusted_names(read_text(os.path.join(LEAN, "FreeCell", "Spec.lean")))
    assert {"Won", "Reachable", "msDeal", "moves", "standard", "State", "Rules", "Card"} <= names
    assert "checkCert" not in names


# -- Lake: every Lean file belongs to a library -----------------------------------------------------------

def lake_libraries():
    """{library: (roots, globs)} read from lakefile.lean (`roots := #[`A, `B]`, `globs := #[.submodules `C]`)."""
    text = open(os.path.join(ROOT, "lakefile.lean"), encoding="utf-8").read()
    libs = {}
    for name, body in re.findall(r"lean_lib (\w+) where\n((?:  .*\n?)+)", text):
        assert 'srcDir := "lean"' in body, name
        roots = re.findall(r"`([\w.]+)", re.search(r"roots := (.*)", body).group(1))
        globs = re.search(r"globs := (.*)", body)
        libs[name] = (roots, re.findall(r"\.submodules `([\w.]+)", globs.group(1)) if globs else None)
    return libs


def library_of(module, libs):
    """The libraries a module belongs to, as Lake's `LeanLibConfig.isBuildableModule` decides: a glob
    matches it, or a root is a prefix of it and a glob matches the root. Without `globs`, they are
    `roots.map Glob.one` (the root itself); `.submodules R` matches every module strictly under R."""
    def prefix(root, m):
        return m == root or m.startswith(root + ".")

    out = []
    for name, (roots, subs) in libs.items():
        globs = [(r, False) for r in roots] if subs is None else [(r, True) for r in subs]

        def matches(m):
            return any((prefix(r, m) and m != r) if under else m == r for r, under in globs)
        if matches(module) or any(prefix(root, module) and matches(root) for root in roots):
            out.append(name)
    return out


def test_every_lean_file_belongs_to_one_lake_library():
    """lean/FreeCell/Hand.lean belonged to none: `lake build` never built it (issue 31, item 7). lean/Audit.lean,
    which `make audit` renders and runs with `lake env lean`, is the one file meant to stay outside."""
    libs = lake_libraries()
    assert set(libs) == {"FreeCell", "FreeCellGenerated", "FreeCellHand"}
    seen = []
    for folder, _, files in os.walk(LEAN):
        for f in files:
            path = os.path.join(folder, f)
            if not f.endswith(".lean") or os.path.abspath(path) == os.path.abspath(AUDIT_FILE):
                continue
            module = os.path.relpath(path, LEAN)[:-len(".lean")].replace(os.sep, ".")
            assert len(library_of(module, libs)) == 1, (module, library_of(module, libs))
            seen.append(module)
    assert {"FreeCell.Spec", "FreeCell.Cert", "FreeCell.Decode", "FreeCell.Hand",
            "FreeCell.Generated.SpecGuards"} <= set(seen)
    assert library_of("FreeCell.Hand", libs) == ["FreeCellHand"]
    assert library_of("FreeCell.Generated.Deal11982", libs) == ["FreeCellGenerated"]
    assert library_of("FreeCell.Evil", libs) == [] and library_of("FreeCell.Spec.Sub", libs) == ["FreeCell"]
    text = open(os.path.join(ROOT, "lakefile.lean"), encoding="utf-8").read()
    assert text.count("@[default_target]") == len(libs)      # a bare `lake build` builds every one of them


def test_prove_runs_the_audit_s_scan_before_it_says_proven_by_lean(tmp_path, monkeypatch):
    # Lean is not here: lake build is replaced by one that accepts everything, as Lean would accept a
    # Decode.lean with an axiom (or an `@[implemented_by]` that native_decide would run); the prove pipeline
    # must refuse the library as `certgen audit` does, before it builds
    from certgen import lake, prove
    src = tmp_path / "lean"
    shutil.copytree(LEAN, src)
    with open(src / "FreeCell" / "Decode.lean", "a", encoding="utf-8") as f:
        f.write("\naxiom cheat : False\n")
    built = []
    monkeypatch.setattr(lake, "build", lambda targets, say: built.append(targets) or (0, "lake build succeeded"))
    lean = prove.Prover("lean", "lake")
    assert prove.lean_build(lean, ["M"], ["thm"], prove.GENERATED, print) == prove.Outcome(prove.PROVED, "proven by Lean: thm")
    monkeypatch.setattr(audit, "LEAN_SRC", str(src))
    outcome = prove.lean_build(lean, ["M"], ["thm"], prove.GENERATED, print)
    assert outcome.status == prove.REFUSED and len(built) == 1, outcome
    assert outcome.line == "Lean: lean/FreeCell/Decode.lean: `axiom`: NOT proven"
