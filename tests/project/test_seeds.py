"""The seeds' remaining experiments (issue 13), each a command with --json and the figure the README's
"Figures from the seeds" quotes.

- Supermoves reach nothing new: `explore --supermoves` (runs of k <= (f+1)*2^e cards in one step) finds the
  same reachable set of #11982 as single moves, fixed columns (84,767) and canonical + safe autoplay
  (61,643); `python -m solver rules` prints the seed's limits (6 cards, 3 onto an empty column).
- Where a seed figure does not reproduce: McCarter's 73,600 (horne autoplay with fixed columns: 73,303),
  and the seed's "#1 in about 27,000 positions" (DFS, fixed columns 21,063; canonical + safe 25,199).
"""
import os

import pytest

from solver import deals, search
from solver.rules import Rules, supermove_limit


# --- item 2: supermoves --------------------------------------------------------------------------------

def test_supermove_limit_seed_examples(run_json):
    assert supermove_limit(2, 1) == 6 and supermove_limit(2, 1, to_empty=True) == 3
    assert supermove_limit(0, 0) == 1 and supermove_limit(4, 2) == 20
    obj = run_json("rules")
    assert obj["limits"][:2] == [
        {"free_cells": 2, "empty_columns": 1, "to_empty_column": False, "limit": 6},
        {"free_cells": 2, "empty_columns": 1, "to_empty_column": True, "limit": 3}]


def test_rules_command_plain_and_errors(run, assert_one_line_error):
    p = run("rules", "--free-cells", "2", "--empty-columns", "1", "--to-empty")
    assert p.returncode == 0
    assert p.stdout == "2 empty free cells, 1 empty column, moving into an empty column: (2+1)\u00b72^0 = 3 cards\n"
    assert "together" in assert_one_line_error(run("rules", "--free-cells", "2"))
    assert "empty destination" in assert_one_line_error(
        run("rules", "--free-cells", "1", "--empty-columns", "0", "--to-empty"))


def test_supermoves_are_generated():
    """Not a no-op: a position with a run of 3 and room for it gets a successor single moves do not give."""
    start = deals.ms_deal(11982)
    sm = Rules(supermoves=True)
    r = search.explore(start, sm, stop_on_win=False)
    try:
        recs = r.records()
    finally:
        r.close()
    found = 0
    for rec in recs[:5000]:
        single = set(search.successors_p64(rec))
        more = set(search.successors_p64(rec, sm)) - single
        if more:
            found += 1
            assert single <= set(search.successors_p64(rec, sm))
    assert found > 0


@pytest.mark.parametrize("flags,states", [((), 84767), (("--canonical", "--autoplay", "safe"), 61643)])
def test_supermoves_reach_nothing_new(run_json, flags, states):
    plain = run_json("explore", "--deal", "11982", *flags)
    sup = run_json("explore", "--deal", "11982", *flags, "--supermoves")
    assert plain["states"] == sup["states"] == states
    assert sup["rules"]["supermoves"] is True and sup["max_home"] == 2 and sup["complete"] is True
    # safe autoplay is proved to lose no win too (Autoplay.v): unwinnable in both modes
    assert plain["verdict"] == sup["verdict"] == "unwinnable"


@pytest.mark.parametrize("canonical,autoplay", [(False, "none"), (True, "safe")])
def test_supermoves_same_set(canonical, autoplay):
    """The same positions, not only as many."""
    sets = []
    for sm in (False, True):
        r = search.explore(deals.ms_deal(11982), Rules(autoplay=autoplay, canonical=canonical, supermoves=sm),
                           stop_on_win=False)
        try:
            sets.append(set(r.records()))
        finally:
            r.close()
    assert sets[0] == sets[1]


# --- item 6: the seeds' figures that do not reproduce exactly --------------------------------------------

@pytest.mark.parametrize("flags,states", [
    (("--autoplay", "horne"), 73303),                        # McCarter's 73,600: the nearest of our modes
    (("--canonical", "--autoplay", "horne"), 71775),
    (("--autoplay", "safe"), 63171),
    (("--canonical",), 83239),
    (("--foundation-return",), 94851),
])
def test_11982_counts_under_every_mode(run_json, flags, states):
    obj = run_json("explore", "--deal", "11982", *flags)
    assert obj["states"] == states and obj["max_home"] == 2 and obj["complete"] is True
    assert obj["verdict"] == "unwinnable"      # every mode here is proved to lose no win (safe: Autoplay.v)


@pytest.mark.parametrize("flags,states", [((), 21063), (("--canonical", "--autoplay", "safe"), 25199)])
def test_deal1_positions_to_first_win(run_json, flags, states):
    """The seed's "#1 solved in about 27,000 positions": our DFS stores this many before its first win."""
    obj = run_json("explore", "--deal", "1", *flags)
    assert obj["verdict"] == "winnable" and obj["states"] == states


# --- item 3: the eight Q♣ positions, drawn; the deal picture's header -------------------------------------

