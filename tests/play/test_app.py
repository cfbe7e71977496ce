"""The web app's JSON API through Starlette's test client: every endpoint, bad input (always a 4xx with
one line, never a 500), supermoves checked as single spec moves, hints and verdicts that only claim
what was proven, and the bounds on solver work."""
import asyncio
import json
import os
import re
import threading
import time

import pytest

try:
    from starlette.testclient import TestClient
except Exception as exc:  # ImportError, or the test client's own complaint about httpx
    pytest.skip(f"no web stack: the web extra is not installed ({exc}); pip install -e '.[test]'",
                allow_module_level=True)

from solver import deals, search, spec
from solver.cards import card_name, parse_card
from solver.lines import CELL, HOME, apply_move, verify_spec
from solver.rules import Rules

from helpers import DEAL11982_BOARD, ROOT

from play import jobs, moves
from play.app import MAX_BODY, create_app

FROZEN_11982 = ["AS", "3H", "6H", "4H", "QS", "AC", "QC", "6S"]
STATEMENT_11982 = ("theorem freecell_11982_unwinnable : ∀ s, _root_.FreeCell.Reachable _root_.FreeCell.Rules.standard "
                   "(_root_.FreeCell.msDeal 11982) s → ¬ _root_.FreeCell.Won s")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("play-cache"))


@pytest.fixture(scope="module")
def client(cache):
    with TestClient(create_app(cache_dir=cache, prerender_lean=False)) as c:
        yield c


def pos_json(pos):
    return {"cols": [[card_name(c) for c in col] for col in pos[0]], "cells": [card_name(c) for c in pos[1]],
            "home": list(pos[2])}


def pos_of(obj):
    return (tuple(tuple(parse_card(c) for c in col) for col in obj["cols"]),
            tuple(sorted(parse_card(c) for c in obj["cells"])), tuple(obj["home"]))


def place(p):
    return CELL if p == "cell" else HOME if p == "home" else p - 1


def assert_error(r, status, pattern=None):
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert set(body) >= {"error"} and "\n" not in body["error"]
    if pattern is not None:
        assert re.search(pattern, body["error"]), body["error"]
    return body["error"]


def C(name):
    return parse_card(name)


def position(cols, cells=(), home=(0, 0, 0, 0)):
    """A valid position: the given columns (card names, bottom first), the rest of the deck spread over
    the columns left empty-handed (``None`` marks a column to keep empty)."""
    used = {C(n) for col in cols if col for n in col} | {C(n) for n in cells}
    for s in range(4):
        used |= {(r - 1) * 4 + s for r in range(1, home[s] + 1)}
    rest = [c for c in range(52) if c not in used]
    out = [list(C(n) for n in col) if col is not None else None for col in cols]
    out += [[] for _ in range(8 - len(out))]
    fill = [i for i, col in enumerate(out) if col is not None and col == [] and i >= len(cols)]
    for k, c in enumerate(rest):
        out[fill[k % len(fill)]].append(c)             # the high cards end on top: no aces there
    return (tuple(tuple(col or ()) for col in out), tuple(sorted(C(n) for n in cells)), tuple(home))


def replay_steps(pos, steps, cells=4):
    """Every step must be a single move whose result is in spec.moves; returns the final position."""
    rules = Rules(cells=cells)
    for st in steps:
        after = apply_move(pos, (C(st["card"]), place(st["from"]), place(st["to"])), rules)
        assert spec.from_position(after) in spec.moves(rules.spec(), spec.from_position(pos))
        pos = after
    return pos


# --- /api/deal --------------------------------------------------------------------------------------------

def test_deal_by_number_code_and_board(client):
    r = client.post("/api/deal", json={"deal": 1})
    assert r.status_code == 200
    d = r.json()
    assert pos_of(d["start"]) == deals.ms_deal(1)
    assert (d["deal"], d["cells"], d["stem"], d["known_unsolvable"]) == (1, 4, "Deal1", False)
    assert client.post("/api/deal", json={"deal": 11982}).json()["known_unsolvable"] is True
    d = client.post("/api/deal", json={"code": "SOL1-freecell-cells=3-C617"}).json()
    assert (d["deal"], d["cells"], d["stem"]) == (617, 3, "Deal617Cells3")
    assert pos_of(d["start"]) == deals.ms_deal(617)
    d = client.post("/api/deal", json={"board": DEAL11982_BOARD}).json()
    assert pos_of(d["start"]) == deals.ms_deal(11982)
    assert d["deal"] is None and d["label"] == "pasted board" and d["stem"].startswith("Board")


