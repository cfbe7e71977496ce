"""Card names."""
import pytest

from solver.cards import (card, card_name, is_red, parse_card, parse_rank, pretty_name, rank, rank_name,
                          suit)
from solver.errors import FreecellError


def test_index_convention():
    # c = (rank-1)*4 + suit, suits C D H S: the Microsoft order AC AD AH AS 2C ... KS.
    assert [card_name(c) for c in range(6)] == ["AC", "AD", "AH", "AS", "2C", "2D"]
    assert card_name(51) == "KS" and card_name(36) == "TC"
    assert card(13, 3) == 51 and rank(51) == 13 and suit(51) == 3
    assert [is_red(c) for c in range(4)] == [False, True, True, False]


def test_round_trip_all():
    for c in range(52):
        assert parse_card(card_name(c)) == c
        assert parse_card(card_name(c).lower()) == c
        assert parse_card(pretty_name(c)) == c


@pytest.mark.parametrize("text,c", [("TS", 39), ("10S", 39), ("10s", 39), ("ts", 39), (" QC ", 44),
                                    ("Q♣", 44), ("10♥", 38), ("ah", 2)])
def test_parse_card_forms(text, c):
    assert parse_card(text) == c


def test_pretty_names():
    assert pretty_name(44) == "Q♣" and pretty_name(38) == "10♥" and pretty_name(3) == "A♠"


@pytest.mark.parametrize("bad", ["", "X", "1S", "11S", "0S", "KX", "TSS", "JOKER", "Q"])
def test_parse_card_bad(bad):
    with pytest.raises(FreecellError) as ei:
        parse_card(bad)
    assert str(ei.value).startswith(f"not a card: {bad.strip()!r}")
    assert "\n" not in str(ei.value)


def test_card_name_bad():
    for bad in (-1, 52, "AC", True):
        with pytest.raises(FreecellError):
            card_name(bad)


def test_ranks():
    assert [parse_rank(x) for x in ("0", "A", "2", "T", "10", "j", "Q", "K")] == [0, 1, 2, 10, 10, 11, 12, 13]
    assert [rank_name(h) for h in (0, 1, 10, 13)] == ["0", "A", "T", "K"]
    with pytest.raises(FreecellError):
        parse_rank("14")
