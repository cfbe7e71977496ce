"""The Lean side as far as it can be tested without Lean: the certificate text round trip, the rendered
files (theorem statements, no sorry/admit/axiom, the standalone file holding Spec.lean verbatim),
Spec.lean's size and its line-for-line match with solver/spec.py, winning lines as move indices, the
audit file; and a `lake build` of small rendered modules, run only where `lake` is on PATH."""
import hashlib
import os
import re
import shutil
import subprocess

import pytest

from certgen import certificate, certtext, members, names, render
from solver import lines, spec
from solver.errors import FreecellError
from solver.lines import LineError, step_indices
from solver.rules import STANDARD, Rules
from solver.source import Source

from helpers import ROOT, one_line_error as assert_one_line_error, run as _run
from certgen.sampled import record_of as spec_record
from helpers.certtext import card_of_letter, decode_state

LEAN = os.path.join(ROOT, "lean", "FreeCell")
HAND_WRITTEN = ["Spec.lean", "Cert.lean", "Decode.lean"]
FORBIDDEN = re.compile(r"\b(sorry|admit|axiom)\b")


def enumerate_states(rules, s0, limit=200_000):
    """The reachable set, breadth first (the spec's own moves)."""
    seen, queue, i = {s0}, [s0], 0
    while i < len(queue):
        s = queue[i]
        i += 1
        for t in spec.moves(rules, s):
            if t not in seen:
                seen.add(t)
                queue.append(t)
        assert len(queue) <= limit
    return queue


def winning_path(rules, s0, limit=200_000):
    """Some shortest winning line (breadth first), as the list of positions after s0."""
    prev, queue, i = {s0: None}, [s0], 0
    while i < len(queue):
        s = queue[i]
        i += 1
        if spec.won(s):
            path = []
            while prev[s] is not None:
                path.append(s)
                s = prev[s]
            return path[::-1]
        for t in spec.moves(rules, s):
            if t not in prev:
                prev[t] = s
                queue.append(t)
        assert len(queue) <= limit
    return None


C = spec.Card
# Nearly finished: J♠ in a cell, Q♠ and K♠ in columns; three moves win.
NEARLY_WON = spec.State(cols=((C(13, 3),), (C(12, 3),), (), (), (), (), (), ()), cells=(C(11, 3),),
                        home=(13, 13, 13, 10))


@pytest.fixture(scope="module")
def all_11982(cert11982):
    """Deal 11982's reachable set: the members of its certificate, decoded (the C core's set, which
    tests/solver/test_core.py compares with the spec's own enumeration)."""
    return members.decode(cert11982).states


@pytest.fixture(scope="module")
def small():
    """Deal 11982 with one free cell: 83 positions, unwinnable."""
    rules = Rules(cells=1)
    states = enumerate_states(rules.spec(), spec.ms_deal(11982))
    assert not any(spec.won(s) for s in states)
    return rules, states


# -- The certificate text ------------------------------------------------------------------------------

def test_round_trip_11982(all_11982):
    s0 = spec.ms_deal(11982)
    assert len(all_11982) == 84767
    lines = set()
    for s in all_11982:
        line = certtext.encode_state(s0, s)
        assert re.fullmatch(r"([0-9][A-Za-z]*){8}(\|[A-Za-z]+)?", line), line
        assert decode_state(s0, line) == s
        lines.add(line)
    assert len(lines) == len(all_11982)  # distinct positions, distinct lines


def test_round_trip_foundation_return_and_long_columns():
    rules = spec.Rules(cells=1, foundation_return=True)
    s0 = spec.ms_deal(3)
    states = enumerate_states(rules, s0)
    assert any(s.home != (0, 0, 0, 0) for s in states)
    for s in states:
        assert decode_state(s0, certtext.encode_state(s0, s)) == s
    # A start column longer than 9 cards: k is capped at 9, the rest is spelled out.
    deck = [C(r, su) for r in range(1, 14) for su in range(4)]
    cols = (tuple(deck[:12]),) + tuple(tuple(deck[12 + 5 * i:17 + 5 * i]) for i in range(7))
    home = tuple(13 - sum(1 for col in cols for c in col if c.suit == k) for k in range(4))
    start = spec.State(cols=cols, cells=(), home=home)
    line = certtext.encode_state(start, start)
    assert line.startswith("9" + "".join(certtext.card_letter(c) for c in deck[:3]))
    assert decode_state(start, line) == start