@pytest.mark.parametrize("body, pattern", [
    ({"deal": 0}, r"^deal must be a whole number from 1 to 8589934591, got 0$"),
    ({"deal": 2 ** 33}, r"from 1 to 8589934591, got 8589934592"),
    ({"deal": -5}, r"got -5"),
    ({"deal": "12a"}, r'^deal must be a whole number from 1 to 8589934591, got "12a" \(text; send a JSON number\)$'),
    ({"deal": "5"}, r'^deal must be a whole number from 1 to 8589934591, got "5" \(text; send a JSON number\)$'),
    ({"deal": True}, r'^deal must be .* got true \(a boolean; send a JSON number\)$'),
    ({"deal": 5.0}, r'^deal must be .* got 5\.0 \(a number with a point or an exponent; send a JSON number\)$'),
    ({"deal": 1.5}, r"^deal must be a whole number"),
    ({"deal": [1]}, r"^deal must be a whole number"),
    ({"deal": "9" * 60}, r"^deal must be a whole number"),
    ({}, r"^give exactly one of deal"),
    ({"deal": 1, "code": "SOL1-freecell-cells=4-N1"}, r"^give exactly one of deal"),
    ({"code": "SOL2-freecell-cells=4-N1"}, r"^deal code: unsupported rules version"),
    ({"code": 5}, r"^code must be text"),
    ({"board": "AH 2H\n"}, r"^board: 1 column, expected 8$"),
    ({"board": DEAL11982_BOARD.replace("AH", "AS", 1)}, r"^board: card AS appears twice"),
    ({"board": "x" * 5000}, r"longer than 4000 characters"),
])
def test_deal_refuses_bad_input(client, body, pattern):
    assert_error(client.post("/api/deal", json=body), 400, pattern)


@pytest.mark.parametrize("extra", [{"count": "abc"}, {"count": -3}, {"from": 1}, {"zz": 1}])
def test_a_move_takes_card_and_to_only(client, extra):
    # "from" and "count" were accepted and ignored whatever they held 
    start = client.post("/api/deal", json={"deal": 1}).json()["start"]
    key = next(iter(extra))
    assert_error(client.post("/api/move", json={"position": start, "move": {"card": "9S", "to": "cell", **extra}}),
                 400, rf'^move: unknown key "{key}": a move takes card, to$')


@pytest.mark.parametrize("path,body,key,takes", [
    ("/api/deal", {"deal": 5, "cells": 3}, "cells", "board, code, deal"),
    ("/api/verdict", {"deal": 5, "dael": 6}, "dael", "board, code, deal"),
    ("/api/moves", {"position": None, "cels": 3}, "cels", "cells, position"),
    ("/api/autoplay", {"position": None, "foo": 1}, "foo", "cells, position"),
    ("/api/hint", {"position": None, "move": 1}, "move", "cells, position"),
    ("/api/move", {"position": None, "autoplai": True}, "autoplai", "autoplay, cells, move, position"),
])
def test_an_unknown_key_is_refused_by_name(client, path, body, key, takes):
    assert_error(client.post(path, json=body), 400, f'^unknown key "{key}": this request takes {takes}$')


def test_the_deal_limit_is_printed_one_way(client):
    texts = [assert_error(client.post("/api/deal", json={"deal": v}), 400) for v in (0, True, "5", 2 ** 40, [1])]
    assert all("from 1 to 8589934591, got" in t for t in texts), texts


# --- /api/moves and /api/move -----------------------------------------------------------------------------

def test_every_listed_move_applies_and_is_spec_moves(client):
    start = pos_json(deals.ms_deal(1))
    r = client.post("/api/moves", json={"position": start})
    assert r.status_code == 200
    listed = r.json()
    assert (listed["free_cells"], listed["empty_columns"], listed["limit"]) == (4, 0, 5)
    assert {"card": "6S", "to": "cell", "count": 1, "text": "6♠ to a free cell"} in listed["moves"]
    results = set()
    for m in listed["moves"]:
        r = client.post("/api/move", json={"position": start, "move": {"card": m["card"], "to": m["to"]}})
        assert r.status_code == 200, (m, r.text)
        out = r.json()
        assert len(out["steps"]) >= m["count"]
        assert replay_steps(deals.ms_deal(1), out["steps"]) == pos_of(out["position"])
        if m["count"] == 1:
            results.add(spec.from_position(pos_of(out["position"])))
    # the single-card moves listed are exactly the spec's moves
    assert results == set(spec.moves(spec.Rules(), spec.from_position(deals.ms_deal(1))))
    assert len(listed["moves"]) == 8


