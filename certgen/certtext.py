"""The certificate text of the Lean modules (one position per line, decoded in Lean by FreeCell.Decode; its
Python twin, to test the encoding, is tests/helpers/certtext.py's decode_state) and the hash Lean files positions by
(FreeCell.hashState in Cert.lean).

The text: for each of the 8 columns, a digit k (0..9), then letters; the column is those cards (top card
first) followed by the bottom k cards of the start position's same column; then, if there are free-cell
cards, '|' and their letters (sorted by key). Card index i = (rank-1)*4 + suit is the letter 'A'+i for
i < 26 and 'a'+(i-26) after. Foundations are not written: each suit's height is 13 minus its cards in the
columns and cells. Coq's encoding (certgen/coq.py) shares :func:`common_bottom`.
"""
from typing import Dict, Iterable, Optional, Sequence

from solver import spec


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


def _encode_column(start_col: Sequence, col: Sequence) -> str:
    k = common_bottom(start_col[::-1], col[::-1], 9)       # spec columns are top card first
    return str(k) + "".join(card_letter(c) for c in col[:len(col) - k])


def encode_state(start: spec.State, s: spec.State, memo: Optional[Dict] = None) -> str:
    """One line of certificate text for `s`, relative to the start position `start`. ``memo``: a dict
    kept over many calls with the same start (columns repeat from position to position)."""
    if len(s.cols) != 8 or len(start.cols) != 8:
        raise ValueError("a position has 8 columns")
    memo = {} if memo is None else memo
    out = []
    for i, col in enumerate(s.cols):
        part = memo.get((i, col))
        if part is None:
            part = memo[(i, col)] = _encode_column(start.cols[i], col)
        out.append(part)
    if s.cells:
        out.append("|" + "".join(card_letter(c) for c in s.cells))
    return "".join(out)


def cert_text(start: spec.State, states: Iterable[spec.State]) -> str:
    """The certificate text: one line per position, sorted (the order does not matter)."""
    memo = {}
    return "\n".join(sorted(encode_state(start, s, memo) for s in states))


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
