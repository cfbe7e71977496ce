"""Microsoft / FreeCell Pro deal numbering, deals 1 .. 2**33 - 1 (8,589,934,591).

Below 2**31 exactly the generator of seed 000 (and of Jim Horne's published shuffle): the MSVC
``rand()`` LCG

    x0 = N,  x(k+1) = (214013 * x(k) + 2531011) mod 2**31,  r(k) = x(k+1) // 2**16

Above, FreeCell Pro's extension (Freecell Solver's ``gen_ms_boards__rand.h``, pysol_cards'
``LCRandom31``): x0 = N for N < 2**32, else N - 2**32; x runs mod 2**32; r(k) = ((x >> 16) & 0x7FFF) |
0x8000 for 2**31 <= N < 2**32, ((x >> 16) & 0xFFFF) + 1 for 2**32 <= N < 2**33. (Below 2**31 the mod
2**32 LCG with ``(x >> 16) & 0x7FFF`` draws the same r: bit 31 never reaches bits 16..30.)

The deck starts as card indices 0..51 (AC AD AH AS 2C ... KS). For k = 0..51 the card at
``j = r(k) mod (52 - k)`` is dealt, the last card of the deck fills its place, and the deck shrinks by
one. Dealt card t goes to column ``t % 8``: rows of eight, the first eight cards dealt at the bottom, so
columns 1-4 get seven cards and columns 5-8 six.

A Position is ``(cols, cells, home)``: 8 tuples of card indices bottom -> top, a sorted tuple of free
cell cards, and the four foundation heights (C, D, H, S).
"""

from .errors import FreecellError
from .numbers import whole_number

MAX_DEAL = 2 ** 33 - 1
MAX_MS_DEAL = 2 ** 31 - 1       # Microsoft's own range; FreeCell Pro's goes on to MAX_DEAL
_MASK = 2 ** 32 - 1


def parse_deal_number(value):
    """A deal number from an int or the raw command-line text; 1..2**33-1, else a one-line error."""
    shown = value
    if isinstance(shown, str) and len(shown) > 40:
        shown = shown[:37] + "..."
    return whole_number(value, "deal", 1, MAX_DEAL, shown=shown)


def deal_order(n):
    """The 52 cards of deal ``n`` in the order they are dealt (card indices)."""
    n = parse_deal_number(n)
    # r = ((x >> 16) & mask) + add: FreeCell Pro's three ranges (module docstring)
    mask, add = (0x7FFF, 0) if n < 2 ** 31 else (0x7FFF, 0x8000) if n < 2 ** 32 else (0xFFFF, 1)
    deck = list(range(52))
    out = []
    x = n & _MASK
    for k in range(52):
        x = (x * 214013 + 2531011) & _MASK
        j = (((x >> 16) & mask) + add) % (52 - k)
        out.append(deck[j])
        deck[j] = deck[-1]
        deck.pop()
    return out


def position_from_order(order):
    """Lay a dealt order out in rows of eight: dealt card t goes on column t % 8, first row at the bottom."""
    order = list(order)
    if sorted(order) != list(range(52)):
        raise FreecellError("a deal must contain each of the 52 cards once")
    cols = tuple(tuple(order[i::8]) for i in range(8))
    return (cols, (), (0, 0, 0, 0))


def ms_deal(n):
    """The start Position of Microsoft / FreeCell Pro deal ``n`` (1..2**33-1)."""
    return position_from_order(deal_order(n))