def test_single_moves_refused_with_the_reason(client):
    start = pos_json(deals.ms_deal(1))
    cases = [
        ({"card": "AH", "to": "home"}, 422, r"^A♥ and the 3 cards on it are not a sequence \(4♦ does not go on A♥\)$"),
        ({"card": "6S", "to": "home"}, 422, r"^6♠ cannot go to its foundation yet: it takes the A♠ next$"),
        ({"card": "6S", "to": 3}, 422, r"^6♠ does not go on 2♥: it needs a red 7$"),
        ({"card": "6S", "to": 1}, 422, r"^6♠ is already in column 1$"),
        ({"card": "XX", "to": 1}, 400, r"^move: \"XX\" is not a card"),
        ({"card": "6S", "to": 9}, 400, r"^move: to: expected a column 1..8"),
        ({"card": "6S"}, 400, r"^move: expected an object"),
    ]
    for move, status, pattern in cases:
        assert_error(client.post("/api/move", json={"position": start, "move": move}), status, pattern)
    # a full set of free cells
    pos = position([["KC", "9H"], ["TC"]], cells=["2C", "2D", "2H", "2S"])
    r = client.post("/api/move", json={"position": pos_json(pos), "move": {"card": "9H", "to": "cell"}})
    assert_error(r, 422, r"^the free cells are full$")
    # a card on its foundation stays there
    pos = position([["KC"]], home=(1, 0, 0, 0))
    r = client.post("/api/move", json={"position": pos_json(pos), "move": {"card": "AC", "to": 3}})
    assert_error(r, 422, r"^A♣ is on its foundation")


def test_supermove_within_the_limit_is_single_spec_moves(client):
    # four empty free cells, no empty column: (4 + 1) x 2^0 = 5 cards may move
    pos = position([["KC", "9H", "8S", "7H", "6S", "5H"], ["TC"]])
    r = client.post("/api/move", json={"position": pos_json(pos), "move": {"card": "9H", "to": 2}})
    assert r.status_code == 200, r.text
    out = r.json()
    assert len(out["steps"]) == 9                       # 4 into the cells, 1 across, 4 out of the cells
    after = replay_steps(pos, out["steps"])
    assert after == pos_of(out["position"])
    assert [card_name(c) for c in after[0][1][-6:]] == ["TC", "9H", "8S", "7H", "6S", "5H"]


def test_supermove_limit_uses_empty_columns_and_refuses_beyond(client):
    # one free cell and one empty column (column 3): (1 + 1) x 2^1 = 4 cards, to a non-empty column
    pos = position([["KC", "9H", "8S", "7H", "6S", "5H"], ["TC"], None, ["9D"]], cells=["2C", "2D", "2H"])
    body = {"position": pos_json(pos), "move": {"card": "9H", "to": 2}}
    assert_error(client.post("/api/move", json=body), 422,
                 r"^5 cards cannot move at once: with 1 empty free cell and 1 empty column at most 4 can "
                 r"\(\(1 \+ 1\) × 2\^1\)$")
    r = client.post("/api/move", json={"position": pos_json(pos), "move": {"card": "8S", "to": 4}})
    assert r.status_code == 200, r.text
    steps = r.json()["steps"]
    assert any(s["to"] == 3 for s in steps)            # the empty column carried part of the run
    after = replay_steps(pos, steps)
    assert [card_name(c) for c in after[0][3][-5:]] == ["9D", "8S", "7H", "6S", "5H"] and after[0][2] == ()
    # to the empty column itself the column does not count: (1 + 1) x 2^0 = 2
    assert_error(client.post("/api/move", json={"position": pos_json(pos), "move": {"card": "7H", "to": 3}}),
                 422, r"^3 cards cannot move at once: .* at most 2 can")
    r = client.post("/api/move", json={"position": pos_json(pos), "move": {"card": "6S", "to": 3}})
    assert r.status_code == 200 and len(r.json()["steps"]) == 3
    # the listed moves agree with the limit
    listed = client.post("/api/moves", json={"position": pos_json(pos)}).json()
    assert {"card": "8S", "to": 4, "count": 4} in [{k: m[k] for k in ("card", "to", "count")} for m in listed["moves"]]
    assert not [m for m in listed["moves"] if m["card"] == "9H" and m["to"] == 2]
    assert (listed["limit"], listed["limit_to_empty"]) == (4, 2)


RUN = ["KH", "QS", "JH", "TS", "9H", "8S", "7H", "6S", "5H", "4S", "3H", "2S"]


