"""The Lean spec (lean/FreeCell/Spec.lean), transliterated into Python line for line.

This module is the executable copy of the trusted rules, so they can be tested here without Lean:
against the C core (tests/solver/test_core.py), by the independent certificate checker (certgen/checker.py)
and by mutation. Keep it boring and keep it in step with Spec.lean: same names, same order of
definitions, same order of the moves in the list `moves` returns. docs/SPEC.md shows both side by side.

Lists are Lean lists: a column lists its cards top first (`c :: rest` is the top card `c`), exactly as
in the Lean spec. The rest of the project uses the Position tuple (columns bottom to top, card indices);
`from_position` / `to_position` convert.
"""
from typing import List, NamedTuple, Optional, Tuple


# -- Cards ------------------------------------------------------------------------------------------
class Card(NamedTuple):
    rank: int  # 1 = ace … 13 = king
    suit: int  # 0 = clubs, 1 = diamonds, 2 = hearts, 3 = spades


def red(c: Card) -> bool:
    return c.suit == 1 or c.suit == 2


def key(c: Card) -> int:
    return (c.rank - 1) * 4 + c.suit


# -- Positions ---------------------------------------------------------------------------------------
class State(NamedTuple):
    cols: Tuple[Tuple[Card, ...], ...]  # eight columns, each listed top card first
    cells: Tuple[Card, ...]             # the free cells: a set, kept sorted by key
    home: Tuple[int, ...]               # foundation height per suit


class Rules(NamedTuple):
    cells: int = 4                  # number of free cells
    foundation_return: bool = False  # may the top card of a foundation come back onto a column?
    hand: int = 0                   # favors a game may use: only Hand.lean reads it (docs/HAND.md)


STANDARD = Rules()


# -- Lean's own List functions, with Lean's meaning (not in Spec.lean: they are core Lean) ------------
def get_d(xs, i, default):  # List.getD
    return xs[i] if 0 <= i < len(xs) else default


def list_set(xs, i, v):  # List.set: out of range leaves the list unchanged
    return xs[:i] + (v,) + xs[i + 1:] if 0 <= i < len(xs) else xs


def erase(xs, v):  # List.erase: removes the first occurrence
    i = xs.index(v) if v in xs else -1
    return xs[:i] + xs[i + 1:] if i >= 0 else xs


def get_last_d(xs, default):  # List.getLastD
    return xs[-1] if xs else default


def drop_last(xs):  # List.dropLast
    return xs[:-1]


# -- The Microsoft deal ------------------------------------------------------------------------------
def lcg(seed: int) -> int:
    return (seed * 214013 + 2531011) % 2 ** 31


def deal_from(n: int, seed: int, deck) -> List[Card]:
    """Deal `n` cards from `deck`: draw the card at index j, fill its hole with the last card."""
    if n == 0:
        return []
    seed = lcg(seed)
    j = (seed // 2 ** 16) % len(deck)
    return [get_d(deck, j, Card(0, 0))] + deal_from(n - 1, seed, drop_last(list_set(deck, j, get_last_d(deck, Card(0, 0)))))


def deal_from_pro(n: int, game: int, seed: int, deck) -> List[Card]:
    """FreeCell Pro's games 2**31 .. 2**33 - 1: the seed runs mod 2**32, the draw is widened."""
    if n == 0:
        return []
    seed = (seed * 214013 + 2531011) % 2 ** 32
    r = seed // 2 ** 16 % 2 ** 15 + 2 ** 15 if game < 2 ** 32 else seed // 2 ** 16 % 2 ** 16 + 1
    return [get_d(deck, r % len(deck), Card(0, 0))] + \
        deal_from_pro(n - 1, game, seed, drop_last(list_set(deck, r % len(deck), get_last_d(deck, Card(0, 0)))))


def deal_order(game: int) -> List[Card]:
    if game < 2 ** 31:
        return deal_from(52, game, tuple(Card(i // 4 + 1, i % 4) for i in range(52)))
    return deal_from_pro(52, game, game % 2 ** 32, tuple(Card(i // 4 + 1, i % 4) for i in range(52)))


def ms_deal(game: int) -> State:
    order = deal_order(game)

    def col(i):
        return tuple(get_d(order, t, Card(0, 0)) for t in reversed([t for t in range(52) if t % 8 == i]))
    return State(cols=tuple(col(i) for i in range(8)), cells=(), home=(0, 0, 0, 0))


# -- The rules ---------------------------------------------------------------------------------------
def can_stack(c: Card, parent: Card) -> bool:
    return parent.rank == c.rank + 1 and red(parent) != red(c)


def can_home(home, c: Card) -> bool:
    return get_d(home, c.suit, 0) + 1 == c.rank


def insert_sorted(c: Card, cs):
    if not cs:
        return (c,)
    d = cs[0]
    return (c,) + cs if key(c) <= key(d) else (d,) + insert_sorted(c, cs[1:])


def to_cols(s: State, c: Card, src: Optional[int]) -> List[State]:
    """`c` taken off (giving `s`) from column `src` (None: a free cell or a foundation), put on a column."""
    out = []
    for j in range(8):
        if src == j:
            continue
        col = get_d(s.cols, j, ())
        if not col:
            out.append(s._replace(cols=list_set(s.cols, j, (c,))))
        elif can_stack(c, col[0]):
            out.append(s._replace(cols=list_set(s.cols, j, (c,) + col)))
    return out


def moves(r: Rules, s: State) -> List[State]:
    from_cols = []
    for i in range(8):
        col = get_d(s.cols, i, ())
        if col:
            from_cols.append((col[0], s._replace(cols=list_set(s.cols, i, col[1:])), i))
    from_cells = [(c, s._replace(cells=erase(s.cells, c)), None) for c in s.cells]
    out = []
    for c, s2, src in from_cols + from_cells:
        # to its foundation
        if can_home(s.home, c):
            out.append(s2._replace(home=list_set(s2.home, c.suit, c.rank)))
        # onto an empty column, or onto a card one higher of the other colour
        out += to_cols(s2, c, src)
        # from a column into a free cell
        if src is not None and len(s2.cells) < r.cells:
            out.append(s2._replace(cells=insert_sorted(c, s2.cells)))
    # from a foundation back onto a column (only when the rules allow it)
    if r.foundation_return:
        for k in range(4):
            h = get_d(s.home, k, 0)
            if h != 0:
                out += to_cols(s._replace(home=list_set(s.home, k, h - 1)), Card(h, k), None)
    return out


def won(s: State) -> bool:
    return s.home == (13, 13, 13, 13)


# `Won` (the same test as a proposition) and `Reachable` (the least set of positions that contains the
# start and is closed under `moves`) are Lean-only: certgen/checker.py checks a certificate against them.


# -- Conversion to and from the project's Position tuple (columns bottom to top, card indices) -------
def card_of_index(i: int) -> Card:
    return CARDS[i]


CARDS = tuple(Card(i // 4 + 1, i % 4) for i in range(52))  # one object per card: cheap to build states


def from_position(pos) -> State:
    cols, cells, home = pos
    return State(cols=tuple(tuple(CARDS[i] for i in reversed(col)) for col in cols),
                 cells=tuple(sorted((CARDS[i] for i in cells), key=key)),
                 home=tuple(home))


def to_position(s: State):
    return (tuple(tuple(key(c) for c in reversed(col)) for col in s.cols),
            tuple(key(c) for c in s.cells),
            tuple(s.home))