def test_letters():
    assert [certtext.card_letter(C(1, s)) for s in range(4)] == list("ABCD")
    assert certtext.card_letter(C(7, 2)) == "a"  # key 26
    assert certtext.card_letter(C(13, 3)) == "z"  # key 51
    for i in range(52):
        c = spec.card_of_index(i)
        assert card_of_letter(certtext.card_letter(c)) == c


def test_the_text_of_the_records_is_the_text_of_the_positions(cert11982, all_11982):
    # cert_text encodes P64 records (each distinct column once); encode_state a spec State: the same lines
    s0 = spec.ms_deal(11982)
    text = certtext.cert_text(s0, cert11982.records)
    assert text.split("\n") == sorted(certtext.encode_state(s0, s) for s in all_11982)
    assert sorted(decode_state(s0, line) for line in text.split("\n")) == sorted(all_11982)


def test_a_record_with_a_byte_that_is_no_card_is_refused():
    s0 = spec.ms_deal(1)
    rec = spec_record(s0)
    with pytest.raises(ValueError, match="not a card: byte 60"):
        certtext.cert_text(s0, [bytes([60]) + rec[1:]])
    with pytest.raises(ValueError, match="not a card"):
        certtext.encode_state(s0, s0._replace(cells=(C(14, 0),)))


# The SHA-256 of the module rendered from deal 11982's certificate (84,767 positions), as the renderer wrote
# it before it encoded records column by column: the same certificate renders to the same bytes.
DEAL11982_LEAN_SHA256 = "e8e8ee7adae0bc6b506dcf7fbda114e230818237fee69e0a7d22adc3cf21bfaf"


def test_the_module_of_11982_is_the_same_bytes(cert11982):
    text = render.cert_module_text(cert11982)
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == DEAL11982_LEAN_SHA256


# -- Rendered files ------------------------------------------------------------------------------------

def test_rendered_deal(tmp_path, all_11982):
    s0 = spec.ms_deal(11982)
    path = render.write_module(render.cert_context(all_11982, s0, STANDARD, 11982), str(tmp_path))
    assert os.path.basename(path) == "Deal11982.lean"
    text = open(path, encoding="utf-8").read()
    assert "theorem freecell_11982_unwinnable : ∀ s, _root_.FreeCell.Reachable _root_.FreeCell.Rules.standard (_root_.FreeCell.msDeal 11982) s → " \
           "¬ _root_.FreeCell.Won s :=" in text
    assert "theorem certificate_ok : _root_.FreeCell.checkCert _root_.FreeCell.Rules.standard (_root_.FreeCell.msDeal 11982) cert = " \
           "_root_.Bool.true := by\n  native_decide" in text
    assert "namespace FreeCell.Generated.Deal11982\n" in text and "end FreeCell.Generated.Deal11982\n" in text
    body = text.split('def certText : _root_.String := "\n', 1)[1].split('\n"\n', 1)[0]
    assert len(body.split("\n")) == 84767 and '"' not in body and "\\" not in body
    assert not FORBIDDEN.search(text)
    assert os.listdir(tmp_path) == ["Deal11982.lean"]  # atomic write: no temporary left behind


def test_rendered_rules_in_statement(tmp_path, small):
    rules, states = small
    s0 = spec.ms_deal(11982)
    path = render.write_module(render.cert_context(states, s0, rules, 11982), str(tmp_path))
    text = open(path, encoding="utf-8").read()
    assert "∀ s, _root_.FreeCell.Reachable { cells := 1 } (_root_.FreeCell.msDeal 11982) s → ¬ _root_.FreeCell.Won s" in text
    fr = Rules(foundation_return=True)
    assert render.rules_lean(fr) == "{ foundationReturn := true }"
    assert render.rules_lean(Rules(cells=5, foundation_return=True)) == "{ cells := 5, foundationReturn := true }"
    assert Source("ms", None, deal=11982).stem(fr) == "Deal11982FoundationReturn"


def test_rendered_mutant(tmp_path, small):
    rules, states = small
    s0 = spec.ms_deal(11982)
    ctx = render.cert_context([s for s in states if s != s0], s0, rules, 11982, stem="MutantDeal11982Cells1Deal",
                              mutation="deal")
    path = render.write_module(ctx, str(tmp_path))
    text = open(path, encoding="utf-8").read()
    assert "theorem mutant_rejected : _root_.FreeCell.checkCert { cells := 1 } (_root_.FreeCell.msDeal 11982) cert = _root_.Bool.false := " \
           "by\n  native_decide" in text
    assert "unwinnable" not in text and not FORBIDDEN.search(text)