def _target_for(name):
    """A card of the other colour one rank higher, from the suits the run does not use."""
    ranks = "A23456789TJQK"
    return ranks[ranks.index(name[0]) + 1] + ("C" if name[1] == "H" else "D")


@pytest.mark.parametrize("free", [0, 1, 2, 4])
@pytest.mark.parametrize("empty", [0, 1, 2])
def test_plan_carries_every_run_within_the_limit_and_no_more(free, empty):
    """The construction (free cells, then empty columns) for every run length, each step checked
    against spec.moves by the engine; one card more than (f + 1) * 2^e is refused."""
    from play.engine import IllegalMove
    limit = (free + 1) * 2 ** empty
    for k in range(1, 12):
        bottom = RUN[12 - k]
        pos = position([RUN, [_target_for(bottom)]] + [None] * empty, cells=["AC", "AD", "2C", "2D"][:4 - free])
        assert moves.supermove_limit(pos, 4, 1) == limit
        if k <= limit:
            after, steps = moves.play(pos, 4, C(bottom), 1)
            assert [card_name(c) for c in after[0][1]] == [_target_for(bottom)] + RUN[12 - k:]
            assert after[1] == pos[1] and all(not after[0][j] for j in range(2, 2 + empty))
            assert replay_steps(pos, [{"card": card_name(c), "from": src + 1 if src < 8 else "cell",
                                       "to": dst + 1 if dst < 8 else "cell"} for c, src, dst in steps]) == after
        else:
            with pytest.raises(IllegalMove, match=f"^{k} cards cannot move at once: .* at most {limit} can"):
                moves.play(pos, 4, C(bottom), 1)


def test_autoplay_moves_only_safe_cards_as_spec_moves(client):
    start = deals.ms_deal(1)
    pos = position([["KC", "2C", "AC"], ["KD", "AD"], ["KS", "3H"], ["QD", "AH", "2H"]])
    r = client.post("/api/autoplay", json={"position": pos_json(pos)})
    assert r.status_code == 200
    out = r.json()
    assert [s["card"] for s in out["auto"]] == ["AC", "2C", "AD"]
    assert pos_of(out["position"]) == search.autoplay(pos, Rules(autoplay="safe"))
    assert all(s["to"] == "home" for s in out["auto"])
    replay_steps(pos, out["auto"])
    # off by default: a move alone moves nothing else
    r = client.post("/api/move", json={"position": pos_json(start), "move": {"card": "6S", "to": "cell"}})
    assert r.json()["auto"] == []
    r = client.post("/api/move", json={"position": pos_json(pos), "move": {"card": "2H", "to": "cell"},
                                       "autoplay": True})
    assert [s["card"] for s in r.json()["auto"]] == ["AC", "2C", "AD", "AH", "2H"]


@pytest.mark.parametrize("position_value, pattern", [
    (None, r"^position: expected an object"),
    ({"cols": [[]] * 7}, r"^position: cols must be a list of 8 columns"),
    ({"cols": [["AH"]] * 8}, r"^position: card AH appears 8 times"),
    ({"cols": [[]] * 8}, r"^position: missing cards: AC, AD, AH"),
    ({"cols": [["ZZ"]] + [[]] * 7}, r"^column 1: \"ZZ\" is not a card"),
    ({"cols": [[1]] + [[]] * 7}, r"^column 1: expected a card name"),
    ({"cols": [[]] * 8, "home": [13, 13, 13]}, r"^position: home must be 4 foundation heights"),
    ({"cols": [[]] * 8, "home": [13, 13, 13, 14]}, r"^position: home must be 4 foundation heights"),
    ({"cols": [[]] * 8, "cells": "AH"}, r"^position: cells must be a list"),
    ({"cols": [[]] * 8, "extra": 1}, r"^position: unknown field \"extra\""),
    ({"cols": [["AH"] * 60] + [[]] * 7}, r"^position: more than 52 cards"),
])
def test_malformed_positions_are_400(client, position_value, pattern):
    for path in ("/api/moves", "/api/move", "/api/autoplay", "/api/hint"):
        body = {"position": position_value}
        if path == "/api/move":
            body["move"] = {"card": "AH", "to": 1}
        assert_error(client.post(path, json=body), 400, pattern)


def test_cells_rule_is_validated(client):
    start = pos_json(deals.ms_deal(1))
    assert_error(client.post("/api/moves", json={"position": start, "cells": 9}), 400,
                 r"^cells must be a whole number from 0 to 8, got 9$")
    pos = position([["KC"]], cells=["2C", "2D"])
    assert_error(client.post("/api/moves", json={"position": pos_json(pos), "cells": 1}), 400,
                 r"^position: 2 cards in the free cells but the rules have 1$")


