"""The Microsoft / FreeCell Pro deal generator (seed 000) and its input checks."""
import shutil
import subprocess

import pytest

from solver.cards import card_name, cards_text, parse_card
from solver.deals import MAX_DEAL, deal_order, ms_deal, parse_deal_number, position_from_order
from solver import spec
from solver.board import format_board
from solver.errors import FreecellError

# Seed 003, "Classic FreeCell deal 1".
DEAL1_ORDER = ("JD 2D 9H JC 5D 7H 7C 5H KD KC 9S 5S AD QC KH 3H 2S KS 9D QD JS AS AH 3C 4C 5C TS QH 4H AC "
               "4D 7S 3S TD 4S TH 8H 2C JH 7D 6D 8S 8D QS 6C 3D 8C TC 6S 9C 2H 6H")

# Seed 000, the figure's caption for #11982, columns bottom to top, copied with its symbols.
DEAL11982_SEED_TEXT = """\
Column 1: A♥ 3♦ K♦ J♣ 6♣ J♦ K♣. Column 2: A♠ 3♥ 6♥ 5♦ 2♣ 7♦ 8♦. Column 3: 4♥ Q♠ 5♠ 5♣ 10♥ 8♥ 2♠.
Column 4: A♣ Q♣ 4♦ 8♣ Q♥ 9♣ 3♠. Column 5: 2♦ 8♠ 9♥ 9♦ 6♦ 2♥. Column 6: 6♠ 7♥ J♥ 10♦ 10♣ Q♦.
Column 7: 10♠ A♦ 9♠ K♥ 4♠ 4♣. Column 8: J♠ K♠ 3♣ 7♣ 7♠ 5♥."""

# Freecell Solver's own test data (web-fc-solve-tests.js, ms_deal_24), columns bottom to top.
DEAL24_FCSOLVE = """\
4C 2C 9C 8C QS 4S 2H
5H QH 3C AC 3H 4H QD
QC 9S 6H 9H 3S KS 3D
5D 2S JC 5C JH 6D AS
2D KD TH TC TD 8D
7H JS KH TS KC 7C
AH 5S 6S AD 8H JD
7S 6C 7D 4D 8S 9D
"""

# Deal 617 as commonly printed row by row (the Rosetta Code task's example).
DEAL617_ROWS = """\
7D AD 5C 3S 5S 8C 2D AH
TD 7S QD AC 6D 8H AS KH
TH QC 3H 9D 6S 8D 3D TC
KD 5H 9S 3C 8S 7H 4D JS
4C QS 9C 9H 7C 6H 2C 2S
4S TS 2H 5D JC 6C JH QH
JD KS KC 4H"""


def _seed_columns(text):
    cols = []
    for part in text.replace("\n", " ").split("Column")[1:]:
        cards = part.split(":", 1)[1].strip().rstrip(".").split()
        cols.append(tuple(parse_card(c) for c in cards))
    return tuple(cols)


def test_deal1_order_matches_seed_003():
    assert cards_text(deal_order(1)) == DEAL1_ORDER
    assert cards_text(deal_order("1")) == DEAL1_ORDER


def test_deal1_layout_rows_of_eight_first_row_at_bottom():
    cols, cells, home = ms_deal(1)
    assert cells == () and home == (0, 0, 0, 0)
    assert [len(c) for c in cols] == [7, 7, 7, 7, 6, 6, 6, 6]
    # The famous opening J♦ 2♦ 9♥ J♣ is the bottom row of columns 1-4.
    assert [card_name(c[0]) for c in cols[:4]] == ["JD", "2D", "9H", "JC"]
    assert cards_text(cols[0]) == "JD KD 2S 4C 3S 6D 6S"
    assert cards_text(cols[7]) == "5H 3H 3C 7S 7D TC"


def test_deal11982_layout_matches_seed_000():
    expected = _seed_columns(DEAL11982_SEED_TEXT)
    assert len(expected) == 8 and sum(map(len, expected)) == 52
    assert ms_deal(11982) == (expected, (), (0, 0, 0, 0))
    # The caption's gold cards: A♠ 3♥ 6♥ in column 2, 4♥ Q♠ in column 3, A♣ Q♣ in column 4, 6♠ in 6.
    cols = ms_deal(11982)[0]
    assert cards_text(cols[1][:3]) == "AS 3H 6H"
    assert cards_text(cols[3][:2]) == "AC QC"


def test_deal24_matches_freecell_solver():
    cols = tuple(tuple(parse_card(c) for c in line.split()) for line in DEAL24_FCSOLVE.splitlines())
    assert ms_deal(24)[0] == cols