def test_rendered_literal_start(tmp_path, small):
    rules, states = small
    s0 = states[40]  # a position in the middle of the game, written out card by card
    sub = enumerate_states(rules.spec(), s0)
    text = open(render.write_module(render.cert_context(sub, s0, rules, None, label="mid-game"), str(tmp_path)),
                encoding="utf-8").read()
    assert "def start : _root_.FreeCell.State :=\n  { cols := [" in text
    assert "theorem position_unwinnable : ∀ s, _root_.FreeCell.Reachable { cells := 1 } start s → ¬ _root_.FreeCell.Won s :=" in text
    assert "_root_.FreeCell.certSet start certText" in text
    with pytest.raises(FreecellError, match="^the start position is not msDeal 11982$"):
        render.cert_context(sub, s0, rules, 11982)


def test_standalone_holds_spec_verbatim(tmp_path, small):
    rules, states = small
    out = tmp_path / "FreeCell11982.lean"
    render.write_standalone_ctx(render.cert_context(states, spec.ms_deal(11982), rules, 11982), str(out))
    text = out.read_text(encoding="utf-8")
    spec_text = open(os.path.join(LEAN, "Spec.lean"), encoding="utf-8").read()
    assert spec_text in text  # byte for byte, one contiguous piece
    assert text.count("\nimport ") + text.startswith("import ") == 1  # only `import Std.Data.HashSet`
    assert re.search(r"^import Std\.Data\.HashSet$", text, re.M)
    for name in ("Cert.lean", "Decode.lean"):
        body = render._strip_imports(open(os.path.join(LEAN, name), encoding="utf-8").read())
        assert body in text
    assert text.rstrip().endswith("#print axioms FreeCell.Generated.Deal11982Cells1.freecell_11982_unwinnable")
    assert not FORBIDDEN.search(text)


def test_rendered_win(tmp_path):
    path = winning_path(spec.STANDARD, NEARLY_WON)
    idx = step_indices(spec.STANDARD, NEARLY_WON, path)
    assert step_indices(spec.STANDARD, NEARLY_WON, [NEARLY_WON] + path) == idx
    assert lines.check_win(spec.STANDARD, NEARLY_WON, idx)
    assert not lines.check_win(spec.STANDARD, NEARLY_WON, idx[:-1])
    assert lines.replay(spec.STANDARD, NEARLY_WON, [999]) is None
    p = render.render_win(idx, str(tmp_path), start=NEARLY_WON, label="nearly won")
    text = open(p, encoding="utf-8").read()
    assert "theorem position_winnable : ∃ s, _root_.FreeCell.Reachable _root_.FreeCell.Rules.standard start s ∧ _root_.FreeCell.Won s :=" in text
    assert "theorem solution_ok : _root_.FreeCell.checkWin _root_.FreeCell.Rules.standard start solution = _root_.Bool.true := by\n" \
           "  native_decide" in text
    p = render.render_win(idx, str(tmp_path), start=NEARLY_WON, label="nearly won", stem="WinKernel", kernel=True)
    assert "= _root_.Bool.true := by\n  decide +kernel" in open(p, encoding="utf-8").read()
    with pytest.raises(ValueError):
        render.render_win(idx[:-1], str(tmp_path), start=NEARLY_WON)  # does not win
    with pytest.raises(LineError):
        step_indices(spec.STANDARD, NEARLY_WON, [spec.ms_deal(1)])  # not a move


def test_win_statement_for_a_deal(tmp_path, monkeypatch):
    # The statement shape for a Microsoft deal (the line itself is checked by Python first).
    monkeypatch.setattr(render, "check_win", lambda *a: True)
    text = open(render.render_win([0], str(tmp_path), deal=1), encoding="utf-8").read()
    assert "theorem freecell_1_winnable : ∃ s, _root_.FreeCell.Reachable _root_.FreeCell.Rules.standard (_root_.FreeCell.msDeal 1) s ∧ _root_.FreeCell.Won s :=" in text
    assert "namespace FreeCell.Generated.WinDeal1\n" in text