# --- hints -------------------------------------------------------------------------------------------------

def test_hint_is_the_first_move_of_a_verified_line_and_is_remembered(client):
    start = deals.ms_deal(1)
    r = client.post("/api/hint", json={"position": pos_json(start)})
    h = r.json()
    assert r.status_code == 200 and h["status"] == "move" and h["remembered"] is False
    assert h["move"] == {"card": "3D", "from": 6, "to": "cell"}
    assert h["text"] == "Move 3♦ from column 6 to a free cell."
    nxt = client.post("/api/move", json={"position": pos_json(start), "move": {"card": "3D", "to": "cell"}}).json()
    h2 = client.post("/api/hint", json={"position": nxt["position"]}).json()
    assert h2["status"] == "move" and h2["remembered"] is True and h2["remaining"] == h["remaining"] - 1


def test_hint_never_says_unwinnable_unless_the_enumeration_completed(cache):
    pos = pos_json(deals.ms_deal(11982))
    with TestClient(create_app(cache_dir=cache, hint_states=1000, prerender_lean=False)) as small:
        h = small.post("/api/hint", json={"position": pos}).json()
        assert h["status"] == "unknown"
        assert h["text"] == "No line found within the limit (1,000 positions). This does not mean there is none."
    with TestClient(create_app(cache_dir=cache, prerender_lean=False)) as big:
        h = big.post("/api/hint", json={"position": pos}).json()
        assert h["status"] == "unwinnable" and h["states"] == 84767
        won = (((),) * 8, (), (13, 13, 13, 13))
        assert big.post("/api/hint", json={"position": pos_json(won)}).json()["status"] == "won"


# --- verdicts and files ---------------------------------------------------------------------------------------

def test_verdict_11982_is_proven_with_certificate_and_frozen_cards(client, cache):
    r = client.post("/api/verdict", json={"deal": 11982})
    assert r.status_code == 200
    v = r.json()
    assert v["verdict"] == "unwinnable" and v["known_unsolvable"] is True
    assert (v["reachable"], v["max_home"], v["frozen"]) == (84767, 2, FROZEN_11982)
    assert v["statement"] == STATEMENT_11982
    path = os.path.join(cache, "Deal11982", "Deal11982.cert")
    assert v["certificate"] == {"file": "Deal11982.cert", "bytes": os.path.getsize(path), "states": 84767}
    assert v["downloads"]["certificate"] == "/api/files/Deal11982/Deal11982.cert"
    got = client.get(v["downloads"]["certificate"])
    assert got.status_code == 200 and 'filename="Deal11982.cert"' in got.headers["content-disposition"]
    from certgen import certificate
    cert = certificate.decode(got.content)
    assert cert.states == 84767 and cert.source == {"kind": "ms", "deal": 11982}
    assert not [n for n in os.listdir(os.path.dirname(path)) if n.startswith(".tmp")]   # atomic writes
    # asked again: the same answer, from the cache on disk
    assert os.path.isfile(os.path.join(cache, "Deal11982", "verdict.json"))
    assert client.post("/api/verdict", json={"deal": 11982}).json() == v


def test_standalone_lean_file_is_rendered_on_demand(client, cache):
    v = client.post("/api/verdict", json={"code": "SOL1-freecell-cells=0-C3"}).json()
    assert v["verdict"] == "unwinnable" and v["reachable"] == 12 and v["stem"] == "Deal3Cells0"
    assert v["statement"] == ("theorem freecell_3_unwinnable : ∀ s, _root_.FreeCell.Reachable { cells := 0 } "
                              "(_root_.FreeCell.msDeal 3) s → ¬ _root_.FreeCell.Won s")
    lean_path = os.path.join(cache, "Deal3Cells0", "Deal3Cells0.lean")
    assert not os.path.exists(lean_path)
    r = client.get(v["downloads"]["lean"])
    assert r.status_code == 200 and os.path.isfile(lean_path)
    text = r.text
    assert v["statement"] + " :=" in text and "#print axioms" in text     # the panel shows what the file proves
    assert "sorry" not in text


