"""The eight deals of 1..1,000,000 known to be unsolvable (issue 6), and starts that are not Microsoft
numbers, written out literally in Lean."""
import os
import re

import pytest

from certgen import certificate, checker, known, render
from certgen.known import KNOWN
from solver import deals, search, siggysoft, spec
from solver.lines import judge
from solver.rules import STANDARD, Rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = known.read_table(os.path.join(ROOT, "docs", "KNOWN.md"))


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
    text = open(render.render_deal(cert, str(tmp_path)), encoding="utf-8").read()
    assert "msDeal" not in text.split("def certText")[0]
    block = text[text.index("def start : State :="):text.index("home :=", text.index("def start"))]
    lines = [l for l in block.splitlines() if "-- column" in l]
    assert len(lines) == 8
    cols = [tuple(spec.Card(int(r), int(s)) for r, s in LEAN_CARD.findall(l.split("--")[0])) for l in lines]
    assert tuple(cols) == spec.from_position(dc.position).cols
    assert "{ cells := 1 }" in text or "cells := 1" in text
