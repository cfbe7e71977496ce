"""Freecell Solver's board and full-position text formats, and reading a board (a byte order mark, a standard
input that cannot be read)."""
import io

import pytest

from solver import board, deals
from solver.board import format_board, format_position, parse_board, read_board_arg, validate_position
from solver.cards import parse_card
from solver.deals import ms_deal
from solver.errors import FreecellError

from helpers import DEAL11982_BOARD, run

# Freecell Solver's printout of deal 24 after three moves (AS home, JD and 8H to the free cells), from its
# own test data (web-fc-solve-tests.js).
DEAL24_AFTER_3 = """\
Foundations: H-0 C-0 D-0 S-A
Freecells:  JD  8H
: 4C 2C 9C 8C QS 4S 2H
: 5H QH 3C AC 3H 4H QD
: QC 9S 6H 9H 3S KS 3D
: 5D 2S JC 5C JH 6D
: 2D KD TH TC TD 8D
: 7H JS KH TS KC 7C
: AH 5S 6S AD
: 7S 6C 7D 4D 8S 9D
"""


def cs(text):
    return tuple(parse_card(c) for c in text.split())


def test_format_board_11982(deal11982_board):
    assert format_board(ms_deal(11982)) == deal11982_board
    assert format_position(ms_deal(11982)) == deal11982_board


@pytest.mark.parametrize("n", list(range(1, 301)) + [11982, 617, 1941, 1_000_000, 2 ** 31 - 1])
def test_round_trip_deals(n):
    pos = ms_deal(n)
    assert parse_board(format_board(pos)) == pos
    assert parse_board(format_position(pos)) == pos


def test_input_variants(deal11982_board):
    pos = ms_deal(11982)
    variant = "\n\n" + deal11982_board.replace("T", "10").lower().replace("\n", "  \r\n") + "\n   \n"
    assert parse_board(variant) == pos
    colon = "".join(": " + line + "\n" for line in deal11982_board.splitlines())
    assert parse_board(colon) == pos
    nospace = "".join(":" + line + "\n" for line in deal11982_board.splitlines())
    assert parse_board(nospace) == pos
    assert parse_board(deal11982_board.rstrip("\n")) == pos


def test_fcsolve_position_printout():
    cols, cells, home = parse_board(DEAL24_AFTER_3)
    start = ms_deal(24)[0]
    assert home == (0, 0, 0, 1)
    assert cells == tuple(sorted(cs("JD 8H")))
    assert cols[3] == start[3][:-1] and cols[6] == start[6][:-2]
    assert cols[:3] == start[:3] and cols[4:6] == start[4:6] and cols[7] == start[7]


def _mid_game():
    # Deal 11982 rearranged by hand (not by legal play; the format only cares that the 52 cards are
    # accounted for): AH home, 4C and 4S in the cells, column 5 emptied onto column 8.
    cols = [list(c) for c in ms_deal(11982)[0]]
    cols[0].remove(parse_card("AH"))
    cols[6].remove(parse_card("4C"))
    cols[6].remove(parse_card("4S"))
    moved = cols[4]
    cols[4] = []
    cols[7].extend(moved)
    return (tuple(map(tuple, cols)), tuple(sorted(cs("4C 4S"))), (0, 0, 1, 0))


def test_full_position_round_trip():
    pos = _mid_game()
    text = format_position(pos)
    lines = text.splitlines()
    assert lines[0] == "Foundations: H-A C-0 D-0 S-0"
    assert lines[1] == "Freecells:  4C  4S"
    assert lines[2].startswith(": 3D KD") and lines[6] == ":"
    assert len(lines) == 10
    assert parse_board(text) == pos


def test_full_position_forms():
    pos = _mid_game()
    text = format_position(pos)
    # Suits in any order and missing suits meaning empty; "-" for empty cells; "Founds:" and "FC:".
    alt = text.replace("Foundations: H-A C-0 D-0 S-0", "Founds: h-A")
    alt = alt.replace("Freecells:  4C  4S", "FC: - 4c -- 4S -")
    assert parse_board(alt) == pos
    # Foundations and Freecells lines may come after the columns.
    lines = text.splitlines()
    assert parse_board("\n".join(lines[2:] + lines[:2])) == pos