def test_certificate_level_api(tmp_path, small):
    from certgen import certificate
    from solver import packed
    rules, states = small
    cert = certificate.make({"kind": "ms", "deal": 11982}, {"cells": 1, "foundation_return": False},
                            spec.to_position(spec.ms_deal(11982)),
                            [packed.pack(spec.to_position(s)) for s in states])
    assert names.module_name(cert) == "FreeCell.Generated.Deal11982Cells1"
    assert names.theorem_name(cert) == "FreeCell.Generated.Deal11982Cells1.freecell_11982_unwinnable"
    p = render.render_certificate(cert, str(tmp_path))[0]
    assert p.endswith("Deal11982Cells1.lean")
    mutant = certificate.Certificate(source=cert.source, rules=cert.rules, start=cert.start,
                                     records=cert.records[1:], info={"mutation": {"kind": "random:1", "seed": 7}})
    p = render.render_certificate(mutant, str(tmp_path), mutant=True)[0]
    assert os.path.basename(p) == "MutantDeal11982Cells1Random1Seed7.lean"
    p = render.render_standalone(cert, str(tmp_path / "s.lean"))
    assert "freecell_11982_unwinnable" in open(p, encoding="utf-8").read()


def test_audit_file(tmp_path, small):
    from certgen import audit
    rules, states = small
    render.write_module(render.cert_context(states, spec.ms_deal(11982), rules, 11982), str(tmp_path))
    (tmp_path / "Notes.lean").write_text("-- audit: Not.This (kernel only)\n")  # not generated: ignored
    out = tmp_path / "Audit.lean"
    _, expected = audit.render_audit(str(tmp_path), str(out))
    text = out.read_text(encoding="utf-8")
    assert "import FreeCell.Generated.Deal11982Cells1\n" in text
    assert "#print axioms FreeCell.Generated.Deal11982Cells1.freecell_11982_unwinnable" in text
    assert "Not.This" not in text
    assert expected == {"FreeCell.Generated.Deal11982Cells1.freecell_11982_unwinnable":
                        "FreeCell.Generated.Deal11982Cells1.certificate_ok"}


# -- The hand-written Lean files -----------------------------------------------------------------------

def test_hand_written_lean_files():
    for name in HAND_WRITTEN:
        text = open(os.path.join(LEAN, name), encoding="utf-8").read()
        assert not FORBIDDEN.search(text), name
        assert "native_decide" not in text, name
    spec_text = open(os.path.join(LEAN, "Spec.lean"), encoding="utf-8").read()
    assert len(spec_text.splitlines()) <= 135  # issue 12: room for FreeCell Pro's deals above 2**31
    assert not re.search(r"^import ", spec_text, re.M)  # pasteable into a standalone file


def snake(name):
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def test_spec_py_mirrors_spec_lean():
    """Spec.lean's definitions appear in solver/spec.py under snake_case names, in the same order."""
    lean = open(os.path.join(LEAN, "Spec.lean"), encoding="utf-8").read()
    lean_defs = re.findall(r"^(?:def|structure|inductive) (?:Card\.)?(\w+)", lean, re.M)
    py = open(os.path.join(ROOT, "solver", "spec.py"), encoding="utf-8").read()
    py_defs = re.findall(r"^(?:def|class) (\w+)|^(STANDARD) =", py, re.M)
    py_names = [a or b for a, b in py_defs]
    aliases = {"standard": "STANDARD", "won": "won"}
    order = []
    for name in lean_defs:
        if name in ("Won", "Reachable"):  # Lean-only (see the comment at the end of spec.py)
            continue
        py_name = aliases.get(name) or (name if name[0].isupper() else snake(name))
        assert py_name in py_names, (name, py_name)
        order.append(py_names.index(py_name))
    assert order == sorted(order)


# -- Lean itself (only where it is installed) ----------------------------------------------------------

