"""Issue 11: user text cannot break a Lean file's comments, every check runs with `maxHeartbeats 0` and a
doc comment directly before its theorem, the shipped kernel-only and #guard modules are current and agree
with the seed documents, the hash of a position spreads real certificates, and `make audit` refuses a
hand-edited module, a library that could fake a proof, and any axiom but the exact expected ones."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from certgen import audit, certificate, certtext, names, render, usertext
from certgen.templating import read_text
from certgen.lake import config_args
from solver import deals, packed, search, spec
from solver.lines import step_indices
from solver.rules import STANDARD, Rules

from helpers import DEAL11982_BOARD, ROOT
from helpers.certtext import decode_state, home_of_count

SEEDS = "/work/shared/seeds"
HOSTILE = ["x-/y", "/-z", 'a"b', "line\nbreak theorem bad : False := sorry", "back\\slash", "Ünïcødé ♠",
           "/tmp/x-/board.txt", "`tick`", "-/\n/- ", "end FreeCell", "--", "a" * 300]
COMMENT_KINDS = ("comment", "block")


def build_cert(deal, cells, source=None, info=None):
    pos = deals.ms_deal(deal)
    rules = {"cells": cells, "foundation_return": False}
    res = search.explore(pos, Rules(**rules))
    assert res.complete and not res.won
    return certificate.make(source or {"kind": "ms", "deal": deal}, rules, pos, res.records(), info)


@pytest.fixture(scope="module")
def small_cert():
    """Deal 11982 with one free cell: 83 positions."""
    return build_cert(11982, 1)


def code_of(text):
    return [piece for kind, piece in audit.lean_tokens(text) if kind not in COMMENT_KINDS]


def comments_of(text):
    return [piece for kind, piece in audit.lean_tokens(text) if kind in COMMENT_KINDS]


# -- 1. User text ------------------------------------------------------------------------------------------

def test_user_text_is_a_safe_alphabet():
    for name in HOSTILE:
        safe = usertext.user_text(name)
        assert set(safe) <= usertext.ALLOWED and len(safe) <= usertext.LIMIT
        assert "/" not in safe and "\n" not in safe and "`" not in safe
    assert usertext.user_text("SOL1-freecell-cells=4-N7") == "SOL1-freecell-cells=4-N7"  # codes stay readable
    assert usertext.user_text("/tmp/x-/board.txt") == "_tmp_x-_board.txt"
    for bad in ("A.B", "1x", "x-y", "", "Deal 1"):
        with pytest.raises(ValueError):
            names.checked_stem(bad)


def structure_matches(hostile_text, benign_text):
    """Same code outside comments and strings, same number of comments, every comment well formed (the
    tokenizer raises on one that never closes), and no raw user text left anywhere."""
    assert code_of(hostile_text) == code_of(benign_text)
    assert len(comments_of(hostile_text)) == len(comments_of(benign_text))
    for piece in comments_of(hostile_text):
        if piece.startswith("/-"):
            assert piece.count("/-") == 1 and piece.count("-/") == 1, piece  # no nesting, closes once
        else:
            assert "\n" not in piece


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_keep_the_comment_structure(tmp_path, small_cert, name):
    s0 = spec.ms_deal(11982)
    states = [spec.from_position(packed.unpack(r)) for r in small_cert.records]
    rules = Rules(cells=1)
    mid = states[40]
    sub = render.kernel_states(rules, mid)
    pairs = [  # (with the hostile name, with a plain one)
        (render.module_text(render.cert_context(sub, mid, rules, None, "Board", name)),
         render.module_text(render.cert_context(sub, mid, rules, None, "Board", "b"))),
        (render.module_text(render.cert_context(states[1:], s0, rules, 11982, "M", None, name)),
         render.module_text(render.cert_context(states[1:], s0, rules, 11982, "M", None, "plain"))),
    ]
    ctx = render.cert_context(states, s0, rules, 11982)
    pairs.append((render.standalone_text(ctx, name), render.standalone_text(ctx, "plain.lean")))
    near = spec.State(cols=((spec.Card(13, 3),),) + ((),) * 7, cells=(), home=(13, 13, 13, 12))
    idx = step_indices(spec.STANDARD, near, [spec.moves(spec.STANDARD, near)[0]])
    pairs.append((render.win_text(idx, near, STANDARD, None, "W", name),
                  render.win_text(idx, near, STANDARD, None, "W", "plain")))
    for hostile, benign in pairs:
        structure_matches(hostile, benign)
        raw = name.strip()
        if any(ch not in usertext.ALLOWED for ch in raw):
            assert raw not in hostile
    # certificate level: the board's name is the certificate's label, and it also names the module
    cert = certificate.Certificate(source={"kind": "board", "name": name}, rules=small_cert.rules,
                                   start=small_cert.start, records=small_cert.records,
                                   info={"mutation": {"kind": name}})
    for mutant in (False, True):
        text = render.cert_module_text(cert, mutant)
        audit.lean_tokens(text)   # well formed
        assert re.search(r"^namespace FreeCell\.Generated\.[A-Za-z][A-Za-z0-9]*$", text, re.M)
        for piece in comments_of(text):
            assert "\n" not in piece if piece.startswith("--") else piece.count("-/") == 1


# -- 2. Heartbeats and doc comments --------------------------------------------------------------------------

CHECK = re.compile(r"set_option maxHeartbeats 0 in\n/--(?:(?!-/).)*-/\ntheorem (certificate_ok|mutant_rejected|"
                   r"solution_ok) ", re.S)


def test_every_check_runs_without_a_heartbeat_limit(small_cert):
    texts = [render.cert_module_text(small_cert), render.kernel_text(1, Rules(cells=0))]
    mutant = certificate.Certificate(source=small_cert.source, rules=small_cert.rules, start=small_cert.start,
                                     records=small_cert.records[1:], info={"mutation": {"kind": "deal"}})
    texts.append(render.cert_module_text(mutant, mutant=True))
    near = spec.State(cols=((spec.Card(13, 3),),) + ((),) * 7, cells=(), home=(13, 13, 13, 12))
    idx = [spec.moves(spec.STANDARD, near).index(spec.State(cols=((),) * 8, cells=(), home=(13,) * 4))]
    texts += [render.win_text(idx, near, kernel=k, label="near") for k in (False, True)]
    for text in texts:
        checks = re.findall(r"^theorem (certificate_ok|mutant_rejected|solution_ok) ", text, re.M)
        assert len(checks) == 1
        assert [m.group(1) for m in CHECK.finditer(text)] == checks, text[-900:]
        assert text.count("set_option") == 1


# -- 3. The audit: exact axioms, re-rendering, the library scan ---------------------------------------------

def test_axioms_must_be_exactly_the_expected_ones():
    M = "FreeCell.Generated.Deal11982"
    expected = {f"{M}.thm": f"{M}.certificate_ok", "K.thm": None}

    def check(deal_axioms, kernel_axioms="'K.thm' does not depend on any axioms"):
        out = f"'{M}.thm' depends on axioms: [{deal_axioms}]\n{kernel_axioms}\n"
        return audit.check_axioms_output(out, expected)

    ok = f"propext,\n Classical.choice,\n Quot.sound,\n {M}.certificate_ok._native.native_decide.ax_1_1"
    assert check(ok) == {f"{M}.thm": [], "K.thm": []}
    assert check(f"propext, {M}.certificate_ok._native.native_decide.ax_1_3")[f"{M}.thm"] == []
    assert check(ok, "'K.thm' depends on axioms: [propext, Quot.sound]")["K.thm"] == []
    # the axiom of another declaration, or of another module
    for other in (f"{M}.solution_ok._native.native_decide.ax_1_1", "X.certificate_ok._native.native_decide.ax_1_1",
                  f"{M}.certificate_ok._native.native_decide.ax_1_1x", "Lean.ofReduceBool", "sorryAx"):
        assert check(f"propext, {other}")[f"{M}.thm"], other
    two = ok + f", {M}.certificate_ok._native.native_decide.ax_1_2"
    assert "2 native_decide axioms" in " ".join(check(two)[f"{M}.thm"])
    assert check("propext")[f"{M}.thm"] == [f"0 native_decide axioms of {M}.certificate_ok (expected exactly one)"]
    assert check(ok, f"'K.thm' depends on axioms: [{M}.certificate_ok._native.native_decide.ax_1_1]")["K.thm"]
    assert audit.check_axioms_output(f"'{M}.thm' depends on axioms: [{ok}]\n", expected)["K.thm"] == \
        ["not printed by Lean"]
    assert audit.check_axioms_output("'Z' does not depend on any axioms\n", {}) == \
        {"Z": ["printed, but no generated module names it"]}


def test_audit_compare_refuses_edited_modules(tmp_path, small_cert):
    gen, certs = tmp_path / "gen", tmp_path / "certs"
    gen.mkdir()
    certs.mkdir()
    certificate.write(str(certs / "a.cert"), small_cert)
    mutant = certificate.Certificate(source=small_cert.source, rules=small_cert.rules, start=small_cert.start,
                                     records=small_cert.records[1:], info={"mutation": {"kind": "random:1", "seed": 3}})
    certificate.write(str(certs / "b.cert"), mutant)
    render.render_certificate(small_cert, str(gen))[0]
    render.render_certificate(mutant, str(gen), mutant=True)[0]
    render.write_shipped(str(gen))
    near = spec.State(cols=((spec.Card(13, 3),),) + ((),) * 7, cells=(), home=(13, 13, 13, 12))
    idx = [spec.moves(spec.STANDARD, near).index(spec.State(cols=((),) * 8, cells=(), home=(13,) * 4))]
    render.render_win(idx, str(gen), start=near, label="a /tmp/-/ board")
    assert audit.compare_generated(str(gen), [str(certs)]) == (6, [])

    deal = gen / "Deal11982Cells1.lean"
    good = deal.read_text(encoding="utf-8")
    edits = [good.replace("def cert : ", "@[implemented_by fake]\ndef cert : "),
             good.replace(f"¬ {render.SPEC_ROOT}Won s", f"{render.SPEC_ROOT}Won s"),
             good.replace("  native_decide", "  sorry"),
             good.replace("set_option maxHeartbeats 0 in\n", "set_option debug.skipKernelTC true in\n")]
    for edited in edits:
        assert edited != good
        deal.write_text(edited, encoding="utf-8")
        matched, problems = audit.compare_generated(str(gen), [str(certs)])
        assert matched == 5 and len(problems) == 1 and problems[0].startswith("Deal11982Cells1.lean: differs")
    deal.write_text(good, encoding="utf-8")
    assert audit.compare_generated(str(gen), []) == (4, [
        "Deal11982Cells1.lean: no certificate with this module's name in the certificate folders (`make prove` "
        "writes them to out/; or pass --certs DIR)",
        "MutantDeal11982Cells1Random1Seed3.lean: no certificate with this module's name in the certificate "
        "folders (`make prove` writes them to out/; or pass --certs DIR)"])
    win = next(gen.glob("Win*.lean"))
    text = win.read_text(encoding="utf-8")
    win.write_text(re.sub(r'"moves": \[[0-9, ]*\]', '"moves": [1]', text), encoding="utf-8")  # does not win
    assert "its inputs do not render" in audit.compare_generated(str(gen), [str(certs)])[1][0]
    win.write_text(text, encoding="utf-8")
    (gen / "Notes.lean").write_text("theorem t : True := trivial\n", encoding="utf-8")
    assert audit.compare_generated(str(gen), [str(certs)])[1] == [
        "Notes.lean: not rendered by certgen (no `-- Generated by certgen/render.py` header and `-- render:` line)"]


def test_audit_scan_of_the_library(tmp_path):
    assert audit.scan_library() == []
    lean = tmp_path / "lean"
    shutil.copytree(os.path.join(ROOT, "lean"), lean)
    shutil.copy(os.path.join(ROOT, "lakefile.lean"), tmp_path / "lakefile.lean")
    cert = lean / "FreeCell" / "Cert.lean"
    good = cert.read_text(encoding="utf-8")
    for bad, word in [("@[implemented_by fenceOk] def fake := 1", "attribute"), ("axiom boom : False", "`axiom`"),
                      ("set_option debug.skipKernelTC true", "skipKernelTC"), ("import Lean", "`import Lean`"),
                      ("#eval 1", "`#eval`"), ("unsafe def u := 1", "`unsafe`"),
                      ("macro \"x\" : term => `(1)", "`macro`")]:
        cert.write_text(good.replace("namespace FreeCell\n", f"namespace FreeCell\n{bad}\n", 1)
                        if not bad.startswith("import") else f"{bad}\n{good}", encoding="utf-8")
        problems = audit.scan_library(str(lean), str(tmp_path / "lakefile.lean"))
        assert problems and word in " ".join(problems), (bad, problems)
    # the same words inside comments and strings are harmless: only the pinned digest names the edit
    cert.write_text(good + '\n-- axiom @[extern] #eval\n/- unsafe -/ def s := "sorry @["\n', encoding="utf-8")
    problems = audit.scan_library(str(lean), str(tmp_path / "lakefile.lean"))
    assert len(problems) == 1 and problems[0].startswith("lean/FreeCell/Cert.lean: its SHA-256 is "), problems
    cert.write_text(good, encoding="utf-8")
    lake = (tmp_path / "lakefile.lean").read_text(encoding="utf-8")
    (tmp_path / "lakefile.lean").write_text(lake + '  moreLeanArgs := #["-DdebugSkip"]\n', encoding="utf-8")
    assert "lakefile.lean: `moreLeanArgs`" in audit.scan_library(str(lean), str(tmp_path / "lakefile.lean"))[0]


def test_lean_tokens():
    toks = audit.lean_tokens('def x := "a \\" -- b" -- c /- d\n/- e /- f -/ g -/ \'\\n\' s\' /-- h -/')
    assert toks == [("code", "def x := "), ("string", '"a \\" -- b"'), ("code", " "), ("comment", "-- c /- d"),
                    ("code", "\n"), ("block", "/- e /- f -/ g -/"), ("code", " "), ("char", "'\\n'"),
                    ("code", " s' "), ("block", "/-- h -/")]
    for bad in ("/- a /- b -/", 'x := "abc', "/-- doc"):
        with pytest.raises(audit.AuditError):
            audit.lean_tokens(bad)


def test_audit_command_without_lean(tmp_path):
    """`make audit` on the checkout: the shipped modules compare and the library scans clean; then, with
    no Lean, exit 3 and one line saying nothing was audited by Lean."""
    if shutil.which("lake"):
        pytest.skip("lake is on PATH: the Lean part of the audit is covered by test_render's lake test")
    shipped = {f"WinDeal{d}.lean" for d in (1, 617, 1941)} | {"SpecGuards.lean"} | \
        {f"{render.kernel_stem(d, Rules(cells=c))}.lean" for d, c in render.KERNEL_SHIPPED}
    if set(os.listdir(render.GENERATED)) - shipped:
        pytest.skip("lean/FreeCell/Generated/ holds modules of local `make prove` runs")
    env = dict(os.environ, LEAN_BOOTSTRAP="0", PATH=os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin")
    p = subprocess.run([sys.executable, "-m", "certgen", "audit", "--certs", str(tmp_path)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 3, p.stdout + p.stderr
    assert "6 generated modules are exactly what certgen renders" in p.stdout
    assert p.stderr.strip().splitlines() == [
        "Lean is not available (LEAN_BOOTSTRAP=0): no axioms were printed, nothing was audited by Lean."]


# -- 4. The shipped modules ---------------------------------------------------------------------------------

def test_shipped_modules_are_current():
    for deal, cells in render.KERNEL_SHIPPED:
        rules = Rules(cells=cells)
        path = os.path.join(render.GENERATED, render.kernel_stem(deal, rules) + ".lean")
        assert read_text(path) == render.kernel_text(deal, rules), "python -m certgen render-shipped"
    assert read_text(os.path.join(render.GENERATED, "SpecGuards.lean")) == render.guards_text()
    for deal in (1, 617, 1941):
        path = os.path.join(render.GENERATED, f"WinDeal{deal}.lean")
        assert audit.expected_texts(f"WinDeal{deal}", read_text(path), {}) == [read_text(path)]


def test_kernel_modules():
    sizes = {}
    for deal, cells in render.KERNEL_SHIPPED:
        rules = Rules(cells=cells)
        states = render.kernel_states(rules, spec.ms_deal(deal))
        sizes[cells] = len(states)
        assert states[0] == spec.ms_deal(deal) and not any(spec.won(s) for s in states)
        assert all(t in set(states) for s in states for t in spec.moves(rules.spec(), s))
        # the C core enumerates the same set
        res = search.explore(deals.ms_deal(deal), rules)
        assert {spec.from_position(packed.unpack(r)) for r in res.records()} == set(states)
        text = render.kernel_text(deal, rules)
        assert "native_decide" not in text and text.count("decide +kernel") == 2  # the proof, and its doc comment
        F, deal_lean = "_root_.FreeCell.", f"(_root_.FreeCell.msDeal {deal})"
        assert f"theorem certificate_ok : {F}checkList {{ cells := {cells} }} {deal_lean} cert = _root_.Bool.true := " \
               "by\n  decide +kernel" in text
        assert f"theorem freecell_{deal}_unwinnable : ∀ s, {F}Reachable {{ cells := {cells} }} {deal_lean} s → " \
               f"¬ {F}Won s :=\n  {F}unwinnable_of_list certificate_ok" in text
        body = text.split(f"def cert : _root_.List {F}State := [\n", 1)[1].split("\n]\n", 1)[0]
        assert len(body.split("\n")) == len(states)
        assert "(kernel only)" in text and not re.search(r"\b(sorry|admit|axiom)\b", text)
    assert sizes == {1: 107, 0: 1}
    with pytest.raises(ValueError):
        render.kernel_states(STANDARD, spec.ms_deal(1), limit=1000)  # deal 1 is winnable


def test_guards_agree_with_the_seeds_and_the_spec():
    order = [render._seed_card(n) for n in render.SEED_DEAL1_ORDER.split()]
    assert order == list(spec.deal_order(1))
    board_cols = [line.split() for line in DEAL11982_BOARD.splitlines()]
    seed_cols = [[n.replace("10", "T").replace("♣", "C").replace("♦", "D").replace("♥", "H").replace("♠", "S")
                  for n in col.split()] for col in render.SEED_DEAL11982_COLUMNS]
    assert seed_cols == board_cols
    assert [list(reversed(c)) for c in spec.ms_deal(11982).cols] == \
        [[render._seed_card(n) for n in col.split()] for col in render.SEED_DEAL11982_COLUMNS]
    for name, rules, s, n, _ in render.GUARD_POSITIONS:
        assert len(spec.moves(rules.spec(), s)) == n, name
        assert len(search.successors(spec.to_position(s), rules)) == n, name
    ctx = render.guards_context()
    assert ctx["deal11982_moves"] == len(search.successors(deals.ms_deal(11982))) == 11
    assert decode_state(spec.ms_deal(11982), ctx["start_line"]) == spec.ms_deal(11982)
    text = render.guards_text()
    assert text.count("#guard ") == 9 and "J♦ 2♦ 9♥ J♣" in text
    if os.path.isdir(SEEDS):
        seed003 = open(os.path.join(SEEDS, "003_e2377e392b14d66f.txt"), encoding="utf-8").read()
        seed000 = open(os.path.join(SEEDS, "000_76fe3677d37ee7b0.txt"), encoding="utf-8").read()
        assert render.SEED_DEAL1_ORDER in seed003
        assert ". ".join(f"Column {i}: {c}" for i, c in enumerate(render.SEED_DEAL11982_COLUMNS, 1)) in seed000



def test_render_shipped_writes_the_shipped_modules(tmp_path, run, assert_one_line_error):
    p = run("render-shipped", "--lean-dir", str(tmp_path), module="certgen")
    assert p.returncode == 0, p.stderr
    names = ["KernelDeal1Cells1.lean", "KernelDeal1Cells0.lean", "SpecGuards.lean"]
    assert p.stdout.splitlines() == [f"wrote {tmp_path / n}" for n in names]
    assert sorted(os.listdir(tmp_path)) == sorted(names)
    for n in names:
        assert (tmp_path / n).read_text(encoding="utf-8") == read_text(os.path.join(render.GENERATED, n))
    (tmp_path / "file").write_text("")
    assert_one_line_error(run("render-shipped", "--lean-dir", str(tmp_path / "file"), module="certgen"))
    p = run("--help", module="certgen")
    assert "render-shipped" in p.stdout and "spec-doc" in p.stdout

# -- 5. The faster check: decoding and hashing -------------------------------------------------------------

def test_decode_counts_suits_in_one_pass():
    s0 = spec.ms_deal(11982)
    line = certtext.encode_state(s0, s0)
    assert line == "77776666"
    assert home_of_count(13 + 12 * 64 + 64 ** 3) == (0, 1, 13, 12)
    won = spec.State(cols=((),) * 8, cells=(), home=(13,) * 4)
    assert decode_state(won, "00000000") == won


def test_state_hash_spreads_deal_11982(cert11982):
    """The figure quoted in docs/TRUST.md: of #11982's 84,767 positions, 4 share their hash (two pairs)."""
    from collections import Counter
    from certgen import members
    counts = Counter(certtext.state_hash(s) for s in members.decode(cert11982).states)
    assert len(counts) == 84765 and sum(v for v in counts.values() if v > 1) == 4
    assert certtext.column_hash(()) == 0 and certtext.column_hash((spec.Card(1, 0),)) == 64
    assert certtext.column_hash((spec.Card(2, 1), spec.Card(1, 0), spec.Card(5, 3))) == (3 * 64 + 5) * 64 + 0