def test_exposed_qc_positions_drawn(run, tmp_path):
    import json
    import xml.etree.ElementTree as ET
    d = tmp_path / "qc"
    p = run("analyze", "--deal", "11982", "--exposed", "QC", "--svg-dir", str(d), "--json")
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)
    listed = obj["exposed"]["listed"]
    assert obj["exposed"]["positions"] == len(listed) == 8
    assert obj["svg_dir"] == [str(d / f"exposed-QC-{n}.svg") for n in range(1, 9)]
    assert sorted(os.listdir(d)) == sorted(f"exposed-QC-{n}.svg" for n in range(1, 9))
    for pos in listed:     # every one: four full cells, column 4 dug to A♣ with Q♣ on top, nothing home
        assert pos["columns"][3] == ["AC", "QC"] and len(pos["freecells"]) == 4
        assert sum(pos["foundations"].values()) == 0
    # the seed's picture: cells 3♠ 9♣ 8♣ 4♦, Q♥ on K♣ at the end of column 1
    seed = [n for n, pos in enumerate(listed, 1) if sorted(pos["freecells"]) == ["3S", "4D", "8C", "9C"]]
    assert seed and all(listed[n - 1]["columns"][0][-2:] == ["KC", "QH"] for n in seed)
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(d / f"exposed-QC-{seed[0]}.svg").getroot()
    tinted = [g.get("data-card") for g in root.iter(ns + "g") if g.get("class") == "card tinted"]
    assert sorted(tinted) == ["K\u2665", "K\u2666"]        # the buried red kings
    assert len([r for r in root.iter(ns + "rect") if r.get("class") == "highlight"]) == 1


def test_svg_dir_needs_exposed(run, assert_one_line_error, tmp_path):
    assert "--exposed" in assert_one_line_error(run("analyze", "--deal", "11982", "--svg-dir", str(tmp_path)))


def test_deal_picture_header(run, tmp_path):
    """Seed 000's header: the frozen cards in gold, a dashed fence labelled C, the theorem's statement."""
    import xml.etree.ElementTree as ET
    out = tmp_path / "d.svg"
    assert run("analyze", "--deal", "11982", "--svg", str(out)).returncode == 0
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(out).getroot()
    texts = {t.get("class"): "".join(t.itertext()) for t in root.iter(ns + "text") if t.get("class")}
    assert texts["fence-label"] == "C"
    assert texts["statement"] == "\u2200 s, Reachable s \u2192 \u00ac Won s"
    assert len([r for r in root.iter(ns + "rect") if r.get("class") == "frozen"]) == 8


# --- item 1: one favor away (--hand 1, docs/HAND.md) ---------------------------------------------------

def test_11982_one_favor_away(run_json):
    obj = run_json("explore", "--deal", "11982", "--hand", "1")
    assert obj["verdict"] == "winnable" and obj["rules"] == {"cells": 4, "foundation_return": False, "hand": 1}
    assert obj["line_length"] == len(obj["steps"]) == 114 and obj["favor_step"] == 31
    assert obj["steps"][30] == ("FAVOR: hold 9\u2666 from column 6; 10\u2663 column 6 \u2192 column 5; put 9\u2666 "
                                "down on column 5")
    assert sum(s.startswith("FAVOR") for s in obj["steps"]) == 1


def test_hand_line_replays_and_a_tampered_one_fails():
    from solver import deals, hand, spec
    from solver.lines import LineError
    rules = Rules(hand=1)
    r = hand.one_favor(deals.ms_deal(11982), rules)
    assert hand.replay(rules, r.line) == [r.favor_at]
    s, t = r.line[r.favor_at], r.line[r.favor_at + 1]
    assert len(s.cells) == 4 and t not in spec.moves(rules.spec(), s) and t in hand.favors(rules.spec(), s)
    with pytest.raises(LineError):
        hand.replay(Rules(), r.line)              # without the favor the line is not legal
    with pytest.raises(LineError):
        hand.replay(rules, r.line[:-1])           # not won


def test_favors_c_matches_python():
    """The C core's favor successors (rules.hand) are the Python favors, on positions with full cells."""
    from solver import deals, hand, spec
    r = search.explore(deals.ms_deal(11982), Rules(), stop_on_win=False)
    try:
        full = [rec for rec in r.records() if len(rec.rstrip(b"\0").split(b"\0")) == 9
                and len(rec.rstrip(b"\0").split(b"\0")[-1]) == 4][:40]
    finally:
        r.close()
    assert len(full) == 40
    for rec in full:
        pos = __import__("solver.packed", fromlist=["unpack"]).unpack(rec)
        py = {spec.to_position(t) for t in hand.favors(spec.Rules(hand=1), spec.from_position(pos))}
        c = search.Search(pos, Rules(hand=1), stop_on_win=False, order="bfs")
        try:
            c.run(1)     # expand the start only
            kids = {c.state(k) for k in range(1, len(c))}
        finally:
            c.close()
        plain = set(search.successors(pos))
        assert py - plain <= kids and kids <= py | plain


@pytest.mark.slow
@pytest.mark.parametrize("deal,length,step", [(186216, 171, 8), (455889, 138, 20), (495505, 182, 8),
                                              (512118, 116, 32), (781948, 166, 22)])
def test_known_deals_one_favor_opens(run_json, deal, length, step):
    obj = run_json("explore", "--deal", str(deal), "--hand", "1")
    assert obj["verdict"] == "winnable" and obj["line_length"] == length and obj["favor_step"] == step


def test_hand_flag_errors(run, assert_one_line_error):
    assert "--hand" in assert_one_line_error(run("explore", "--deal", "1", "--hand", "2"))
    assert "plain rules only" in assert_one_line_error(run("explore", "--deal", "1", "--hand", "1", "--canonical"))
