"""A player's moves: a card (with every card on top of it) to a column, a free cell or a foundation,
carried out and checked as a sequence of single spec moves.

A move names a card and a destination (a column 0..7, ``CELL`` or ``HOME``). A run of k cards may
move at once when it is a sequence -- alternating colours, each card one rank lower than the card under
it -- and k <= (f + 1) * 2**e, where f is the number of empty free cells and e the number of empty
columns other than the destination (the limit of seed 004). It is carried out the classic way, through
the free cells and the empty columns, as single-card moves, each one applied by the engine's spec check
(:func:`play.engine.apply_move`), so nothing here is trusted: a wrong plan would be refused there.
"""
from .engine import CELL, HOME, IllegalMove, apply_move, can_home, can_stack, pretty_name, rank, safe_autoplay

SUITS = "\u2663\u2666\u2665\u2660"
RANK_WORDS = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def locate(pos, card):
    """("col", i, depth) for a card in column i at depth (0 = bottom), ("cell",), or ("home",)."""
    for i, col in enumerate(pos[0]):
        if card in col:
            return ("col", i, col.index(card))
    if card in pos[1]:
        return ("cell",)
    return ("home",)


def supermove_limit(pos, cells, dst):
    """How many cards may move at once to column ``dst``: (f + 1) * 2**e."""
    free = cells - len(pos[1])
    empty = sum(1 for j, col in enumerate(pos[0]) if not col and j != dst)
    return (free + 1) * 2 ** empty


def _place(p):
    return "a free cell" if p == CELL else "its foundation" if p == HOME else f"column {p + 1}"


def _needs(card):
    """"a black 8" -- what ``card`` needs to sit on."""
    r = rank(card)
    if r == 13:
        return None
    colour = "black" if card % 4 in (1, 2) else "red"
    return f"a {colour} {RANK_WORDS[r + 1]}"


def _broken_run(run):
    """The first pair of the run that is not a sequence, or None."""
    for lower, upper in zip(run, run[1:]):
        if not can_stack(upper, lower):
            return lower, upper
    return None


def plan(pos, cells, card, dst):
    """The single-card moves (card, src, dst) that carry out the player's move, or IllegalMove with the
    reason in one line."""
    where = locate(pos, card)
    name = pretty_name(card)
    if where[0] == "home":
        raise IllegalMove(f"{name} is on its foundation: under these rules cards never come back")
    if where[0] == "cell":
        src, run = CELL, [card]
    else:
        src = where[1]
        run = list(pos[0][src][where[2]:])
    if dst == src:
        raise IllegalMove(f"{name} is already in {_place(dst)}")
    k = len(run)
    if k > 1:
        broken = _broken_run(run)
        if broken:
            lower, upper = broken
            raise IllegalMove(f"{name} and the {k - 1} card{'s' if k > 2 else ''} on it are not a sequence "
                              f"({pretty_name(upper)} does not go on {pretty_name(lower)})")
    if dst == HOME:
        if k > 1:
            raise IllegalMove(f"only a top card can go to a foundation ({name} has {k - 1} on it)")
        if not can_home(card, pos[2]):
            h = pos[2][card % 4]
            want = f"the {RANK_WORDS[h + 1]}{SUITS[card % 4]}" if h < 13 else "nothing"
            raise IllegalMove(f"{name} cannot go to its foundation yet: it takes {want} next")
        return [(card, src, HOME)]
    if dst == CELL:
        if k > 1:
            raise IllegalMove(f"a free cell holds one card ({name} has {k - 1} on it)")
        if src == CELL:
            raise IllegalMove(f"{name} is already in a free cell")
        if len(pos[1]) >= cells:
            raise IllegalMove("the free cells are full" if cells else "there are no free cells in these rules")
        return [(card, src, CELL)]
    if not (isinstance(dst, int) and 0 <= dst < 8):
        raise IllegalMove(f"no such place: {dst!r}")
    target = pos[0][dst]
    if target and not can_stack(card, target[-1]):
        needs = _needs(card)
        why = f"it needs {needs}" if needs else "a king goes only on an empty column"
        raise IllegalMove(f"{name} does not go on {pretty_name(target[-1])}: {why}")
    limit = supermove_limit(pos, cells, dst)
    if k > limit:
        free = cells - len(pos[1])
        empty = sum(1 for j, col in enumerate(pos[0]) if not col and j != dst)
        raise IllegalMove(f"{k} cards cannot move at once: with {free} empty free cell{'s' if free != 1 else ''} "
                          f"and {empty} empty column{'s' if empty != 1 else ''}"
                          f"{' besides the destination' if not target else ''} at most {limit} can "
                          f"(({free} + 1) \u00d7 2^{empty})")
    if src == CELL:
        return [(card, CELL, dst)]
    free = cells - len(pos[1])
    empties = [j for j, col in enumerate(pos[0]) if not col and j != dst]
    out = []
    _carry(run, src, dst, free, empties, out)
    return out


