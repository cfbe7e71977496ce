"""SiggySoft deal codes of the games other than FreeCell (seed 003): their decks, shuffled orders and
layouts. Nothing here can be explored or solved: the search, the certificates and the proofs are for
FreeCell only.

* The fresh deck: spades A..K, then hearts, diamonds, clubs; a second deck repeats that order. Spider with
  one suit is eight runs of spades A..K; with two suits, spades and hearts in turn (S, H, S, H, ...).
* The order: the same SHA-512 stream and Fisher-Yates shuffle as FreeCell (solver/siggysoft.py), from the
  code's seed (``N<n>``: the numbered seed of the game's deal key; ``S<seed>``: the seed itself).
* Klondike's layout (the one the seed spells out): the tableau is dealt a row at a time, the first card to
  pile 1, the second to pile 2, ... to pile 7, then the next row from pile 2, and so on (pile i gets i
  cards, the last one face up); the 24 cards left form the stock, the first of them at the bottom.
* La Belle Lucie's and Gaps' redeals shuffle the gathered cards with a stream made the same way from the
  same seed, with the domain ``SiggySoft Solitaire redeal <n> v1`` (:func:`redeal`). Their tableau, the
  two-deck games' and Spider's are not described by the seed: for them the order is printed, not a
  layout.
"""
from collections import namedtuple

from .errors import FreecellError
from .numbers import whole_number
from .siggysoft import (FRESH_DECK, MAX_NUMBERED, OtherGame, numbered_seed, one_word, parse_code, seed_from_base32,
                        shuffle)

SPADES = tuple(range(3, 52, 4))[:13]       # AS..KS as card indices (rank-1)*4+3
HEARTS = tuple(range(2, 52, 4))[:13]

# game id in the code: (its deal key, the options it knows, a function of the options giving the fresh deck)
GAMES = {
    "klondike": ("klondike", {"draw", "passes", "scoring"}, lambda o: FRESH_DECK),
    "spider": ("spider", {"suits"}, lambda o: _spider_deck(o.get("suits", "4"))),
    "labellelucie": ("labellelucie", set(), lambda o: FRESH_DECK),
    "gaps": ("gaps", set(), lambda o: FRESH_DECK),
}
# The seed writes codes for "klondike" (and "freecell") only; "spider", "labellelucie" and "gaps" are our
# spelling of the other game ids it names.
NAMES = {"klondike": "Klondike", "spider": "Spider", "labellelucie": "La Belle Lucie", "gaps": "Gaps"}

OtherDeal = namedtuple("OtherDeal", "game options kind number seed order code")


def _spider_deck(suits):
    if suits == "1":
        return SPADES * 8
    if suits == "2":
        return (SPADES + HEARTS) * 4
    if suits == "4":
        return FRESH_DECK * 2
    raise FreecellError(f"deal code: spider suits must be 1, 2 or 4, got {suits!r}")


def is_other_game(code):
    """True when ``code`` looks like a SOL1 code of a game other than FreeCell."""
    parts = code.split("-") if isinstance(code, str) else []
    return len(parts) == 4 and parts[0] == "SOL1" and parts[1] in GAMES


def parse_other(code):
    """The :class:`OtherDeal` of a code of another game (its shuffled order); one-line errors otherwise."""
    version, game, options, dealpart = one_word(code)
    key, known, deck_of = GAMES[game]
    opts = {}
    for item in filter(None, options.split(";")):
        k, eq, v = item.partition("=")
        if not eq or not k or k in opts:
            raise FreecellError(f"deal code: malformed or repeated option {item!r}")
        if k not in known:
            raise FreecellError(f"deal code: unknown {NAMES[game]} option {k!r}")
        opts[k] = v
    deck = deck_of(opts)
    kind, body = dealpart[:1], dealpart[1:]
    if kind == "N":
        number = whole_number(body, "deal code: a numbered deal", 1, MAX_NUMBERED)
        seed = numbered_seed(number, key)
    elif kind == "S":
        number, seed = None, seed_from_base32(body)
    else:
        raise FreecellError(f"deal code: {NAMES[game]} deals are N<n> or S<seed>, got {dealpart[:12]!r}")
    return OtherDeal(game, opts, kind, number, seed, shuffle(seed, deck), code)


def klondike_layout(order):
    """(piles, stock): piles[i] bottom -> top (pile i holds i+1 cards, the top one face up); the stock
    bottom -> top (the first leftover card at the bottom)."""
    piles = [[] for _ in range(7)]
    k = 0
    for row in range(7):
        for i in range(row, 7):
            piles[i].append(order[k])
            k += 1
    return [tuple(p) for p in piles], tuple(order[k:])


def redeal(seed, n, cards):
    """Redeal number ``n`` of La Belle Lucie or Gaps: the gathered ``cards`` shuffled (Fisher-Yates from the
    end) with the stream of the domain ``SiggySoft Solitaire redeal <n> v1`` and the same seed."""
    return shuffle(seed, tuple(cards), domain=f"SiggySoft Solitaire redeal {n} v1".encode())


def not_explorable(code):
    game = code.split("-")[1]
    return (f"only FreeCell can be explored: {code[:60]} is a {NAMES[game]} deal "
            f"(`python -m solver deal --code CODE` prints its cards)")


def freecell_code(code):
    """The :class:`solver.siggysoft.DealCode` of a FreeCell deal code (what every command that explores reads);
    another game's code: one line saying that only FreeCell can be explored, or which games a code may name."""
    try:
        return parse_code(code)
    except OtherGame as e:
        if e.game in GAMES:
            raise FreecellError(not_explorable(code)) from None
        raise FreecellError(f"deal code: unsupported game {e.game!r} (freecell, or {', '.join(GAMES)} "
                            "to print their cards)") from None
