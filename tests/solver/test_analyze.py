"""`analyze`: the cards that never move, the most cards home, exposed counts, and the picture.

Figures from seed 000 for deal 11982 under the spec rules: the frozen cards are exactly
A♠ 3♥ 6♥ 4♥ Q♠ A♣ Q♣ 6♠, the Q♣ is on top of a column in 8 positions, at most 2 cards ever go home.
"""
import json
import os
import xml.etree.ElementTree as ET

import pytest

from solver import analyze as an
from solver import deals, search
from solver.cards import parse_card, pretty_name
from solver.report import frozen_text
from solver.rules import Rules


from helpers import ROOT
SVG_NS = "{http://www.w3.org/2000/svg}"

FROZEN_11982 = "A♠ 3♥ 6♥ 4♥ Q♠ A♣ Q♣ 6♠"
FROZEN_BY_COLUMN = [[], ["AS", "3H", "6H"], ["4H", "QS"], ["AC", "QC"], [], ["6S"], [], []]
QC = parse_card("QC")


@pytest.fixture(scope="module")
def deal():
    return deals.ms_deal(11982)


@pytest.fixture(scope="module")
def spec(deal):
    return an.analyze(deal, Rules(), exposed=QC)


@pytest.fixture(scope="module")
def records(deal):
    r = search.explore(deal, Rules(), stop_on_win=False)
    try:
        assert r.complete
        return r.records()
    finally:
        r.close()


# --- the figures, in-process -----------------------------------------------------------------------------

def test_11982_frozen_cards_exactly(spec):
    assert spec.verdict == "unwinnable" and spec.complete and spec.states == 84767
    assert " ".join(pretty_name(c) for c in spec.frozen_cards) == FROZEN_11982
    assert frozen_text(spec) == FROZEN_11982
    assert spec.to_json()["frozen_by_column"] == FROZEN_BY_COLUMN


def test_11982_exposed_and_max_home(spec):
    assert spec.exposed_positions == 8
    assert spec.max_home == 2


def test_frozen_against_a_naive_check(deal, records, spec):
    """Independently of the pass: a card is frozen iff it is at its start place in every record; the
    Q♣ count by unpacking each record."""
    places = {c: (i, d) for i, col in enumerate(deal[0]) for d, c in enumerate(col)}
    moving = set(places)          # not yet seen away from its start place
    moved = set()
    exposed = 0
    for rec in records:
        cols = rec.split(b"\0")[:8]
        for c in list(moving):
            i, d = places[c]
            if len(cols[i]) <= d or cols[i][d] != c + 1:
                moving.discard(c)
                moved.add(c)
        if any(col[-1:] == bytes([QC + 1]) for col in cols):
            exposed += 1
    assert moving == set(spec.frozen_cards)
    assert exposed == 8
    # and a slower, fully independent look at a few records through the Python unpacker
    from solver import packed
    for rec in records[::5000]:
        cols, _, _ = packed.unpack(rec)
        for c, (i, d) in spec.frozen_places().items():
            assert cols[i][d] == c


def test_canonical_and_autoplay_modes_find_the_same_frozen_cards(deal):
    for rules in (Rules(canonical=True), Rules(autoplay="safe"),
                  Rules(canonical=True, autoplay="safe")):
        a = an.analyze(deal, rules, exposed=QC)
        # the figures of a complete enumeration are facts about the mode's set; the verdict is unwinnable
        # where the mode is proved to lose no win (safe autoplay is: Autoplay.v)
        assert a.complete and a.verdict == "unwinnable", rules
        assert frozen_text(a) == FROZEN_11982, rules
        assert a.max_home == 2 and a.exposed_positions == 8, rules
    assert an.analyze(deal, Rules(canonical=True, autoplay="safe")).states == 61643


def test_fewer_cells_freeze_more(deal):
    a = an.analyze(deal, Rules(cells=3))
    assert a.verdict == "unwinnable"
    assert set(a.frozen_cards) > set(an.analyze(deal).frozen_cards)