def test_empty_column_only_board_uses_full_format():
    # No cells, nothing home, but column 5 stacked onto column 8: a blank line would be lost, so the
    # full format with ":" lines is used.
    cols = [list(c) for c in ms_deal(11982)[0]]
    cols[7].extend(cols[4])
    cols[4] = []
    pos = (tuple(map(tuple, cols)), (), (0, 0, 0, 0))
    text = format_position(pos)
    assert text.splitlines()[:2] == ["Foundations: H-0 C-0 D-0 S-0", "Freecells:"]
    assert text.splitlines()[6] == ":"
    assert parse_board(text) == pos
    # the same text without the ':' lines loses the empty column
    assert _bad(format_board(pos)) == "board: 7 columns, expected 8"


def test_foundations_high():
    # Everything home but the kings: four columns with one king each.
    cols = tuple((parse_card(k),) for k in ("KC", "KD", "KH", "KS")) + ((),) * 4
    pos = (cols, (), (12, 12, 12, 12))
    text = format_position(pos)
    assert text.splitlines()[0] == "Foundations: H-Q C-Q D-Q S-Q"
    assert parse_board(text) == pos
    won = (((),) * 8, (), (13, 13, 13, 13))
    assert parse_board(format_position(won)) == won


def _bad(text):
    with pytest.raises(FreecellError) as ei:
        parse_board(text)
    msg = str(ei.value)
    assert "\n" not in msg and msg.startswith("board: ")
    return msg


def test_bad_column_counts(deal11982_board):
    lines = deal11982_board.splitlines()
    assert _bad("\n".join(lines[:7])) == "board: 7 columns, expected 8"
    assert _bad(deal11982_board + ":\n") == "board: 9 columns, expected 8"
    assert _bad("AH\n") == "board: 1 column, expected 8"
    assert _bad("") == "board: empty input, expected 8 columns of cards"
    assert _bad("\n  \n") == "board: empty input, expected 8 columns of cards"


def test_bad_duplicate_card(deal11982_board):
    text = deal11982_board.replace("5H\n", "7H\n")   # column 8's top 5H -> a second 7H (column 6 has one)
    assert _bad(text) == "board: card 7H appears twice: in column 6 and in column 8"


def test_bad_missing_cards(deal11982_board):
    text = deal11982_board.replace(" KC\n", "\n").replace(" 8D\n", "\n")
    assert _bad(text) == "board: missing cards: 8D, KC"   # in deck order
    assert _bad(deal11982_board.replace(" 5H\n", "\n")) == "board: missing card: 5H"


def test_bad_tokens(deal11982_board):
    text = deal11982_board.replace("9C 3S", "9C 3X")
    assert _bad(text) == ("board: line 4: '3X' is not a card "
                          "(expected a rank A 2-9 T J Q K and a suit C D H S, e.g. TS)")
    assert _bad(deal11982_board.replace("TS", "1S")).startswith("board: line 7: '1S' is not a card")


def test_a_huge_bad_token_gives_a_short_line(deal11982_board):
    # A file of one 100 MB line (e.g. zeros) was echoed whole into the one-line error.
    msg = _bad("Z" * 100_000 + "\n")
    assert msg == ("board: line 1: 'ZZZZZZZZZZZZZZZZZZZ...' is not a card "
                   "(expected a rank A 2-9 T J Q K and a suit C D H S, e.g. TS)")
    assert len(_bad("Foundations: H-" + "9" * 100_000 + "\n" + deal11982_board)) < 200
    with pytest.raises(FreecellError) as ei:
        parse_card("Q" * 100_000)
    assert len(str(ei.value)) < 200


def test_bad_foundations(deal11982_board):
    cols = "".join(": " + line + "\n" for line in deal11982_board.splitlines())
    assert _bad("Foundations: X-0\n" + cols) == ("board: line 1: bad foundation 'X-0' "
                                                 "(expected e.g. H-0, C-2, D-A)")
    assert _bad("Foundations: H-Z\n" + cols) == ("board: line 1: bad foundation 'H-Z' "
                                                 "(rank must be 0, A, 2-9, T, J, Q or K)")
    assert _bad("Foundations: H-0 H-0\n" + cols) == "board: line 1: foundation H given twice"
    assert _bad("Foundations: H-0\nFoundations: H-0\n" + cols) == "board: line 2: a second Foundations line"
    # AH is in column 1 and also claimed by the foundation
    assert _bad("Foundations: H-A\n" + cols) == ("board: card AH appears twice: on the foundations and in "
                                                 "column 1")