def test_deal617_rows():
    order = [parse_card(c) for c in DEAL617_ROWS.split()]
    assert deal_order(617) == order


@pytest.mark.parametrize("n", [1, 2, 11982, 32000, 1_000_000, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 33 - 1])
def test_every_deal_is_a_permutation(n):
    order = deal_order(n)
    assert sorted(order) == list(range(52))
    cols = ms_deal(n)[0]
    assert sorted(c for col in cols for c in col) == list(range(52))


def test_deals_differ():
    assert len({tuple(deal_order(n)) for n in range(1, 201)}) == 200


def test_known_unsolvable_deals_generate():
    for n in (11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948):
        assert len(ms_deal(n)[0]) == 8


@pytest.mark.parametrize("raw,n", [("1", 1), ("42", 42), ("2147483647", 2 ** 31 - 1), ("8589934591", MAX_DEAL), (11982, 11982)])
def test_parse_deal_number_good(raw, n):
    assert parse_deal_number(raw) == n


@pytest.mark.parametrize("raw,shown", [
    ("0", "'0'"), ("-1", "'-1'"), ("abc", "'abc'"), ("1.5", "'1.5'"), ("", "''"), ("1e3", "'1e3'"),
    ("8589934592", "'8589934592'"), ("+5", "'+5'"), ("٣", "'٣'"), ("9" * 5000, "'" + "9" * 37 + "...'"),
    (" 42 ", "' 42 '"), ("42\n", "'42\\n'"), ("4 2", "'4 2'"),      # digits only: no spaces around them either
    (0, "0"), (-3, "-3"), (2 ** 33, "8589934592"), (True, "True"), (None, "None"), (1.0, "1.0"),
])
def test_parse_deal_number_bad(raw, shown):
    with pytest.raises(FreecellError) as ei:
        parse_deal_number(raw)
    msg = str(ei.value)
    assert msg == f"deal must be a whole number from 1 to 8589934591, got {shown}"
    assert "\n" not in msg


def test_bad_deal_numbers_rejected_by_generators():
    for bad in (0, -1, 2 ** 33, "x"):
        with pytest.raises(FreecellError):
            deal_order(bad)
        with pytest.raises(FreecellError):
            ms_deal(bad)


def test_position_from_order_checks_the_cards():
    with pytest.raises(FreecellError):
        position_from_order([0] * 52)
    with pytest.raises(FreecellError):
        position_from_order(range(51))


# FreeCell Pro's range (issue 12): the first two columns, bottom card first, as
# `make-microsoft-freecell-board -t N` prints them.
PRO_VECTORS = {
    2147483648: ("QH 3H 7D 4D TS QD 6D", "QC JD 3C 5D 7H 6H 4S"),
    8589934591: ("TC 8S 8C 6C 5H 5C 9C", "2S TD 6D 8D 9H 9S 6S"),
}


@pytest.mark.parametrize("n", sorted(PRO_VECTORS))
def test_freecell_pro_vectors(n):
    lines = format_board(ms_deal(n)).splitlines()
    assert tuple(lines[:2]) == PRO_VECTORS[n]


def _spec_order_keys(n):
    return [spec.key(c) for c in spec.deal_order(n)]


@pytest.mark.parametrize("n", [1, 11982, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 3_000_000_000, 2 ** 32 - 1, 2 ** 32,
                               2 ** 32 + 1, 6_000_000_000, 2 ** 33 - 1])
def test_spec_transliteration_deals_the_same(n):
    assert _spec_order_keys(n) == deal_order(n)


def test_below_2_31_the_spec_is_microsofts():
    # the case split of dealOrder: below 2**31 the old mod-2**31 generator, unchanged
    for n in (1, 617, 11982, 2 ** 31 - 1):
        assert _spec_order_keys(n) == [spec.key(c) for c in spec.deal_from(52, n, tuple(
            spec.Card(i // 4 + 1, i % 4) for i in range(52)))]


FCS_BOARD = shutil.which("make-microsoft-freecell-board")


@pytest.mark.skipif(FCS_BOARD is None, reason="no make-microsoft-freecell-board: apt-get install freecell-solver-bin")
@pytest.mark.parametrize("n", [1, 11982, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 7, 3_141_592_653, 2 ** 32 - 1, 2 ** 32,
                               2 ** 32 + 1, 5_000_000_017, 7_777_777_777, 2 ** 33 - 1])
def test_against_freecell_solver_generator(n):
    out = subprocess.run([FCS_BOARD, "-t", str(n)], capture_output=True, text=True, check=True).stdout
    assert format_board(ms_deal(n)).split() == out.split()
