"""Positions for tests: a random walk, any position at all, dead boards (a valid certificate of n records),
and coq/FreeCell/Autoplay.v's automatic-move rules transliterated."""
import random

from solver import packed, spec


def p64(state) -> bytes:
    return packed.pack(spec.to_position(state))


def walk(rules, start, rng, steps):
    """A random walk from `start`."""
    s, out = start, []
    for _ in range(steps):
        out.append(s)
        nxt = spec.moves(rules, s)
        if not nxt:
            break
        s = rng.choice(nxt)
    return out


def random_state(rng, rules):
    """Any position at all (not necessarily reachable): random foundation heights, the other cards dealt
    at random to the free cells (sometimes more than the rules have) and to the columns (some empty)."""
    home = tuple(rng.choice([0, 0, 1, 2, 5, 9, 12, 13, 13]) for _ in range(4))
    rest = [spec.Card(rank, suit) for suit in range(4) for rank in range(home[suit] + 1, 14)]
    rng.shuffle(rest)
    ncells = min(len(rest), 8, rng.choice([0, 1, rules.cells, rules.cells, rules.cells + 1]))
    cells = tuple(sorted(rest[:ncells], key=spec.key))
    cols = [[] for _ in range(8)]
    for c in rest[ncells:]:
        cols[rng.randrange(rng.randint(1, 8))].append(c)
    rng.shuffle(cols)
    return spec.State(tuple(tuple(col) for col in cols), cells, home)


def dead_positions(n, seed):
    """n distinct positions without a move under 0 free cells: eight red tops (the tens to the kings of
    diamonds and hearts) that take no card and go nowhere, no empty column, nothing home; the 44 other
    cards dealt at random under them. Any set of them is closed under the moves: a valid certificate of
    exactly n records."""
    rng = random.Random(seed)
    tops = [spec.Card(rank, suit) for rank in (13, 12, 11, 10) for suit in (1, 2)]
    rest = [spec.Card(rank, suit) for suit in range(4) for rank in range(1, 14) if spec.Card(rank, suit) not in tops]
    out = set()
    while len(out) < n:
        rng.shuffle(rest)
        cuts = sorted(rng.sample(range(45), 7))
        piles = [rest[a:b] for a, b in zip([0] + cuts, cuts + [44])]
        s = spec.State(tuple((top,) + tuple(pile) for top, pile in zip(tops, piles)), (), (0, 0, 0, 0))
        assert spec.moves(spec.Rules(cells=0), s) == [] and not spec.won(s)
        out.add(p64(s))
    return sorted(out)


# coq/FreeCell/Autoplay.v's rules, transliterated from their Coq text (h: the four foundations, r, s: the card's
# rank and suit, the card being the next of its suit): the theorems speak of these, the C core runs safe_home
def coq_low(mode, h, r, s):
    o1, o2 = (0, 3) if s in (1, 2) else (1, 2)          # the suits of the other colour
    horne = r - 1 <= h[o1] and r - 1 <= h[o2]
    if mode == "horne":                                 # lowOthers
        return r == 1 or horne
    if mode == "safe":                                  # lowSafe
        return r <= 2 or horne or (r - 2 <= h[o1] and r - 2 <= h[o2] and r - 3 <= h[3 - s])
    return r <= 2                                       # lowTwos
