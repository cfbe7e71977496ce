"""The certificate text of the Lean modules (one position per line, decoded in Lean by FreeCell.Decode; its
Python twin, to test the encoding, is tests/helpers/certtext.py's decode_state) and the hash Lean files positions by
(FreeCell.hashState in Cert.lean).

The text: for each of the 8 columns, a digit k (0..9), then letters; the column is those cards (top card
first) followed by the bottom k cards of the start position's same column; then, if there are free-cell
cards, '|' and their letters (sorted by key). Card index i = (rank-1)*4 + suit is the letter 'A'+i for
i < 26 and 'a'+(i-26) after. Foundations are not written: each suit's height is 13 minus its cards in the
columns and cells.
"""
import itertools
from functools import partial
from operator import getitem
from typing import Iterable, Optional, Sequence

from solver import spec

from .members import _Memo
from .sampled import record_of


def common_bottom(start_col: Sequence, col: Sequence, limit: Optional[int] = None) -> int:
    """How many cards at the bottom of ``col`` are those at the bottom of ``start_col`` (both given bottom
    card first), at most ``limit``."""
    n = min(len(col), len(start_col))
    if limit is not None:
        n = min(n, limit)
    k = 0
    while k < n and col[k] == start_col[k]:
        k += 1
    return k


def card_letter(c: spec.Card) -> str:
    i = spec.key(c)
    if not (1 <= c.rank <= 13 and 0 <= c.suit <= 3):
        raise ValueError(f"not a card: {c!r}")
    return chr(65 + i) if i < 26 else chr(97 + i - 26)


# A P64 record's card byte (card index + 1) -> its letter; any other byte -> "?" (refused by _column_text)
_LETTERS = bytes(ord(card_letter(spec.CARDS[b - 1])) if 1 <= b <= 52 else ord("?") for b in range(256))


def _letters(cards: bytes) -> str:
    text = cards.translate(_LETTERS).decode("ascii")
    if "?" in text:
        raise ValueError(f"not a card: byte {max(b for b in cards if not 1 <= b <= 52)} of a record")
    return text


def _column_text(start_col: bytes, col: bytes) -> str:
    """A column's text: k (its bottom cards that are the start column's, at most 9), then the letters of its
    other cards, top card first. Both are P64 columns (bottom card first, card index + 1 a byte)."""
    k = common_bottom(start_col, col, 9)
    return str(k) + _letters(col[k:][::-1])


class _Lines:
    """P64 records -> lines of certificate text, relative to the start position's record. Positions share
    most of their columns, so each distinct column (at its index) and set of free cells is encoded once."""

    def __init__(self, start_rec: bytes):
        self._cols = [_Memo(partial(_column_text, col)) for col in start_rec.split(b"\0", 8)[:8]]
        self._cells = _Memo(lambda cells: "|" + _letters(cells) if cells else "")

    def line(self, rec: bytes) -> str:
        parts = rec.split(b"\0", 8)
        if len(parts) != 9:
            raise ValueError("a record does not hold 8 columns")
        return "".join(map(getitem, self._cols, parts)) + self._cells[parts[8].rstrip(b"\0")]


def encode_state(start: spec.State, s: spec.State) -> str:
    """One line of certificate text for `s`, relative to the start position `start`."""
    if len(s.cols) != 8 or len(start.cols) != 8:
        raise ValueError("a position has 8 columns")
    for c in itertools.chain(*s.cols, s.cells):
        card_letter(c)                      # a card's fields in range (its P64 byte would not say so)
    return _Lines(record_of(start)).line(record_of(s))


def cert_text(start: spec.State, records: Iterable[bytes]) -> str:
    """The certificate text of the positions given as P64 records (a certificate's records, or
    :func:`record_of` of spec States): one line per position, sorted (the order does not matter)."""
    return "\n".join(sorted(map(_Lines(record_of(start)).line, records)))


# -- The hash of a position (Python twin of FreeCell.hashState in Cert.lean) ---------------------------

def mix_hash_nat(h: int, x: int) -> int:
    return (h * 1000003 + x) % 2147483647


def column_hash(col) -> int:
    if not col:
        return 0
    if len(col) == 1:
        return 64 + spec.key(col[0])
    return (len(col) * 64 + spec.key(col[0])) * 64 + spec.key(col[1])


def state_hash(s: spec.State) -> int:
    """FreeCell.hashState: the columns (length and top two cards), the free cells, the foundations."""
    h = 0
    for col in s.cols:
        h = mix_hash_nat(h, column_hash(col))
    for c in s.cells:
        h = mix_hash_nat(h, spec.key(c))
    for x in s.home:
        h = mix_hash_nat(h, x)
    return h
