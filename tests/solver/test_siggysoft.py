"""SiggySoft deals and deal codes, against the vectors of seed 003."""
import hashlib

import pytest

from solver import games, siggysoft as sg
from solver.cards import cards_text, parse_card
from solver.deals import ms_deal
from solver.errors import FreecellError

# Seed 003, section 8 (its orders write tens as "10").
KLONDIKE_1_SEED = ("63101e8dcee7da1a831e6d7f1732cddf183fb22f6aed7dcfca95cccda9072d1b39ca8b57d089e319359d83b77df8"
                   "f2955bf4811331d78ae9e9714ec984cc4efc")
KLONDIKE_1_ORDER = ("7D 10S KH QS 8S KD JC AH 10D 3C 3S 4S 10H 5S 7S JD 2D QD 5C AS 9H JS 8H 6H JH 2C 10C KS 9D "
                    "AD 3D QC 4C 4H QH 6S 6D 3H 5D 7C 8D 8C 6C 2H 7H AC 5H 2S 4D 9C 9S KC")
KLONDIKE_4711_SEED = ("dc4e02e1719dcfa0783c164b04ff65d80ce6a12d6fb3d21aec825360ff9859aec42e5ac282b0ec79f71a5d66c8"
                      "8f856906ef01e3b63dc5ec2dd094a8050b00e2")
KLONDIKE_4711_ORDER = ("JS 6H KH 5S 10H 5D 10C 8S JC 4H QS 7D 4S 3S 2C KS 6S AC 8C QC 6C 9S 7S JH 8D 2S 10D 8H 2D "
                       "4D 7C 5C AS 4C 2H KD QH 3H 9D 9C 7H 10S QD AD 6D 5H KC 9H AH JD 3C 3D")
FREECELL_1_SEED = ("0ffe30f6c8b093e74cff461b0cce2ad31cd0da0f1004e76d9f64ea8415937e8e6c01ba536925a5221b1c41f1c06a"
                   "43b42bf2e76341445aa73c108a478be17f2f")
FREECELL_1_ORDER = ("9C QD 6H 3H 7S AH 2C 7H 5S 6S KC 6C 10S 5D AC 6D AS 5C JC 10H 8D 3C 10C AD KH JS 8S 2H 4S "
                    "9H QS 9D JD 7C 2D 9S JH KD 4C 4H 10D 2S 3D 7D 3S KS 8H QH 5H 4D QC 8C")
CLASSIC_1_ORDER = ("JD 2D 9H JC 5D 7H 7C 5H KD KC 9S 5S AD QC KH 3H 2S KS 9D QD JS AS AH 3C 4C 5C TS QH 4H AC "
                   "4D 7S 3S TD 4S TH 8H 2C JH 7D 6D 8S 8D QS 6C 3D 8C TC 6S 9C 2H 6H")


def order(text):
    return [parse_card(c) for c in text.split()]


def test_sha512_fips_vector():
    h = hashlib.sha512(b"abc").hexdigest()
    assert h.startswith("ddaf35a1") and h.endswith("a54ca49f")


def test_fresh_deck():
    assert cards_text(sg.FRESH_DECK[:3]) == "AS 2S 3S"
    assert cards_text(sg.FRESH_DECK[13:14] + sg.FRESH_DECK[26:27] + sg.FRESH_DECK[39:]) == \
        "AH AD AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"
    assert sorted(sg.FRESH_DECK) == list(range(52))


@pytest.mark.parametrize("key,number,seed,expected", [
    ("klondike", 1, KLONDIKE_1_SEED, KLONDIKE_1_ORDER),
    ("klondike", 4711, KLONDIKE_4711_SEED, KLONDIKE_4711_ORDER),
    ("freecell", 1, FREECELL_1_SEED, FREECELL_1_ORDER),
])
def test_numbered_seeds_and_orders(key, number, seed, expected):
    assert sg.numbered_seed(number, key).hex() == seed
    assert sg.shuffle(bytes.fromhex(seed)) == order(expected)


def test_klondike_1_first_below_values():
    st = sg.Stream(bytes.fromhex(KLONDIKE_1_SEED))
    assert [st.below(52) for _ in range(8)] == [51, 7, 41, 3, 5, 46, 47, 35]


def test_stream_blocks():
    seed = bytes.fromhex(FREECELL_1_SEED)
    st = sg.Stream(seed)
    data = st.read(64 + 10)
    b0 = hashlib.sha512(b"SiggySoft Solitaire deal stream v1\x00" + seed + (0).to_bytes(8, "big")).digest()
    b1 = hashlib.sha512(b"SiggySoft Solitaire deal stream v1\x00" + seed + (1).to_bytes(8, "big")).digest()
    assert data == b0 + b1[:10]
    assert st.read(3) == b1[10:13]


