"""The checkers' safe automatic moves: how a certificate with safe automatic moves (header rules
``"column_order": true, "autoplay": "safe"``; docs/CERTIFICATE.md) names each position.

Each position is looked up after its safe automatic moves: while a card on top of a column or in a free cell
may go home by the "safe" rule, it goes home. The rule (``low_safe``) is coq/FreeCell/Autoplay.v's
``lowSafe`` (the C core's FC_AUTOPLAY_SAFE, solver/fc_internal.h's ``safe_home``, was read beside it and is tested
against it in tests/solver/test_core.py): the card is the next of its suit, and its rank is at most 2, or both
foundations of the other colour reach rank − 1, or both reach rank − 2 and the other suit of its colour
(``3 - suit``) reaches rank − 3.

This module is the line-for-line Python twin of ``autoCol``, ``autoCell``, ``autoStep``, ``autoplay`` and
``settled`` in coq/FreeCell/CertAuto.v: one card at a time, the first column from the left whose top card
may go, else the first free cell's card, at most 52 times. (The order does not change the result on a
position: a card that may go home still may after another card went home, the rule being monotone in the
foundations; but the twins take the same steps anyway.) Autoplay.v proves that such moves lose no win
without foundation returns; CertAuto.v that a set checked this way proves ``forall s, Reachable r s0 s ->
~ Won s``.
"""
from solver import spec

FUEL = 52           # CertAuto.v's autoplay: autoplayN 52


def low_safe(home, c: spec.Card) -> bool:
    """Autoplay.v's ``lowSafe home c`` (``nth k home 0`` is ``spec.get_d(home, k, 0)``; ranks are naturals:
    ``rank - 3`` is 0 below 3, as Coq's subtraction)."""
    o1, o2 = (0, 3) if spec.red(c) else (1, 2)
    h1, h2, hs = spec.get_d(home, o1, 0), spec.get_d(home, o2, 0), spec.get_d(home, 3 - c.suit, 0)
    r = c.rank
    return r <= 2 or (max(r - 1, 0) <= h1 and max(r - 1, 0) <= h2) or \
        (max(r - 2, 0) <= h1 and max(r - 2, 0) <= h2 and max(r - 3, 0) <= hs)


def home_by(home, c: spec.Card) -> bool:
    """Autoplay.v's ``homeBy lowSafe``: the next card of its suit, and allowed by the rule."""
    return spec.can_home(home, c) and low_safe(home, c)


def _home(s: spec.State, c: spec.Card):
    return spec.list_set(s.home, c.suit, c.rank)


def auto_step(s: spec.State):
    """CertAuto.v's ``autoStep``: the position after one safe automatic move, or None when no card may go."""
    for i in range(8):
        col = spec.get_d(s.cols, i, ())
        if col and home_by(s.home, col[0]):
            return s._replace(cols=spec.list_set(s.cols, i, col[1:]), home=_home(s, col[0]))
    for c in s.cells:
        if home_by(s.home, c):
            return s._replace(cells=spec.erase(s.cells, c), home=_home(s, c))
    return None


def autoplay(s: spec.State) -> spec.State:
    """CertAuto.v's ``autoplay``: safe automatic moves until none is left (at most FUEL)."""
    for _ in range(FUEL):
        t = auto_step(s)
        if t is None:
            return s
        s = t
    return s


def settled(s: spec.State) -> bool:
    """CertAuto.v's ``settled``: no card of ``s`` may go home by the rule."""
    return auto_step(s) is None


_SUIT_OF_BYTE = bytes.maketrans(bytes(range(1, 53)), bytes((i % 4) + 1 for i in range(52)))


def _may_go(home) -> bytes:
    """The record bytes (card key + 1) of the cards that may go home on foundations ``home`` (at most one a
    suit: the next of its suit, if the rule allows it)."""
    return bytes(spec.key(c) + 1 for c in (spec.Card(h + 1, suit) for suit, h in enumerate(home) if h < 13)
                 if home_by(home, c))


_MAY_GO = {}        # foundations -> _may_go(foundations): at most 14 ** 4 of them


def settled_record(rec: bytes) -> bool:
    """``settled`` of the position whose P64 record (a position: packed.validator) is ``rec``, read off its bytes
    without decoding it: none of the cards that may go home on its foundations (derived from the cards in play)
    is on top of a column (the byte after it ends the column) or in a free cell (after the eight column ends)
    (tests/certgen/test_autoplay.py compares it with ``settled``)."""
    suits = rec.translate(_SUIT_OF_BYTE)
    home = (13 - suits.count(1), 13 - suits.count(2), 13 - suits.count(3), 13 - suits.count(4))
    may = _MAY_GO.get(home)
    if may is None:
        may = _MAY_GO[home] = _may_go(home)
    for b in may:
        at = rec.find(b)
        if rec[at + 1:at + 2] == b"\0" or rec.count(0, 0, at) >= 8:
            return False
    return True
