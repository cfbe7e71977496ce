"""Card names.

A card is an int ``c = (rank - 1) * 4 + suit`` with rank 1..13 (A..K) and suit 0=C, 1=D, 2=H, 3=S, so
0..51 is the Microsoft deck order AC AD AH AS 2C ... KS. Red means suit 1 (diamonds) or 2 (hearts).

``card_name`` gives the two-character ASCII name Freecell Solver uses ("TS" for the ten of spades);
``parse_card`` reads that name back and also accepts "10S" and lowercase; ``pretty_name`` gives a name
for people ("10♠", "Q♣").
"""

from .errors import FreecellError

RANKS = "A23456789TJQK"   # index rank-1
SUITS = "CDHS"            # index suit
SUIT_SYMBOLS = "♣♦♥♠"
RANK_WORDS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

_RANK_OF = {ch: i + 1 for i, ch in enumerate(RANKS)}
_RANK_OF["10"] = 10
_SUIT_OF = {ch: i for i, ch in enumerate(SUITS)}
for _i, _sym in enumerate(SUIT_SYMBOLS):
    _SUIT_OF[_sym] = _i
del _i, _sym


def shown(text, limit=24):
    """``repr`` of a piece of input for an error message, cut to about ``limit`` characters (a board file
    of one huge line must not become a huge error line)."""
    r = repr(text)
    return r if len(r) <= limit else r[:limit - 4] + "...'"


def card(rank, suit):
    """The card index of ``rank`` (1..13) and ``suit`` (0..3)."""
    return (rank - 1) * 4 + suit


def rank(c):
    """Rank 1..13 of card index ``c``."""
    return c // 4 + 1


def suit(c):
    """Suit 0..3 (C, D, H, S) of card index ``c``."""
    return c % 4


def is_red(c):
    return c % 4 in (1, 2)


def card_name(c):
    """ASCII name of card index ``c``: rank ``A 2..9 T J Q K`` then suit ``C D H S`` ("TS", "AC")."""
    if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < 52:
        raise FreecellError(f"not a card index: {c!r}")
    return RANKS[c // 4] + SUITS[c % 4]


def pretty_name(c):
    """Name for people, with a suit symbol and "10" for ten: "Q♣", "10♥"."""
    if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < 52:
        raise FreecellError(f"not a card index: {c!r}")
    return RANK_WORDS[c // 4] + SUIT_SYMBOLS[c % 4]


def parse_card(text):
    """Card index from a name: "TS", "10S", "ts", "10s", "Q♣" all work.

    Raises :class:`FreecellError` with a one-line message for anything else.
    """
    if not isinstance(text, str):
        raise FreecellError(f"not a card: {text!r}")
    s = text.strip().upper()
    if len(s) < 2:
        raise FreecellError(f"not a card: {shown(text.strip())}")
    r_txt, s_txt = s[:-1], s[-1]
    r = _RANK_OF.get(r_txt)
    su = _SUIT_OF.get(s_txt)
    if r is None or su is None:
        raise FreecellError(f"not a card: {shown(text.strip())} (expected a rank A 2-9 T J Q K and a suit C D H S, e.g. TS)")
    return card(r, su)


def parse_rank(text):
    """Foundation height from a rank word: "0" (empty), "A", "2".."9", "T"/"10", "J", "Q", "K".

    Returns 0..13; raises :class:`FreecellError` otherwise.
    """
    s = text.strip().upper()
    if s == "0":
        return 0
    r = _RANK_OF.get(s)
    if r is None:
        raise FreecellError(f"not a rank: {text.strip()!r} (expected 0, A, 2-9, T, J, Q or K)")
    return r


def rank_name(h):
    """Inverse of :func:`parse_rank` for 0..13 ("0", "A", ..., "K")."""
    return "0" if h == 0 else RANKS[h - 1]


def cards_text(cs):
    """Space-separated ASCII names."""
    return " ".join(card_name(c) for c in cs)