def test_below_rejects_the_biased_tail():
    st = sg.Stream(bytes(64))
    feed = iter([b"\xff\xff\xff\xff", b"\x00\x00\x00\x05"])
    st.read = lambda k: next(feed)
    # floor(2^32/3)*3 = 4294967295, so 0xffffffff is discarded and 5 mod 3 = 2 is the answer.
    assert st.below(3) == 2


def test_freecell_numbered_layout_rows_of_eight():
    cols, cells, home = sg.position_from_seed(sg.numbered_seed(1))
    o = order(FREECELL_1_ORDER)
    assert cols == tuple(tuple(o[i::8]) for i in range(8))
    assert cards_text(cols[0]) == "9C 5S AS KH JD TD 5H"
    assert cells == () and home == (0, 0, 0, 0)


def test_code_numbered():
    dc = sg.parse_code("SOL1-freecell-cells=4-N1")
    assert dc.kind == "N" and dc.number == 1 and dc.cells == 4
    assert dc.seed.hex() == FREECELL_1_SEED
    assert dc.position == sg.position_from_seed(sg.numbered_seed(1))
    assert dc.code == "SOL1-freecell-cells=4-N1"


def test_code_classic():
    dc = sg.parse_code("SOL1-freecell-cells=4-C1")
    assert dc.kind == "C" and dc.number == 1 and dc.seed is None
    cols = dc.position[0]
    o = order(CLASSIC_1_ORDER)
    assert cols == tuple(tuple(o[i::8]) for i in range(8))
    assert sg.parse_code("SOL1-freecell-cells=4-C11982").position == ms_deal(11982)


def test_code_seed_round_trip():
    seed = bytes.fromhex(FREECELL_1_SEED)
    b32 = sg.seed_to_base32(seed)
    assert len(b32) == 103 and "=" not in b32
    code = sg.seed_code(seed)
    assert code == "SOL1-freecell-cells=4-S" + b32
    dc = sg.parse_code(code)
    assert dc.kind == "S" and dc.seed == seed and dc.number is None
    assert dc.position == sg.position_from_seed(sg.numbered_seed(1))
    # lowercase base32 is read too; the canonical code is upper case
    assert sg.parse_code("SOL1-freecell-cells=4-S" + b32.lower()).code == code
    assert sg.seed_from_base32(sg.seed_to_base32(bytes(range(64)))) == bytes(range(64))


def test_code_cells_option():
    assert sg.parse_code("SOL1-freecell-cells=5-C11982").cells == 5
    assert sg.parse_code("SOL1-freecell-cells=0-N7").cells == 0
    assert sg.parse_code("SOL1-freecell-cells=8-N7").cells == 8
    assert sg.parse_code("SOL1-freecell--N7").cells == 4            # no options: the default


B32 = sg.seed_to_base32(bytes.fromhex(FREECELL_1_SEED))