def test_verdict_winnable_line_replays_and_unknown_claims_nothing(client, cache):
    v = client.post("/api/verdict", json={"deal": 1}).json()
    assert v["verdict"] == "winnable" and v["length"] == len(v["line"]) == 139
    assert v["difficulty"] == "hard" and v["graded_by"] == "survey"     # k = 3 in docs/difficulty-1-32000.csv
    line = [(C(s["card"]), place(s["from"]), place(s["to"])) for s in v["line"]]
    verify_spec(deals.ms_deal(1), line)
    assert v["statement"] == ("theorem freecell_1_winnable : ∃ s, _root_.FreeCell.Reachable "
                              "_root_.FreeCell.Rules.standard (_root_.FreeCell.msDeal 1) s ∧ _root_.FreeCell.Won s")
    assert "downloads" not in v
    assert_error(client.get("/api/files/Deal1/Deal1.cert"), 404, r"^no certificate for Deal1")
    with TestClient(create_app(cache_dir=cache + "-small", verdict_states=100, prerender_lean=False)) as small:
        u = small.post("/api/verdict", json={"deal": 11982}).json()
        assert u["verdict"] == "unknown" and "frozen" not in u and "certificate" not in u


@pytest.mark.parametrize("path", ["/api/files/Deal11982/Deal1.cert", "/api/files/..%2F..%2Fetc/passwd",
                                  "/api/files/Deal11982/..%2Fverdict.json", "/api/files/Nope/Nope.cert"])
def test_files_refuse_anything_else(client, path):
    client.post("/api/verdict", json={"deal": 11982})
    assert_error(client.get(path), 404)


# --- random and daily deals -------------------------------------------------------------------------------------

def test_random_and_daily_deals_are_proven_winnable(client):
    seen = set()
    for want in ("any", "easy", "medium", "hard"):
        r = client.get(f"/api/random?difficulty={want}&seed=7")
        assert r.status_code == 200, r.text
        d = r.json()
        assert d["deal"] not in (11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948)
        assert want in ("any", d["difficulty"])
        v = client.post("/api/verdict", json={"deal": d["deal"]}).json()
        assert v["verdict"] == "winnable" and v["length"] == d["length"]
        seen.add(d["deal"])
    assert len(seen) >= 3
    a = client.get("/api/daily?date=2026-12-01").json()
    assert a == client.get("/api/daily?date=2026-12-01").json()
    assert a["date"] == "2026-12-01" and 1 <= a["deal"] <= 32000
    assert client.get("/api/daily?date=2026-12-02").json()["deal"] != a["deal"]
    assert_error(client.get("/api/daily?date=2026-02-30"), 400, r"^date must be a calendar date YYYY-MM-DD")
    assert_error(client.get("/api/daily?date=tomorrow"), 400, r"^date must be a calendar date")
    assert_error(client.get("/api/random?difficulty=impossible"), 400, r"^difficulty must be any, easy")
    assert_error(client.get("/api/random?seed=-1"), 400, r"^seed must be a whole number")


# --- transport: sizes, JSON, routes, headers ---------------------------------------------------------------------

def test_bodies_that_are_too_large_or_not_json(client):
    assert_error(client.post("/api/deal", content=b" " * (MAX_BODY + 1)), 413, r"larger than 32,768 bytes")
    assert_error(client.post("/api/hint", content=b"{" + b" " * (2 * MAX_BODY)), 413)
    assert_error(client.post("/api/deal", content=b"{deal: 1}"), 400, r"^the request body is not JSON \(line 1")
    assert_error(client.post("/api/deal", content=b"[1, 2]"), 400, r"^the request body must be a JSON object$")
    assert_error(client.post("/api/deal", content=b"\xff\xfe"), 400, r"^the request body is not JSON")
    assert_error(client.post("/api/deal", content=b"[" * 20000), 400)
    assert_error(client.post("/api/deal", content=b""), 400)


def test_routes_and_methods_answer_json(client):
    assert_error(client.get("/api/nothing"), 404, r"^no such page or API endpoint: GET /api/nothing$")
    assert_error(client.get("/api/hint"), 405, r"^method not allowed here: GET /api/hint$")
    assert_error(client.put("/api/deal", json={"deal": 1}), 405)


def test_fuzzed_bodies_never_give_a_500(client):
    values = [None, True, 0, -1, 1e300, "", "x" * 100, [], {}, [[]], {"cols": None}, "AH", ["AH"] * 8]
    keys = ["deal", "code", "board", "position", "move", "cells", "autoplay"]
    for path in ("/api/deal", "/api/moves", "/api/move", "/api/autoplay", "/api/hint", "/api/verdict"):
        for k in keys:
            for v in values:
                r = client.post(path, json={k: v, "position": pos_json(deals.ms_deal(2))} if k != "position" else {k: v})
                assert r.status_code < 500, (path, k, v, r.text)
                if r.status_code >= 400:
                    assert "\n" not in r.json()["error"]


