"""The eight deals of 1..1,000,000 known to be unsolvable (issue 6), and starts that are not Microsoft
numbers, written out literally in Lean."""
import os
import re

import pytest

from certgen import certificate, checker, known, render
from certgen.known import KNOWN
from solver import deals, search, siggysoft, spec
from solver.rules import STANDARD, Rules
from solver.solve import judge

from helpers import ROOT


def read_table(path):
    """{deal: (positions, most cards home)} from the table docs/KNOWN.md."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 7 and cells[0].isdigit():
                out[int(cells[0])] = (int(cells[1].replace(",", "")), int(cells[2]))
    return out


TABLE = read_table(os.path.join(ROOT, "docs", "KNOWN.md"))


def test_the_table_lists_the_eight():
    assert sorted(TABLE) == sorted(KNOWN) == [11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948]
    assert TABLE[11982] == (84767, 2)


@pytest.mark.parametrize("deal", KNOWN)
def test_each_known_deal_is_unwinnable_with_the_counts_of_the_table(deal):
    res = search.explore(deals.ms_deal(deal), STANDARD)
    assert judge(deals.ms_deal(deal), res, STANDARD) == ("unwinnable", None)
    assert (res.states, res.max_home) == TABLE[deal]


def _cert(deal):
    pos = deals.ms_deal(deal)
    res = search.explore(pos, STANDARD)
    return certificate.make({"kind": "ms", "deal": deal}, {"cells": 4, "foundation_return": False}, pos,
                            res.records(), {"max_home": res.max_home})


@pytest.mark.parametrize("deal", [781948, 455889])
def test_small_known_certificates_are_valid(deal):
    res = checker.check(_cert(deal))
    assert res.ok and res.states == TABLE[deal][0]


@pytest.mark.slow
@pytest.mark.parametrize("deal", KNOWN)
def test_every_known_certificate_is_valid(deal):
    res = checker.check(_cert(deal))
    assert res.ok and res.states == TABLE[deal][0]


LEAN_CARD = re.compile(r"⟨(\d+), (\d+)⟩")


def test_a_code_start_is_written_out_literally_and_matches_the_code(tmp_path):
    code = "SOL1-freecell-cells=1-N1"
    dc = siggysoft.parse_code(code)
    rules = {"cells": dc.cells, "foundation_return": False}
    res = search.explore(dc.position, Rules(**rules))
    assert judge(dc.position, res, Rules(**rules))[0] == "unwinnable"  # one free cell is not enough for SiggySoft's deal 1
    cert = certificate.make({"kind": "code", "code": code}, rules, dc.position, res.records())
    assert checker.check(cert).ok
    text = open(render.render_certificate(cert, str(tmp_path))[0], encoding="utf-8").read()
    assert "msDeal" not in text.split("def certText")[0]
    block = text[text.index("def start : _root_.FreeCell.State :="):text.index("home :=", text.index("def start"))]
    lines = [l for l in block.splitlines() if "-- column" in l]
    assert len(lines) == 8
    cols = [tuple(spec.Card(int(r), int(s)) for r, s in LEAN_CARD.findall(l.split("--")[0])) for l in lines]
    assert tuple(cols) == spec.from_position(dc.position).cols
    assert "{ cells := 1 }" in text or "cells := 1" in text


# -- issue 10, item 4: the tracked table is reproducible; scratch modules go to out/ ------------------------

def _rows(deal_offset=0.0):
    return [{"deal": d, "states": 1000 + i, "max_home": i, "bytes": 4600 + i, "search_seconds": 0.01 * i + deal_offset,
             "check": "valid", "successors": 3000 + i, "seconds": 1.5 * i + deal_offset}
            for i, d in enumerate(KNOWN)]


def test_the_table_is_the_same_bytes_on_every_run(tmp_path):
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    known.write_table(_rows(0.0), str(a))
    known.write_table(_rows(7.25), str(b))      # another run: other timings
    assert a.read_bytes() == b.read_bytes()
    assert not re.search(r"\d{4}-\d\d-\d\d|cores|Python \d", a.read_text())   # no date, no machine


def test_the_tracked_table_is_what_write_table_writes(tmp_path):
    rows = []
    with open(os.path.join(ROOT, "docs", "KNOWN.md"), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cells[0].isdigit():
                assert len(cells) == 7, line      # no timing columns
                rows.append({"deal": int(cells[0]), "states": int(cells[1].replace(",", "")),
                             "max_home": int(cells[2]), "bytes": int(cells[3].replace(",", "")),
                             "check": cells[5], "successors": int(cells[6].replace(",", ""))})
    path = tmp_path / "K.md"
    known.write_table(rows, str(path))
    assert path.read_bytes() == open(os.path.join(ROOT, "docs", "KNOWN.md"), "rb").read()


def test_timings_go_to_a_csv(tmp_path):
    path = known.write_timings(_rows(), str(tmp_path / "t.csv"))
    lines = open(path).read().splitlines()
    assert lines[0] == "deal,search_seconds,pipeline_seconds" and lines[1] == "11982,0.0000,0.00"


@pytest.mark.slow
def test_prove_known_reproduces_the_tracked_table(tmp_path):
    import subprocess
    import sys
    table = tmp_path / "K.md"
    p = subprocess.run([sys.executable, "-m", "certgen", "prove-known", "--out-dir", str(tmp_path / "o"),
                        "--lean-dir", str(tmp_path / "l"), "--table", str(table)], cwd=ROOT, capture_output=True,
                       text=True, env=dict(os.environ, LEAN_BOOTSTRAP="0", PATH=os.path.dirname(sys.executable)))
    assert p.returncode == 3, p.stdout + p.stderr          # 3: no prover ran (no lake, no coqc on PATH)
    assert table.read_bytes() == open(os.path.join(ROOT, "docs", "KNOWN.md"), "rb").read()
    assert (tmp_path / "o" / "known-timings.csv").exists()


def test_prove_win_keeps_scratch_modules_out_of_the_library_folder():
    from certgen.paths import GENERATED, OUT
    from certgen.prove import win_lean_dir
    from solver.source import load
    assert win_lean_dir("Win" + load(deal=5).stem(STANDARD)) == OUT
    assert win_lean_dir("Win" + load(deal=1).stem(Rules(cells=5))) == OUT   # WinDeal1Cells5 does not ship
    for deal in (1, 617, 1941):                              # these ship: re-rendered in place
        assert win_lean_dir("Win" + load(deal=deal).stem(STANDARD)) == GENERATED


def test_prove_win_of_a_deal_not_shipped_writes_to_out(tmp_path):
    import subprocess
    import sys
    from certgen.paths import GENERATED as LEAN_DIR
    mine = os.path.join(ROOT, "out", "WinDeal5.lean")
    existed = os.path.exists(mine)
    env = dict(os.environ, LEAN_BOOTSTRAP="0", HOME=str(tmp_path), PATH=os.path.dirname(sys.executable))
    try:
        p = subprocess.run([sys.executable, "-m", "certgen", "prove-win", "--deal", "5"], cwd=ROOT,
                           capture_output=True, text=True, env=env)
        assert p.returncode == 3, p.stdout + p.stderr
        assert "wrote out/WinDeal5.lean" in p.stdout
        assert "--lean-dir lean/FreeCell/Generated builds them" in p.stdout
        assert not os.path.exists(os.path.join(LEAN_DIR, "WinDeal5.lean"))
    finally:
        if not existed and os.path.exists(mine):
            os.unlink(mine)