@pytest.mark.parametrize("code,message", [
    ("", "deal code: expected SOL<version>-<game>-<options>-<deal>, got ''"),
    ("hello", "deal code: expected SOL<version>-<game>-<options>-<deal>, got 'hello'"),
    ("SOL1-freecell-N1", "deal code: expected SOL<version>-<game>-<options>-<deal>, got 'SOL1-freecell-N1'"),
    ("SOL1-freecell-cells=4-N1-2",
     "deal code: expected SOL<version>-<game>-<options>-<deal>, got 'SOL1-freecell-cells=4-N1-2'"),
    ("SOL2-freecell-cells=4-N1", "deal code: unsupported rules version '2' (only SOL1)"),
    ("SOL1-klondike-draw=3;passes=unlimited;scoring=standard-N4711",
     "only FreeCell can be explored: SOL1-klondike-draw=3;passes=unlimited;scoring=standard-N4711 is a "
     "Klondike deal (`python -m solver deal --code CODE` prints its cards)"),
    ("SOL1-mahjong-x=1-N1", "deal code: unsupported game 'mahjong' (freecell, or klondike, spider, labellelucie, "
     "gaps to print their cards)"),
    ("SOL1-freecell-cells=9-N1", "deal code: cells must be a whole number from 0 to 8, got '9'"),
    ("SOL1-freecell-cells=x-N1", "deal code: cells must be a whole number from 0 to 8, got 'x'"),
    ("SOL1-freecell-cells-N1", "deal code: malformed option 'cells' (expected key=value)"),
    ("SOL1-freecell-cells=4;cells=4-N1", "deal code: option 'cells' given twice"),
    ("SOL1-freecell-cells=4;undo=no-N1", "deal code: unknown FreeCell option 'undo' (only cells=K)"),
    ("SOL1-freecell-cells=4-", "deal code: the deal part is empty (expected N<n>, C<n> or S<seed>)"),
    ("SOL1-freecell-cells=4-X1", "deal code: unknown deal kind 'X' (expected N<n>, C<n> or S<seed>)"),
    ("SOL1-freecell-cells=4-N0", "deal code: a numbered deal must be a whole number from 1 to 1000000, got '0'"),
    ("SOL1-freecell-cells=4-N1000001",
     "deal code: a numbered deal must be a whole number from 1 to 1000000, got '1000001'"),
    ("SOL1-freecell-cells=4-Nx", "deal code: a numbered deal must be a whole number from 1 to 1000000, got 'x'"),
    ("SOL1-freecell-cells=4-C0", "deal code: a classic deal must be a whole number from 1 to 2147483647, got '0'"),
    ("SOL1-freecell-cells=4-C2147483648",
     "deal code: a classic deal must be a whole number from 1 to 2147483647, got '2147483648'"),
    ("SOL1-freecell-cells=4-S" + B32[:-1], "deal code: a seed is 103 base32 characters, got 102"),
    ("SOL1-freecell-cells=4-S" + B32 + "A", "deal code: a seed is 103 base32 characters, got 104"),
    ("SOL1-freecell-cells=4-S" + B32[:-1] + "1", "deal code: the seed has characters that are not base32: '1'"),
    ("SOL1-freecell-cells=4-S" + B32[:-1] + "7",
     "deal code: the seed's last base32 character has bits set past the 512th"),
])
def test_code_errors(code, message):
    # the commands read codes through games.freecell_code: siggysoft.parse_code's words for a FreeCell code
    with pytest.raises(FreecellError) as ei:
        games.freecell_code(code)
    assert str(ei.value) == message


@pytest.mark.parametrize("code,game", [("SOL1-klondike-draw=1-N1", "klondike"), ("SOL1-mahjong-x=1-N1", "mahjong")])
def test_the_low_level_parser_names_no_other_game(code, game):
    # siggysoft.parse_code (certificates' headers too) says only that the game is not FreeCell
    with pytest.raises(sg.OtherGame) as ei:
        sg.parse_code(code)
    assert (ei.value.game, str(ei.value)) == (game, f"deal code: unsupported game {game!r} (only freecell)")


@pytest.mark.parametrize("code", [" SOL1-freecell-cells=4-N1", "SOL1-freecell-cells=4-N1\n",
                                  "SOL1-freecell-cells=4-N 1", "SOL1 -freecell-cells=4-N1",
                                  "SOL1-freecell-cells=4-N1\t", "SOL1-freecell-cells=\u00a04-N1"])
def test_a_code_is_one_word(code):
    # parse_code also reads certificates' headers: it took any code .strip()ped, without a word
    with pytest.raises(FreecellError) as ei:
        sg.parse_code(code)
    assert str(ei.value) == (f"deal code: a space or line break in {code!r} (a code is one word, "
                             f"e.g. SOL1-freecell-cells=4-N1)")


@pytest.mark.parametrize("given", [" SOL1-freecell-cells=4-N1 ", "SOL1-freecell-cells=4-N1\n",
                                   "\tSOL1-freecell-cells=4-N1"])
def test_the_command_line_takes_the_spaces_around_a_code_off(run_json, given):
    # a copy-paste: --help says so
    assert run_json("deal", "--code", given)["source"] == "SOL1-freecell-cells=4-N1"


@pytest.mark.parametrize("cmd, given", [
    ("deal", "SOL1-freecell-cells=4-N 1"),
    ("explore", "SOL1-freecell-cells=4-N1 2"),
    ("deal", "SOL1-klondike-draw=3-N 1"),
])
def test_the_command_line_refuses_a_space_inside_a_code(run, assert_one_line_error, cmd, given):
    assert_one_line_error(run(cmd, "--code", given), f"deal code: a space or line break in {given!r} (a code is "
                                                     f"one word, e.g. SOL1-freecell-cells=4-N1)")


def test_the_help_says_what_happens_to_spaces(run):
    text = " ".join(run("explore", "--help").stdout.split())
    assert "spaces and line breaks around it (a copy-paste) are ignored, none inside it" in text


def test_long_code_shown_shortened():
    with pytest.raises(FreecellError) as ei:
        sg.parse_code("x" * 200)
    assert len(str(ei.value)) < 130 and "..." in str(ei.value)


# --- seed 003 completely (issue 13, item 5): deal --random, --code's order, the other games ---------------