def test_page_and_static_files_are_local(client):
    r = client.get("/")
    assert r.status_code == 200 and "<svg id=\"board\"" in r.text
    assert r.headers["content-security-policy"].startswith("default-src 'self'")
    static = os.path.join(ROOT, "play", "static")
    for name in os.listdir(static):
        assert client.get(f"/static/{name}").status_code == 200
        with open(os.path.join(static, name), encoding="utf-8") as f:
            text = f.read()
        urls = re.findall(r"https?://[^\s\"')]+", text)
        assert all(u.startswith("http://www.w3.org/2000/svg") for u in urls), (name, urls)


# --- bounded work ---------------------------------------------------------------------------------------------------

def test_jobs_refuse_when_full_and_stop_waiting_at_the_time_limit():
    gate = threading.Event()
    pool = jobs.Jobs(workers=1, slots=1)

    async def scenario():
        first = asyncio.ensure_future(pool.run(5, gate.wait))
        await asyncio.sleep(0.05)
        with pytest.raises(jobs.Busy):
            await pool.run(5, lambda: 1)
        gate.set()
        assert await first is True
        await asyncio.sleep(0.05)
        assert await pool.run(5, lambda: 2) == 2          # the slot came back
        t = time.perf_counter()
        with pytest.raises(jobs.TimedOut):
            await pool.run(0.1, time.sleep, 2.0)
        assert time.perf_counter() - t < 1.5               # the request stopped waiting
        with pytest.raises(jobs.Busy):                     # the job goes on in the background
            await pool.run(5, lambda: 3)
        await asyncio.sleep(2.0)
        assert await pool.run(5, lambda: 4) == 4
    try:
        asyncio.run(scenario())
    finally:
        pool.shutdown()


def test_hint_requests_are_bounded_in_time_and_in_number(cache, monkeypatch):
    from play import engine

    def slow_search(pos, cells, max_states):
        time.sleep(2.0)
        return engine.Line("unknown", None, max_states, None, 2.0)
    monkeypatch.setattr(engine, "find_line", slow_search)
    app = create_app(cache_dir=cache, hint_timeout=0.2, slots=1, prerender_lean=False)
    pos = {"position": pos_json(deals.ms_deal(5))}
    with TestClient(app) as c:
        t = time.perf_counter()
        h = c.post("/api/hint", json=pos).json()
        assert h == {"status": "unknown",
                     "text": "No line found within the time limit (0.2 s). This does not mean there is none."}
        r = c.post("/api/hint", json=pos)
        assert time.perf_counter() - t < 1.5
        assert_error(r, 429, r"^the solver is busy")
        assert r.headers["retry-after"] == "1"


def test_a_key_twice_is_refused(client):
    # json.loads keeps the last of two keys: {"deal":1,"deal":2} played deal 2
    for path in ("/api/deal", "/api/verdict"):
        r = client.post(path, content=b'{"deal":1,"deal":2}', headers={"content-type": "application/json"})
        assert_error(r, 400, r"^the request body has the key 'deal' twice$")


def test_difficulty_is_the_surveys_for_deals_1_to_32000():
    from play import catalog
    assert catalog.grade(2, 4, 500) == ("easy", "survey")           # k = 1, whatever the line's length
    assert catalog.grade(3, 4, 80) == ("medium", "survey")          # k = 2
    assert catalog.grade(1, 4, 80) == ("hard", "survey")            # k = 3
    assert catalog.grade(11982, 4, None) == ("not winnable", "survey")
    assert catalog.grade(32001, 4, 80) == ("easy", "line")          # beyond the survey: the line's length
    assert catalog.grade(2, 3, 500) == ("hard", "line")             # another game than the surveyed one
    js = open(os.path.join(os.path.dirname(catalog.__file__), "static", "play.js"), encoding="utf-8").read()
    assert "until the free-cells survey exists" not in js and 'v.graded_by === "survey"' in js


def test_a_query_deal_opens_that_deal():
    # http://127.0.0.1:8000/?deal=11982 opened deal 1: the page read the fragment only
    from play.app import STATIC
    js = open(os.path.join(STATIC, "play.js"), encoding="utf-8").read()
    assert "new URLSearchParams(location.hash.slice(1) || location.search.slice(1))" in js