def test_a_limit_claims_nothing(deal):
    a = an.analyze(deal, Rules(), exposed=QC, max_states=1000)
    assert a.verdict == "unknown" and not a.complete and a.status == "limit"
    assert a.frozen is None and a.frozen_cards is None and a.frozen_places() == {}
    assert a.max_home is None and a.exposed_positions is None
    obj = a.to_json()
    assert obj["frozen"] is None and obj["max_home"] is None and obj["exposed"]["positions"] is None
    assert obj["max_home_so_far"] >= 0


def test_a_win_settles_frozen_and_home(deal):
    a = an.analyze(deal, Rules(cells=5))      # stops at the first win: no --exposed
    assert a.verdict == "winnable" and a.won and a.status == "won"
    assert a.frozen_cards == [] and a.max_home == 52


def test_pass_on_synthetic_records():
    start = (((0, 4), (8, 12, 16), (), (), (), (), (), ()), (), (0, 0, 0, 0))
    # 8 terminators and nothing else would be an empty board; we only need the column bytes here
    def rec(cols, cells=()):
        b = b"".join(bytes(c + 1 for c in col) + b"\0" for col in cols) + bytes(c + 1 for c in cells)
        return b + bytes(64 - len(b))
    recs = [rec([(0, 4), (8, 12, 16)] + [()] * 6),
            rec([(0, 4), (8, 12)] + [()] * 6, cells=(16,)),
            rec([(0,), (8, 12, 4)] + [()] * 6, cells=(16,)),
            rec([(), (8, 12, 4, 0)] + [()] * 6, cells=(16,))]     # column 1 emptied
    m, ex = an._pass([b"".join(recs)], start, False, 0)
    assert m == [0, 2, 0, 0, 0, 0, 0, 0]
    assert ex == 2          # the A♣ (card 0) is on top of a column in the last two records only
    # canonical: the column continuing start column 2 is found by its bottom card wherever it is
    perm = [rec([(8, 12, 16), (0, 4)] + [()] * 6), rec([(), (), (8, 12), (0, 4)] + [()] * 4, cells=(16,))]
    m, _ = an._pass([b"".join(perm)], start, True, None)
    assert m == [2, 2, 0, 0, 0, 0, 0, 0]


# --- the command line -----------------------------------------------------------------------------------

def test_cli_analyze_plain(run):
    p = run("analyze", "--deal", "11982", "--exposed", "QC")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == ("deal 11982: unwinnable \u2014 all 84,767 reachable positions enumerated, at most 2 "
                        "cards ever reach the foundations")
    assert lines[1].endswith(": " + FROZEN_11982) and lines[1].startswith("never move (8 cards")
    assert "  column 2, bottom 3 of 7: A♠ 3♥ 6♥" in lines
    assert lines[-1] == "Q♣ on top of a column: in 8 positions of the 84,767"


def test_cli_analyze_json_and_svg(run, tmp_path):
    out = tmp_path / "pic.svg"
    p = run("analyze", "--deal", "11982", "--exposed", "q♣", "--json", "--svg", str(out))
    assert p.returncode == 0 and p.stderr == "", p.stderr
    obj = json.loads(p.stdout)
    assert obj["deal"] == 11982 and obj["rules"] == {"cells": 4, "foundation_return": False}
    assert obj["verdict"] == "unwinnable" and obj["complete"] is True and obj["states"] == 84767
    assert obj["frozen"] == ["AS", "3H", "6H", "4H", "QS", "AC", "QC", "6S"]
    assert obj["frozen_by_column"] == FROZEN_BY_COLUMN
    assert {k: obj["exposed"][k] for k in ("card", "positions")} == {"card": "QC", "positions": 8}
    assert len(obj["exposed"]["listed"]) == 8
    assert obj["max_home"] == 2 and obj["svg"] == str(out)
    check_svg(out, frozen=FROZEN_11982.split(), title_has="unwinnable: 84,767 positions, at most 2 cards home")
    assert sorted(os.listdir(tmp_path)) == ["pic.svg"]        # no temporary file left behind


def check_svg(path, frozen, title_has):
    root = ET.parse(path).getroot()
    assert root.tag == SVG_NS + "svg"
    title = root.find(SVG_NS + "title").text
    assert title_has in title
    outlines = [e for e in root.iter(SVG_NS + "rect") if e.get("class") == "frozen"]
    assert len(outlines) == len(frozen)
    assert all(e.get("stroke").lower() == "#f2c230" for e in outlines)        # gold
    assert [e.get("data-card") for e in outlines] == frozen
    cards = [e.get("data-card") for e in root.iter(SVG_NS + "g") if e.get("class") == "card"]
    assert len(cards) == 52
    return root


