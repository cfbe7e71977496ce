"""Smaller slips a new user met (issue 10, item 17, the parts below the command line)."""
import io
import re

import pytest

from solver import board, deals, survey
from solver.errors import FreecellError

from helpers import DEAL11982_BOARD, ROOT, one_line_error as assert_one_line_error, run


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


@pytest.mark.parametrize("text", ["1,000", "1_0", "1-2,000", "1_000-2000"])
def test_survey_ranges_are_plain_digits(text):
    with pytest.raises(FreecellError, match="digits only"):
        survey.parse_range(text)
    assert_one_line_error(run("survey", text))


def test_readme_says_a_damaged_certificate_exits_2():
    for doc in ("README.md", "docs/COMMANDS.md"):
        text = (ROOT / doc).read_text(encoding="utf-8").replace("\n  ", " ")    # a list item's lines joined
        row = next(line for line in text.splitlines() if line.startswith(("| `python -m certgen check",
                                                                            "- `python -m certgen check")))
        assert re.search(r"exit 2\b.*damaged", row), row