def test_an_aborted_upload_is_one_log_line(cache, caplog):
    import asyncio
    import logging
    app = create_app(cache_dir=cache, prerender_lean=False)
    sent = []

    async def receive():
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/api/verdict", "raw_path": b"/api/verdict", "root_path": "", "query_string": b"",
             "headers": [(b"content-type", b"application/json"), (b"content-length", b"20")],
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 8000)}
    with caplog.at_level(logging.WARNING, logger="uvicorn.error"):
        asyncio.run(app(scope, receive, send))       # raised ClientDisconnect (uvicorn logged ~50 lines)
    assert [r.getMessage() for r in caplog.records] == [
        "POST /api/verdict: the client disconnected before its request body arrived"]
    assert sent[0]["status"] == 400


def test_the_cache_is_bounded_least_recently_used_first(tmp_path):
    from play.verdicts import DEFAULT_CACHE_MAX, Verdicts
    assert DEFAULT_CACHE_MAX == 1 << 30
    v = Verdicts(str(tmp_path), cache_max=3000)
    for i, stem in enumerate(("Deal1", "Deal2", "Deal3")):
        os.makedirs(tmp_path / stem)
        (tmp_path / stem / "verdict.json").write_bytes(b"x" * 1000)
        os.utime(tmp_path / stem, (1000 + i, 1000 + i))
    v._used("Deal1")                                   # read again: now the most recently used
    assert v.trim() == []                              # 3,000 bytes fit
    os.makedirs(tmp_path / "Deal4")
    (tmp_path / "Deal4" / "verdict.json").write_bytes(b"x" * 1500)
    assert v.trim(keep="Deal4") == ["Deal2", "Deal3"]  # the least recently used go first, until it fits
    assert sorted(os.listdir(tmp_path)) == ["Deal1", "Deal4"]


def test_a_verdict_written_trims_the_cache(tmp_path):
    from play import engine
    from play.verdicts import Verdicts
    v = Verdicts(str(tmp_path), cache_max=1)           # room for nothing but the verdict just written
    v.compute(engine.start_from(deal=2))
    v.compute(engine.start_from(deal=3))
    assert os.listdir(tmp_path) == ["Deal3"]
    assert v.cached(engine.start_from(deal=2)) is None


def test_serve_refuses_a_cache_dir_that_is_a_file(run, assert_one_line_error, tmp_path):
    # /dev/full said "File exists"
    f = tmp_path / "f"
    f.write_text("")
    for where in (str(f), "/dev/full"):
        assert_one_line_error(run("serve", "--cache-dir", where, module="play"),
                              f"cannot use {where} as the cache directory: it is not a folder")
    assert_one_line_error(run("serve", "--cache-max", "5Q", module="play"),
                          "argument --cache-max: must be a size such as 16G, 512M or 64K (K, M, G, T: powers of "
                          "1024; at least 64K, at most 1024T), got '5Q'")


# --- the command line ------------------------------------------------------------------------------------------------

def test_serve_bad_arguments_are_one_line_errors(run, assert_one_line_error):
    assert_one_line_error(run("serve", "--port", "http", module="play"),
                          "argument --port: --port must be a whole number from 1 to 65535, got 'http'")
    assert_one_line_error(run("serve", "--port", "70000", module="play"))
    assert_one_line_error(run("serve", "--bogus", module="play"))


def test_serve_on_a_taken_port_is_one_line(run, assert_one_line_error, tmp_path):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        p = run("serve", "--port", str(port), "--cache-dir", str(tmp_path), module="play")
    assert_one_line_error(p, f"cannot listen on 127.0.0.1:{port}: Address already in use")


def test_serve_on_a_host_that_is_not_here_is_one_line(run, assert_one_line_error, tmp_path):
    line = assert_one_line_error(run("serve", "--host", "no-such-host.invalid", "--port", "8123",
                                     "--cache-dir", str(tmp_path), module="play"))
    assert line.startswith("error: cannot listen on no-such-host.invalid:8123: the address does not resolve")


def test_serve_answers_on_loopback(tmp_path):
    import socket
    import subprocess
    import sys
    import urllib.request
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = ROOT
    proc = subprocess.Popen([sys.executable, "-m", "play", "serve", "--port", str(port), "--quiet",
                             "--cache-dir", str(tmp_path)], cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as r:
                    assert r.status == 200 and b"FreeCell" in r.read()
                    break
            except OSError:
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "the server did not answer within 30 s"
                time.sleep(0.2)
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/deal", data=b'{"deal": 11982}',
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert json.loads(r.read())["known_unsolvable"] is True
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert out.startswith(f"FreeCell with proofs: http://127.0.0.1:{port}/")