# -- 6. Lake ------------------------------------------------------------------------------------------------

def test_lake_options_and_disjoint_libraries(monkeypatch):
    monkeypatch.delenv("FREECELL_PRECOMPILE", raising=False)
    assert config_args() == ["-R"]
    monkeypatch.setenv("FREECELL_PRECOMPILE", "1")
    assert config_args() == ["-R", "-K", "precompile=1"]
    assert config_args(False) == ["-R"]
    lake = open(os.path.join(ROOT, "lakefile.lean"), encoding="utf-8").read()
    libs = re.findall(r"lean_lib (\w+) where\n((?:  .*\n)+)", lake)
    assert [name for name, _ in libs] == ["FreeCell", "FreeCellGenerated", "FreeCellHand"]
    config = {name: dict(re.findall(r"  (\w+) := (.*)", body)) for name, body in libs}
    assert config["FreeCell"]["precompileModules"] == "precompileOpt.isSome"
    assert "get_config? precompile" in lake

    def roots(name):
        return re.findall(r"`([\w.]+)", config[name]["roots"])

    # Lake's LeanLibConfig.isLocalModule: a root is a prefix of the module, or a glob matches it
    hand = ["FreeCell.Spec", "FreeCell.Cert", "FreeCell.Decode"]
    assert roots("FreeCell") == hand and "globs" not in config["FreeCell"]
    assert roots("FreeCellGenerated") == ["FreeCell.Generated"]
    assert config["FreeCellGenerated"]["globs"] == "#[.submodules `FreeCell.Generated]"
    for module in ["FreeCell.Generated.Deal11982", "FreeCell.Generated.SpecGuards"]:
        assert not any(module == r or module.startswith(r + ".") for r in hand)
    for module in hand:
        assert not module.startswith("FreeCell.Generated.")
    assert not os.path.exists(os.path.join(ROOT, "lean", "FreeCell.lean"))  # a root `FreeCell` would claim all