def test_bad_freecells():
    pos = _mid_game()
    text = format_position(pos)
    assert _bad(text.replace("Freecells:  4C  4S", "Freecells: 4C 4S 4C")) == \
        "board: card 4C appears twice: in the free cells twice"
    assert _bad(text + "Freecells: 4C\n") == "board: line 11: a second Freecells line"
    # nine cards in the cells
    cols = [list(c) for c in pos[0]]
    nine = [cols[7].pop() for _ in range(7)]
    many = (tuple(map(tuple, cols)), tuple(sorted(pos[1] + tuple(nine))), pos[2])
    assert _bad(format_position(many)) == "board: 9 cards in the free cells, at most 8"
    ok = (tuple(map(tuple, cols)), tuple(sorted(pos[1] + tuple(nine[:6]))), pos[2])
    # 8 cells is fine for the format (the rules decide how many may be used)
    cols8 = [list(c) for c in ok[0]]
    cols8[0].append(nine[6])
    ok = (tuple(map(tuple, cols8)), ok[1], ok[2])
    assert parse_board(format_position(ok)) == ok


def test_validate_position_direct():
    pos = ms_deal(1)
    assert validate_position(pos) is pos
    with pytest.raises(FreecellError, match="foundation heights must be 0..13"):
        validate_position((pos[0], (), (14, 0, 0, 0)))


def test_read_board_arg(deal11982_board, tmp_path, monkeypatch):
    f = tmp_path / "b.txt"
    f.write_text(deal11982_board)
    assert read_board_arg(str(f)) == ms_deal(11982)
    monkeypatch.setattr("sys.stdin", io.StringIO(deal11982_board))
    assert read_board_arg("-") == ms_deal(11982)
    with pytest.raises(FreecellError) as ei:
        read_board_arg(str(tmp_path / "nope.txt"))
    assert str(ei.value) == f"board: cannot read {tmp_path / 'nope.txt'}: no such file"
    with pytest.raises(FreecellError) as ei:
        read_board_arg(str(tmp_path))
    assert str(ei.value) == f"board: cannot read {tmp_path}: it is a directory"
    g = tmp_path / "bin"
    g.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(FreecellError) as ei:
        read_board_arg(str(g))
    assert str(ei.value) == f"board: {g} is not UTF-8 text"


def test_a_board_with_a_utf8_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf" + DEAL11982_BOARD.encode())
    assert board.read_board_arg(str(path)) == deals.ms_deal(11982)
    p = run("deal", "--board", "-", stdin="\ufeff" + DEAL11982_BOARD)
    assert p.returncode == 0 and p.stdout == DEAL11982_BOARD, p.stderr
    p = run("deal", "--board", str(path))
    assert p.returncode == 0 and p.stdout == DEAL11982_BOARD, p.stderr


class _Unreadable(io.StringIO):
    def __init__(self, exc):
        super().__init__()
        self.exc = exc

    def read(self, *args):
        raise self.exc


@pytest.mark.parametrize("stdin,expected", [
    (_Unreadable(IsADirectoryError(21, "Is a directory")), "board: cannot read standard input: it is a directory"),
    (_Unreadable(OSError(5, "Input/output error")), "board: cannot read standard input: Input/output error"),
    (None, "board: there is no standard input to read"),
], ids=["directory", "io error", "closed"])
def test_an_unreadable_stdin_is_one_line(monkeypatch, stdin, expected):
    # (`python -m solver … < somedir` itself never gets this far: the interpreter refuses a directory on
    # stdin before any of this code runs.)
    monkeypatch.setattr("sys.stdin", stdin)
    with pytest.raises(FreecellError) as e:
        board.read_board_arg("-")
    assert str(e.value) == expected