def _carry(run, src, dst, free, empties, out):
    """Single moves taking ``run`` (bottom card first) from ``src`` to ``dst`` with ``free`` empty cells
    and the empty columns ``empties``: directly through the cells when it fits, else half of it to an
    empty column, the rest to the destination, the half after it (each part with one column fewer)."""
    n = len(run)
    if n <= free + 1:
        out.extend((c, src, CELL) for c in reversed(run[1:]))
        out.append((run[0], src, dst))
        out.extend((c, CELL, dst) for c in run[1:])
        return
    spare, rest = empties[0], empties[1:]
    half = n // 2
    top, bottom = run[n - half:], run[:n - half]
    _carry(top, src, spare, free, rest, out)
    _carry(bottom, src, dst, free, rest, out)
    _carry(top, spare, dst, free, rest, out)


def play(pos, cells, card, dst):
    """(position after the player's move, the single spec moves it took); IllegalMove otherwise."""
    steps = plan(pos, cells, card, dst)
    for step in steps:
        pos = apply_move(pos, step, cells)
    return pos, steps


def autoplay(pos, cells):
    """(position after the safe automatic moves, the single moves to the foundations they took). The
    engine decides which cards go (the C core's safe rule); each goes as a spec move."""
    target = safe_autoplay(pos, cells)
    steps = []
    while pos[2] != target[2]:
        for c in _homeable(pos):
            if pos[2][c % 4] < target[2][c % 4]:
                steps.append((c, CELL if c in pos[1] else locate(pos, c)[1], HOME))
                pos = apply_move(pos, steps[-1], cells)
                break
        else:                                           # pragma: no cover - the engine would be wrong
            raise IllegalMove("the automatic moves could not be replayed")
    return pos, steps


def _homeable(pos):
    tops = [col[-1] for col in pos[0] if col] + list(pos[1])
    return [c for c in tops if can_home(c, pos[2])]


def legal(pos, cells):
    """Every player's move from ``pos``: (card, destination, number of cards), foundations first, then
    free cells, then columns (runs longest first)."""
    home, cell, cols = [], [], []
    sources = [(c, CELL, [c]) for c in pos[1]]
    for i, col in enumerate(pos[0]):
        for d in range(len(col) - 1, -1, -1):
            run = list(col[d:])
            if len(run) > 1 and not can_stack(run[1], run[0]):
                break
            sources.append((col[d], i, run))
    for card, src, run in sources:
        k = len(run)
        if k == 1 and can_home(card, pos[2]):
            home.append((card, HOME, 1))
        if k == 1 and src != CELL and len(pos[1]) < cells:
            cell.append((card, CELL, 1))
        for j, target in enumerate(pos[0]):
            if j == src or (target and not can_stack(card, target[-1])):
                continue
            if not target and src != CELL and len(run) == len(pos[0][src]):
                continue                                # a whole column onto an empty one: no change
            if k <= supermove_limit(pos, cells, j):
                cols.append((card, j, k))
    cols.sort(key=lambda m: -m[2])
    return home + cell + cols


def describe(step, pos):
    """"Move 5♥ from column 3 to a free cell." for a single move (card, src, dst) played from ``pos``."""
    card, src, dst = step
    where = "a free cell" if src == CELL else f"column {src + 1}"
    if dst == HOME:
        to = "its foundation"
    elif dst == CELL:
        to = "a free cell"
    else:
        target = pos[0][dst]
        to = f"column {dst + 1} (on {pretty_name(target[-1])})" if target else f"the empty column {dst + 1}"
    return f"Move {pretty_name(card)} from {where} to {to}."
