"""The checkers' column order: how a certificate up to column order names each position.

A certificate up to column order (header rules ``"column_order": true``) holds one position for each
class of positions that differ only in the order of their eight columns. Its checkers (certgen/checker.py,
the fast checker build/fccheck, the Coq check coq/FreeCell/CertUpTo.v) never take that order from the
search (the C core's canonical mode sorts packed column words, its own business): each puts a position
into this order itself, ``canon``, before it looks it up. The order: columns sorted by the key
(``spec.key``, 0..51) of their bottom card, empty columns last (key 52). The bottom cards of a position's
non-empty columns are different cards, so this is a total order on them; empty columns are all alike.

This module is the line-for-line Python twin of ``colKey``, ``insertCol``, ``sortCols`` and ``canon`` in
coq/FreeCell/CertUpTo.v (the insertion sort is written out as Coq's ``fold_right`` does it, so the two
agree even on malformed positions). Reordering columns is what makes the check sound, not which order is
chosen: coq/FreeCell/Columns.v proves that moves commute with reordering the columns, and CertUpTo.v that
a set checked this way proves ``forall s, Reachable r s0 s -> ~ Won s``.
"""
from solver import spec

EMPTY_KEY = 52


def col_key(col) -> int:
    """The key a column is sorted by: its bottom card's (a column lists its cards top first), 52 if empty."""
    return spec.key(col[-1]) if col else EMPTY_KEY


def insert_col(col, cols):
    """Coq's ``insertCol``: ``col`` before the first column whose key is not below its own."""
    for i, d in enumerate(cols):
        if col_key(col) <= col_key(d):
            return cols[:i] + (col,) + cols[i:]
    return cols + (col,)


def sort_cols(cols):
    """Coq's ``sortCols``: ``fold_right insertCol [] cols``."""
    out = ()
    for col in reversed(cols):
        out = insert_col(col, out)
    return out


def canon(s: spec.State) -> spec.State:
    """The position with its columns in the checkers' order; cells and foundations untouched."""
    return s._replace(cols=sort_cols(tuple(s.cols)))