def test_deal_code_prints_the_order(run_json, run):
    obj = run_json("deal", "--code", "SOL1-freecell-cells=4-N1")
    assert " ".join(obj["order"]) == FREECELL_1_ORDER.replace("10", "T")
    assert obj["seed"] == FREECELL_1_SEED
    assert run_json("deal", "--code", "SOL1-freecell-cells=4-C1")["order"] == CLASSIC_1_ORDER.split()
    p = run("deal", "--code", "SOL1-freecell-cells=4-N1", "--order")
    assert p.stdout.splitlines()[-1] == "order: " + FREECELL_1_ORDER.replace("10", "T")


@pytest.mark.parametrize("number,seed,expected", [(1, KLONDIKE_1_SEED, KLONDIKE_1_ORDER),
                                                  (4711, KLONDIKE_4711_SEED, KLONDIKE_4711_ORDER)])
def test_klondike_code_layout(run_json, number, seed, expected):
    for draw in ("1", "3"):     # "Klondike 4711" is the same cards for draw 1 and draw 3
        obj = run_json("deal", "--code", f"SOL1-klondike-draw={draw};passes=unlimited;scoring=standard-N{number}")
        names = expected.replace("10", "T").split()
        assert obj["seed"] == seed and obj["order"] == names and obj["game"] == "klondike"
        assert [len(p) for p in obj["piles"]] == [1, 2, 3, 4, 5, 6, 7]
        assert obj["piles"][0] == names[:1] and obj["piles"][1] == [names[1], names[7]]   # row 2 from pile 2
        assert obj["piles"][6] == [names[i] for i in (6, 12, 17, 21, 24, 26, 27)]
        assert obj["stock"] == names[28:]


def test_klondike_4711_plain(run):
    p = run("deal", "--code", "SOL1-klondike-draw=3;passes=unlimited;scoring=standard-N4711")
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    assert lines[0].endswith("only FreeCell can be explored")
    assert lines[2] == "pile 1: JS" and lines[3] == "pile 2: 6H 8S"
    assert lines[-1].startswith("stock (bottom first): 2D 4D 7C")


def test_other_games_decks(run_json):
    from solver.cards import card_name
    one = run_json("deal", "--code", "SOL1-spider-suits=1-N5")
    assert len(one["order"]) == 104 and set(one["order"]) == {card_name(c) for c in range(3, 52, 4)}
    two = run_json("deal", "--code", "SOL1-spider-suits=2-N5")
    assert len(two["order"]) == 104 and {n[1] for n in two["order"]} == {"S", "H"}
    four = run_json("deal", "--code", "SOL1-spider-suits=4-N5")
    assert sorted(four["order"]) == sorted([card_name(c) for c in range(52)] * 2) and four["layout"] is None
    lucie = run_json("deal", "--code", "SOL1-labellelucie--N9")
    assert sorted(lucie["order"]) == sorted(card_name(c) for c in range(52))


def test_redeal_stream():
    seed = bytes.fromhex(KLONDIKE_1_SEED)
    cards = list(range(20))
    r1, r2 = games.redeal(seed, 1, cards), games.redeal(seed, 2, cards)
    assert sorted(r1) == cards and r1 != r2 and games.redeal(seed, 1, cards) == r1
    st = sg.Stream(seed, b"SiggySoft Solitaire redeal 1 v1")
    first = st.below(20)          # Fisher-Yates from the end: position 19 swaps with below(20)
    assert r1[19] == first


@pytest.mark.parametrize("cmd", ["explore", "solve", "analyze"])
def test_other_games_not_explorable(run, assert_one_line_error, cmd):
    line = assert_one_line_error(run(cmd, "--code", "SOL1-klondike-draw=1-N1"))
    assert line.startswith("error: only FreeCell can be explored: SOL1-klondike-draw=1-N1 is a Klondike deal")


def test_deal_random(run, assert_one_line_error):
    outs = [run("deal", "--random", "--order").stdout.splitlines() for _ in range(2)]
    for out in outs:
        code = out[0].removeprefix("code: ")
        assert code.startswith("SOL1-freecell-cells=4-S") and len(code) == len("SOL1-freecell-cells=4-S") + 103
        dc = sg.parse_code(code)
        from solver.board import format_position
        assert "\n".join(out[1:9]) + "\n" == format_position(dc.position)
        assert out[9] == "order: " + " ".join(__import__("solver.cards", fromlist=["x"]).card_name(c)
                                              for c in sg.shuffle(dc.seed))
    assert outs[0][0] != outs[1][0]
    assert "--random" in assert_one_line_error(run("deal", "--random", "--deal", "5"))