def test_lake_build_small_modules(tmp_path, small):
    from certgen import audit
    lake = shutil.which("lake")
    if lake is None:
        pytest.skip("lake not on PATH: Lean checks not run")
    for name in ("lakefile.lean", "lean-toolchain"):
        shutil.copy(os.path.join(ROOT, name), tmp_path / name)
    (tmp_path / "lean" / "FreeCell").mkdir(parents=True)
    for name in HAND_WRITTEN:
        shutil.copy(os.path.join(LEAN, name), tmp_path / "lean" / "FreeCell" / name)
    gen = str(tmp_path / "lean" / "FreeCell" / "Generated")
    rules, states = small
    s0 = spec.ms_deal(11982)
    render.write_module(render.cert_context(states, s0, rules, 11982), gen)
    render.write_module(render.cert_context(states[1:], s0, rules, 11982, stem="MutantDeal11982Cells1Deal",
                                            mutation="deal"), gen)
    render.write_module(render.cert_context(enumerate_states(rules.spec(), states[40]), states[40], rules, None,
                                            label="mid-game"), gen)
    idx = step_indices(spec.STANDARD, NEARLY_WON, winning_path(spec.STANDARD, NEARLY_WON))
    render.render_win(idx, gen, start=NEARLY_WON, label="nearly won")
    render.render_win(idx, gen, start=NEARLY_WON, label="nearly won", stem="WinKernel", kernel=True)
    render.write_shipped(gen)  # the kernel-only certificates and the #guard tests
    proc = subprocess.run([lake, "build"], cwd=tmp_path, capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    _, expected = audit.render_audit(gen, str(tmp_path / "lean" / "Audit.lean"))
    proc = subprocess.run([lake, "env", "lean", "lean/Audit.lean"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = audit.check_axioms_output(proc.stdout, expected)
    assert len(found) == 7 and all(v == [] for v in found.values()), proc.stdout
    standalone = tmp_path / "Standalone.lean"
    render.write_standalone_ctx(render.cert_context(states, s0, rules, 11982), str(standalone))
    proc = subprocess.run([lake, "env", "lean", str(standalone)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_spec_md_is_current():
    from certgen import specdoc
    with open(os.path.join(ROOT, "docs", "SPEC.md"), encoding="utf-8") as f:
        assert f.read() == specdoc.build(), "docs/SPEC.md is stale: make generated"


def test_spec_doc_prints_or_writes_docs_spec_md(tmp_path, run, assert_one_line_error):
    want = open(os.path.join(ROOT, "docs", "SPEC.md"), encoding="utf-8").read()
    p = run("spec-doc", module="certgen")
    assert (p.returncode, p.stdout, p.stderr) == (0, want, "")
    out = tmp_path / "SPEC.md"
    p = run("spec-doc", "--out", str(out), module="certgen")
    assert (p.returncode, p.stdout) == (0, f"wrote {out}\n") and out.read_text(encoding="utf-8") == want
    assert_one_line_error(run("spec-doc", "--out", str(tmp_path), module="certgen"))
    p = run("spec-doc", "--out", "-", module="certgen")       # standard output: no file was written
    assert (p.returncode, p.stdout, p.stderr) == (0, want, "")


@pytest.mark.parametrize("name", ["Spec.lean", "Spec.v", "spec.py"])
@pytest.mark.parametrize("through_link", [False, True])
def test_spec_doc_refuses_to_write_over_the_spec_it_quotes(tmp_path, run, assert_one_line_error, name,
                                                           through_link):
    from certgen import specdoc
    spec = next(p for p in specdoc.INPUTS if os.path.basename(p) == name)
    before = open(spec, "rb").read()
    out = spec
    if through_link:
        out = tmp_path / "SPEC.md"
        out.symlink_to(spec)
    try:
        p = run("spec-doc", "--out", str(out), module="certgen")
        after = open(spec, "rb").read()
    finally:
        with open(spec, "wb") as f:        # the old code wrote over the spec: put it back
            f.write(before)
    assert after == before
    assert_one_line_error(p)
    assert "is the input" in p.stderr and name in p.stderr


@pytest.mark.parametrize("rules, text", [
    (STANDARD, "the standard rules (4 free cells, nothing back from the foundations)"),
    (Rules(cells=1), "the rules with 1 free cell and nothing back from the foundations"),
    (Rules(cells=5, foundation_return=True), "the rules with 5 free cells and foundation returns allowed"),
    (Rules(cells=0, canonical=True), "the rules with 0 free cells and nothing back from the foundations up to column order"),
    (Rules(canonical=True, autoplay="safe"),
     "the standard rules (4 free cells, nothing back from the foundations) up to column order with safe automatic moves"),
])
def test_the_rules_in_a_generated_file_are_the_rules_words(rules, text):
    # the generated files' words (the Lean and Coq modules shipped say them) come from solver.rules.Rules.words
    assert names.rules_text(rules) == text
    assert all(w in text for w in rules.words())


def test_render_refuses_a_certificate_that_fails_the_check(tmp_path, deal7):
    path = tmp_path / "c.cert"
    certificate.write(str(path), deal7)
    out = tmp_path / "w.cert"
    assert _run("mutate", str(path), "--add-won", "--out", str(out), module="certgen").returncode == 0
    lean = tmp_path / "lean"
    p = _run("render", str(out), "--lean-dir", str(lean), module="certgen")
    assert "fails the check" in assert_one_line_error(p)
    assert not lean.exists() or os.listdir(lean) == []