def test_cli_svg_of_an_unknown_run_draws_no_outlines(run, tmp_path):
    out = tmp_path / "u.svg"
    p = run("analyze", "--deal", "11982", "--max-states", "500", "--svg", str(out))
    assert p.returncode == 0
    assert p.stdout.startswith("deal 11982: unknown \u2014 stopped after 500 positions")
    assert "never move" not in p.stdout
    check_svg(out, frozen=[], title_has="unknown")


def test_cli_svg_with_cells_and_foundations(run, tmp_path):
    board = ("Foundations: H-0 C-0 D-A S-0\nFreecells: 4C 4S\n"
             "AH 3D KD JC 6C JD KC\nAS 3H 6H 5D 2C 7D 8D\n4H QS 5S 5C TH 8H 2S\nAC QC 4D 8C QH 9C 3S\n"
             "2D 8S 9H 9D 6D 2H\n6S 7H JH TD TC QD\nTS 9S KH\nJS KS 3C 7C 7S 5H\n")
    out = tmp_path / "b.svg"
    p = run("analyze", "--board", "-", "--svg", str(out), "--max-states", "20000", "--cells", "5",
            stdin=board)
    assert p.returncode == 0, p.stderr
    root = ET.parse(out).getroot()
    cards = [e.get("data-card") for e in root.iter(SVG_NS + "g") if e.get("class") == "card"]
    assert len(cards) == 52              # 49 in the columns, 2 in the cells, the A♦ on its foundation
    assert cards.count("A♦") == 1 and "4♣" in cards[:2]


def test_cli_analyze_bad_inputs(run, assert_one_line_error, tmp_path):
    assert_one_line_error(run("analyze", "--deal", "11982", "--exposed", "ZZ"),
                          "--exposed: not a card: 'ZZ' (expected a rank A 2-9 T J Q K and a suit C D H S, "
                          "e.g. TS)")
    assert_one_line_error(run("analyze", "--deal", "11982", "--exposed", "1"))
    assert_one_line_error(run("analyze"), "give exactly one of a deal number, --board FILE or --code CODE")
    assert_one_line_error(run("analyze", "--deal", "11982", "--cells", "9"),
                          "--cells must be a whole number from 0 to 8, got '9'")
    assert_one_line_error(run("analyze", "--deal", "11982", "--max-states", "0"))
    assert_one_line_error(run("analyze", "--deal", "11982", "--autoplay", "all"))
    (tmp_path / "afile").write_text("not a folder")
    p = run("analyze", "--deal", "11982", "--svg", str(tmp_path / "afile" / "x.svg"))
    assert_one_line_error(p)
    assert p.stderr.startswith("error: cannot write ")


def test_cli_analyze_board_and_code_sources(run):
    board = run("deal", "11982").stdout
    a = json.loads(run("analyze", "--board", "-", "--json", stdin=board).stdout)
    b = json.loads(run("analyze", "--code", "SOL1-freecell-cells=4-C11982", "--json").stdout)
    for obj in (a, b):
        assert obj["frozen"] == ["AS", "3H", "6H", "4H", "QS", "AC", "QC", "6S"] and obj["max_home"] == 2


def test_help_lists_analyze(run):
    p = run("--help")
    assert "analyze" in p.stdout
    p = run("analyze", "--help")
    assert p.returncode == 0 and "--exposed" in p.stdout and "--svg" in p.stdout


def test_the_committed_example_is_current(run, tmp_path):
    """docs/examples/11982.svg is what `analyze --deal 11982 --exposed QC --svg` draws today."""
    example = ROOT / "docs" / "examples" / "11982.svg"
    if not example.exists():
        pytest.skip("docs/examples/11982.svg not generated")
    out = tmp_path / "now.svg"
    assert run("analyze", "--deal", "11982", "--exposed", "QC", "--svg", str(out)).returncode == 0
    assert out.read_text(encoding="utf-8") == example.read_text(encoding="utf-8")
