"""Tests of the C search core (solver/*.c through solver/search.py) against the Python spec (solver/spec.py).

The spec's moves are compared to the C core's as sets of P64 records: on the start positions of deals
1..200, on positions sampled from real enumerations (deal 11982's whole set, a 20,000-state prefix of
deal 1's), under several rules. The figures of seed 000 are checked: 84,767 positions and at most 2
cards home for deal 11982, and 61,643 positions in the canonical + safe-autoplay counting mode.
"""
import hashlib
import itertools
import random

import pytest

from solver import deals, packed, rules as rules_mod, search, spec
from solver.errors import FreecellError
from solver.packed import pack as pack_p64, unpack as unpack_p64
from solver.rules import Rules
from solver.solve import judge

from helpers.positions import coq_low

SPEC = Rules()


def ms(n):
    return deals.ms_deal(n)


def spec_moves_p64(rec, rules):
    """spec.moves on a P64 record, as a list of P64 records."""
    st = spec.from_position(unpack_p64(rec))
    r = spec.Rules(cells=rules.cells, foundation_return=rules.foundation_return)
    return [pack_p64(spec.to_position(t)) for t in spec.moves(r, st)]


def assert_same_moves(rec, rules, got):
    want = spec_moves_p64(rec, rules)
    assert set(got) == set(want), unpack_p64(rec)
    assert len(got) == len(want)


@pytest.fixture(scope="module")
def r11982():
    res = search.explore(ms(11982), order="bfs")
    yield res
    res.close()


@pytest.fixture(scope="module")
def deal1_prefix():
    res = search.explore(ms(1), max_states=20000, order="bfs")
    yield res
    res.close()


# --- the figures ---------------------------------------------------------------------------------------

def test_11982_spec_figures(r11982):
    assert (r11982.states, r11982.max_home, r11982.won, r11982.complete) == (84767, 2, False, True)
    assert r11982.status == "done"
    assert r11982.expanded == r11982.states


def test_11982_dfs_same_set(r11982):
    res = search.explore(ms(11982), order="dfs")
    assert (res.states, res.max_home, res.complete, res.won) == (84767, 2, True, False)
    assert set(res.records()) == set(r11982.records())
    assert res.records()[0] == r11982.records()[0] == pack_p64(ms(11982))


def test_discovery_order_is_pinned(r11982):
    """The states in discovery order (the move generator's order of successors, fc.h's, and the store's): the
    same records in the same order as ever, a digest of each export. The move generator and the store are
    tuned for speed; a change of order would change every state's number and line."""
    def digest(res):
        return hashlib.sha256(res.export_p64()).hexdigest()[:32]
    assert digest(r11982) == "bdc5243ed49b8e4e106367eaa4840a18"
    dfs = search.explore(ms(11982), order="dfs")
    assert digest(dfs) == "42d7041035aeb885d3eb44d184efa0c1"
    more = search.explore(ms(1), Rules(cells=3, foundation_return=True, supermoves=True), max_states=30000,
                          stop_on_win=False)
    assert (more.states, more.status, digest(more)) == (30000, "limit", "d63ab934733924e8b8802314a99fa429")
    dfs.close()
    more.close()


def spec_enumeration(pos, rules):
    """All positions reachable from pos by spec.moves (a plain Python BFS), as a set of P64 records."""
    r = spec.Rules(cells=rules.cells, foundation_return=rules.foundation_return)
    s0 = spec.from_position(pos)
    seen, queue = {s0}, [s0]
    for s in queue:
        for t in spec.moves(r, s):
            if t not in seen:
                seen.add(t)
                queue.append(t)
    return {pack_p64(spec.to_position(s)) for s in seen}


@pytest.mark.slow
def test_11982_equals_python_spec_enumeration(r11982):
    """The whole reachable set, enumerated by the Python transliteration of the spec (~5 s)."""
    assert spec_enumeration(ms(11982), SPEC) == set(r11982.records())


@pytest.mark.parametrize("rules", [Rules(cells=2), Rules(cells=1, foundation_return=True)] + [
    pytest.param(r, marks=pytest.mark.slow) for r in (Rules(foundation_return=True), Rules(cells=3))])
def test_11982_other_rules_equal_python_spec_enumeration(rules):
    res = search.explore(ms(11982), rules)
    assert res.complete
    assert spec_enumeration(ms(11982), rules) == set(res.records())
    res.close()


def p64_check(rec):
    """True when ``rec`` is the P64 form of a valid position by the C core."""
    return len(rec) == search.P64_SIZE and search.lib.fc_p64_to_pos(rec, search.ffi.new("fc_pos *")) == 0


def test_11982_records(r11982):
    recs = r11982.records()
    assert len(recs) == len(set(recs)) == 84767
    assert recs[0] == pack_p64(ms(11982))
    assert r11982.export_p64() == b"".join(recs)
    assert all(p64_check(rec) for rec in recs[::97])
    assert max(sum(unpack_p64(rec)[2]) for rec in recs) == 2
    s = r11982.search
    for k in random.Random(5).sample(range(len(recs)), 300):
        assert s.find_p64(recs[k]) == k
        assert s.p64(k) == recs[k]
        assert pack_p64(s.state(k)) == recs[k]
    assert s.export_p64(84760, 100) == b"".join(recs[84760:])


def test_11982_closed_under_moves(r11982):
    """Every successor of every state is a state (the certificate's closure), by the C core."""
    s = r11982.search
    for k in range(0, r11982.states, 7):
        for t in s.successors_p64(k):
            assert s.find_p64(t) is not None


def test_11982_parents_are_moves(r11982):
    s = r11982.search
    for k in random.Random(2).sample(range(1, r11982.states), 200):
        p = s.parent(k)
        assert p is not None and p < k
        assert s.p64(k) in search.successors_p64(s.p64(p), SPEC)
    assert s.parent(0) is None
    line = s.line_to(r11982.states - 1)
    assert line[0] == 0 and line[-1] == r11982.states - 1


def test_dfs_parents_replayed_from_the_bitmap():
    """DFS stores no parent per state: fc_search_parent replays the order of expansion from the event
    bitmap. Each parent is a stored state one move away, found earlier, and line_to (one replay) agrees
    with the parents one by one."""
    res = search.explore(ms(11982), order="dfs")
    s = res.search
    assert res.states == 84767
    for k in random.Random(3).sample(range(1, res.states), 60):
        p = s.parent(k)
        assert p is not None and p < k
        assert s.p64(k) in search.successors_p64(s.p64(p), SPEC)
    for k in (res.states - 1, 40000):
        line = s.line_to(k)
        assert line[0] == 0 and line[-1] == k and len(line) > 5
        assert all(s.parent(b) == a for a, b in zip(line, line[1:]))


def chains_position():
    """Two columns K..A, each card one lower and of the other colour than the one below it, and the other
    cards in six columns: its positions often need more than the compact key's 127 bits."""
    suits = [(3, 2, 0, 1), (0, 1, 3, 2)]
    chains = [tuple((r - 1) * 4 + su[i % 4] for i, r in enumerate(range(13, 0, -1))) for su in suits]
    rest = [c for c in range(52) if c not in chains[0] and c not in chains[1]]
    random.Random(1).shuffle(rest)
    return (tuple(chains) + tuple(tuple(rest[i::6]) for i in range(6)), (), (0, 0, 0, 0))


def test_overflow_keys_are_exact():
    """Positions that do not pack into 16 bytes are kept whole (fc_search_overflow): the set stays exact.
    Every stored record is found again at its own index, the records are distinct, sampled successors
    match the spec and parents are one move away."""
    a = search.explore(chains_position(), max_states=20000, stop_on_win=False, order="bfs", compact_at=0)
    assert 0 < a.search.overflow() < a.states == 20000
    recs = a.records()
    assert len(set(recs)) == len(recs)
    assert all(a.search.find_p64(r) == i for i, r in enumerate(recs))
    for k in range(0, a.states, 997):
        assert_same_moves(recs[k], SPEC, a.search.successors_p64(k))
    for k in random.Random(4).sample(range(1, a.states), 100):
        assert recs[k] in search.successors_p64(recs[a.search.parent(k)], SPEC)


def _store_fingerprint(start, rules, order, compact_at):
    """What a search leaves for its callers: its records in discovery order, some parents, the line to its
    last state, the certificate body's records (P64 order), and its memory."""
    r = search.explore(start, rules, stop_on_win=False, order=order, compact_at=compact_at)
    try:
        s, n = r.search, r.states
        return {"status": r.status, "records": s.export_p64(), "sorted": b"".join(s.sorted_batches(10000)),
                "parents": [s.parent(k) for k in range(0, n, 97)], "line": s.moves_to(n - 1),
                "found": [s.find_p64(s.p64(k)) for k in range(0, n, 997)], "overflow": s.overflow()}, s.memory()
    finally:
        r.close()


@pytest.mark.parametrize("rules", [SPEC, Rules(autoplay="safe", canonical=True)], ids=["spec", "safe-canonical"])
def test_the_store_packs_once_and_changes_nothing_else(rules):
    """The store holds 40-byte keys until it holds compact_at positions (lib.FC_COMPACT_AT, 262,144 by default),
    then packs them into 16 bytes once, during the search: the same records in the same order, parents, line,
    certificate body and lookups whether it packs from the start (compact_at 0), in the middle (1000, 30000)
    or never (deal 11982's set is below the default), in breadth and depth first; packed, it holds less."""
    assert search.lib.FC_COMPACT_AT == 262144 > 84767
    for order in ("bfs", "dfs"):
        base, small = _store_fingerprint(ms(11982), rules, order, 0)
        assert base["status"] == "done" and base["overflow"] == 0
        assert len(base["records"]) == 64 * (84767 if rules == SPEC else 61643)
        for at in (1000, 30000, None):
            got, memory = _store_fingerprint(ms(11982), rules, order, at)
            assert got == base, (order, at)
            assert (memory > 1.5 * small) == (at is None), (order, at, memory, small)


def test_deal1_limit_is_unknown():
    res = search.explore(ms(1), max_states=200000, order="bfs")
    assert res.complete is False and res.won is False
    assert res.status == "limit" and judge(ms(1), res, SPEC) == ("unknown", None)
    assert res.states == 200000
    res.close()


def test_deal1_is_winnable_and_the_line_is_legal():
    res = search.explore(ms(1))
    verdict, path = judge(ms(1), res, SPEC)
    assert res.won and verdict == "winnable"
    line = res.winning_line()
    assert path == [spec.from_position(p) for p in line]           # the line judge replayed
    assert line[0] == ms(1) and line[-1][2] == (13, 13, 13, 13)
    for a, b in zip(line, line[1:]):
        assert pack_p64(b) in set(spec_moves_p64(pack_p64(a), SPEC))


@pytest.mark.slow      # a won BFS line replayed against the spec: test_deal1_is_winnable_and_the_line_is_legal
def test_11982_five_cells_winnable():
    res = search.explore(ms(11982), Rules(cells=5))
    assert res.won and judge(ms(11982), res, Rules(cells=5))[0] == "winnable" and res.max_home == 52
    line = res.winning_line()
    rules5 = Rules(cells=5)
    for a, b in zip(line[:400], line[1:401]):
        assert pack_p64(b) in set(spec_moves_p64(pack_p64(a), rules5))
    res.close()


def test_11982_foundation_return_unwinnable():
    res = search.explore(ms(11982), Rules(foundation_return=True))
    assert res.complete and not res.won and res.max_home == 2
    assert judge(ms(11982), res, Rules(foundation_return=True)) == ("unwinnable", None)
    assert res.states == 94851
    res.close()


def test_canonical_autoplay_61643():
    res = search.explore(ms(11982), Rules(autoplay="safe", canonical=True))
    assert (res.states, res.max_home, res.complete, res.won) == (61643, 2, True, False)
    res.close()


def test_two_searches_alive_at_once():
    a = search.Search(ms(11982), order="bfs")
    b = search.Search(ms(11982), Rules(foundation_return=True), order="dfs")
    c = search.Search(ms(1), max_states=5000, order="bfs")
    done = {}
    while len(done) < 3:
        for name, s in (("a", a), ("b", b), ("c", c)):
            if name not in done:
                st = s.run(1000)
                if st != "running":
                    done[name] = st
    assert done == {"a": "done", "b": "done", "c": "limit"}
    assert (len(a), len(b), len(c)) == (84767, 94851, 5000)
    assert a.p64(0) == b.p64(0) == pack_p64(ms(11982))
    a.close()
    assert len(b) == 94851
    with pytest.raises(ValueError):
        len(a)


def test_stop_on_win_false_runs_on():
    res = search.explore(ms(1), max_states=60000, stop_on_win=False, order="dfs")
    assert res.won and res.status == "limit" and res.won_index is not None
    assert sum(res.search.state(res.won_index)[2]) == 52


# --- moves against the spec ------------------------------------------------------------------------------

def test_start_successors_deals_1_200():
    for n in range(1, 201):
        rec = pack_p64(ms(n))
        assert_same_moves(rec, SPEC, search.successors_p64(rec, SPEC))
        assert_same_moves(rec, SPEC, [pack_p64(p) for p in search.successors(ms(n), SPEC)])


def test_successors_sampled_from_11982(r11982):
    recs = r11982.records()
    s = r11982.search
    for k in random.Random(11982).sample(range(len(recs)), 2000):
        assert_same_moves(recs[k], SPEC, search.successors_p64(recs[k], SPEC))
        assert_same_moves(recs[k], SPEC, s.successors_p64(k))


def test_successors_sampled_from_deal1_prefix(deal1_prefix):
    assert deal1_prefix.states == 20000
    recs = deal1_prefix.records()
    s = deal1_prefix.search
    for k in random.Random(1).sample(range(len(recs)), 2000):
        assert_same_moves(recs[k], SPEC, search.successors_p64(recs[k], SPEC))
        assert_same_moves(recs[k], SPEC, s.successors_p64(k))


@pytest.mark.parametrize("cells", range(9))
@pytest.mark.parametrize("fret", [False, True])
def test_successors_other_rules(cells, fret, deal1_prefix):
    rules = Rules(cells=cells, foundation_return=fret)
    recs = deal1_prefix.records()
    for k in random.Random(cells).sample(range(len(recs)), 150):
        assert_same_moves(recs[k], rules, search.successors_p64(recs[k], rules))


def test_foundation_returns_sampled():
    """Positions with cards home, from the foundation-return enumeration of deal 1."""
    rules = Rules(foundation_return=True)
    res = search.explore(ms(1), rules, max_states=30000, order="bfs")
    recs = res.records()
    homes = [k for k in range(len(recs)) if sum(unpack_p64(recs[k])[2]) > 0]
    assert homes
    for k in random.Random(3).sample(homes, min(500, len(homes))):
        assert_same_moves(recs[k], rules, search.successors_p64(recs[k], rules))
        assert_same_moves(recs[k], rules, res.search.successors_p64(k))
    res.close()


def test_odd_positions():
    """Hand-made positions: long columns, a partly finished game, full cells, empty columns."""
    full = list(range(51, -1, -1))    # all 52 cards in one column, KS at the bottom, AC on top
    pos = ((tuple(full),) + ((),) * 7, (), (0, 0, 0, 0))
    rec = pack_p64(pos)
    assert_same_moves(rec, SPEC, search.successors_p64(rec, SPEC))
    res = search.explore(pos, max_states=50000)
    assert res.won                    # peel it all off onto the foundations
    # foundations partly built, cards in all 8 cells of an 8-cell game
    home = (5, 3, 0, 2)
    rest = [c for c in range(52) if c // 4 + 1 > home[c % 4]]
    cells = tuple(sorted(rest[:8]))
    cols = [[] for _ in range(8)]
    for i, c in enumerate(rest[8:]):
        cols[i % 5].append(c)
    pos = (tuple(tuple(c) for c in cols), cells, home)
    rec = pack_p64(pos)
    for rules in (Rules(cells=8), Rules(cells=8, foundation_return=True)):
        assert_same_moves(rec, rules, search.successors_p64(rec, rules))
        res = search.explore(pos, rules, max_states=20000, order="bfs")
        for k in random.Random(4).sample(range(res.states), 200):
            r2 = res.search.p64(k)
            assert_same_moves(r2, rules, res.search.successors_p64(k))
            assert_same_moves(r2, rules, search.successors_p64(r2, rules))
        res.close()


@pytest.mark.parametrize("cells", range(9))
def test_cells_0_to_8_run(cells):
    for n in (1, 2, 11982):
        res = search.explore(ms(n), Rules(cells=cells), max_states=30000, order="bfs")
        assert res.states >= 1 and res.status in ("done", "won", "limit")
        assert max(len(unpack_p64(r)[1]) for r in res.records()[-2000:]) <= cells
        res.close()


# --- positions, P64, errors ------------------------------------------------------------------------------

def test_p64_round_trip():
    from solver._fc import ffi, lib
    for n in (1, 617, 11982):
        pos = ms(n)
        p = search.pos_to_c(pos)
        out = ffi.new("uint8_t[64]")
        assert lib.fc_pos_to_p64(p, out) == 0
        assert ffi.buffer(out)[:] == pack_p64(pos)
        assert unpack_p64(pack_p64(pos)) == pos
        assert search.pos_from_c(search.pos_to_c(pos)) == pos
    rec = pack_p64(ms(5))
    q = ffi.new("fc_pos *")
    assert lib.fc_p64_to_pos(rec, q) == 0 and search.pos_from_c(q) == ms(5)


def test_bad_positions_rejected():
    cols, cells, home = ms(1)
    bad = ((cols[0] + (cols[1][0],),) + cols[1:], cells, home)       # a card twice
    with pytest.raises(FreecellError):
        search.successors(bad)
    missing = ((cols[0][:-1],) + cols[1:], cells, home)               # a card nowhere
    with pytest.raises(FreecellError):
        search.explore(missing)
    with pytest.raises(FreecellError):
        Rules(cells=9)
    with pytest.raises(FreecellError):
        search.successors_p64(b"\x01" * 64)
    assert p64_check(b"\x00" * 64)          # every card home: the won position
    assert not p64_check(b"\x01" * 64) and not p64_check(b"\x35" + bytes(63))


def test_autoplay_modes():
    # AC on top of column 0: every autoplay mode sends it home
    pos = ms(11982)
    for mode in ("safe", "horne", "twos", "all"):
        assert search.autoplay(pos, Rules(autoplay=mode)) == pos      # nothing playable at the start
    clubs = tuple(range(48, -1, -4))                                  # KC .. AC, AC on top
    pos = ((clubs,) + ((),) * 7, (), (0, 13, 13, 13))
    for mode, home in (("safe", 13), ("horne", 13), ("twos", 2), ("all", 13)):
        assert search.autoplay(pos, Rules(autoplay=mode))[2] == (home, 13, 13, 13)
    assert search.autoplay(pos, Rules())[2] == (0, 13, 13, 13)
    # a black 3 waits for both red twos (safe) or is allowed with reds at 1 and spades at 0 (safe rule 2)
    board = [c for c in range(52) if c // 4 + 1 > (2, 1, 1, 0)[c % 4]]
    cols = [tuple(c for c in board if c != 8)] + [(8,)] + [()] * 6   # 3C alone in column 1
    pos = (tuple(cols), (), (2, 1, 1, 0))
    assert search.autoplay(pos, Rules(autoplay="horne"))[2] == (2, 1, 1, 0)
    assert search.autoplay(pos, Rules(autoplay="safe"))[2] == (3, 1, 1, 0)


def _c_sends_home(x, h, rules):
    """fc_internal.h's safe_home on card x with foundations h: x alone on column 1, the other cards above their
    foundations on column 0 with a card that cannot go home on top (when there is one: else x is a king
    whose other-colour foundations are at 12 or more, home by every rule that sends kings home), so that
    the automatic moves send x home exactly when safe_home allows it at the start."""
    rest = [c for c in range(52) if c != x and c // 4 + 1 > h[c % 4]]
    blockers = [c for c in rest if c // 4 + 1 > h[c % 4] + 1]
    col0 = tuple([c for c in rest if c not in blockers] + blockers)      # top card last
    pos = ((col0, (x,)) + ((),) * 6, (), tuple(h))
    return search.autoplay(pos, rules)[2][x % 4] > h[x % 4]


@pytest.mark.parametrize("mode", ["horne", "safe", "twos"])
def test_safe_home_is_the_coq_rule(mode):
    """fc_internal.h's safe_home against Autoplay.v's lowOthers / lowSafe / lowTwos: every card as the next of its suit,
    the other three foundations at every height from rank - 5 to rank + 1 and at 0 and 13 (the rules compare
    them with rank - 3 .. rank - 1 only)."""
    rules = Rules(autoplay=mode)
    checked = 0
    for x in range(52):
        r, s = x // 4 + 1, x % 4
        heights = sorted({0, 13} | {v for v in range(r - 5, r + 2) if 0 <= v <= 13})
        for hs in itertools.product(heights, repeat=3):
            h = list(hs)
            h.insert(s, r - 1)
            assert _c_sends_home(x, h, rules) == coq_low(mode, h, r, s), (mode, x, h)
            checked += 1
    assert checked > 10000


# --- the canonical + safe-autoplay mode against an independent Python version ----------------------------

def _py_safe(c, home):
    r, s = c // 4 + 1, c % 4
    return home[s] == r - 1 and coq_low("safe", home, r, s)


def _py_autoplay(pos):
    cols, cells, home = [list(c) for c in pos[0]], list(pos[1]), list(pos[2])
    moved = True
    while moved:
        moved = False
        for col in cols:
            while col and _py_safe(col[-1], home):
                home[col[-1] % 4] += 1
                col.pop()
                moved = True
        for c in list(cells):
            if _py_safe(c, home):
                home[c % 4] += 1
                cells.remove(c)
                moved = True
    return tuple(tuple(c) for c in cols), tuple(sorted(cells)), tuple(home)


def _canon(pos):
    return tuple(sorted(pos[0])), pos[1], pos[2]


def test_autoplay_successors_match_python(deal1_prefix):
    rules = Rules(autoplay="safe")
    recs = deal1_prefix.records()
    for k in random.Random(7).sample(range(len(recs)), 300):
        pos = unpack_p64(recs[k])
        want = {pack_p64(_py_autoplay(spec.to_position(t)))
                for t in spec.moves(spec.Rules(), spec.from_position(pos))}
        assert set(search.successors_p64(recs[k], rules)) == want


@pytest.mark.slow
def test_canonical_autoplay_equals_python():
    """The 61,643 of seed 000, by a Python BFS over spec.moves + safe autoplay + sorted columns (~4 s)."""
    r = spec.Rules()
    start = _canon(_py_autoplay(ms(11982)))
    seen, queue = {start}, [start]
    for pos in queue:
        for t in spec.moves(r, spec.from_position(pos)):
            n = _canon(_py_autoplay(spec.to_position(t)))
            if n not in seen:
                seen.add(n)
                queue.append(n)
    assert len(seen) == 61643
    res = search.explore(ms(11982), Rules(autoplay="safe", canonical=True))
    assert {_canon(unpack_p64(rec)) for rec in res.records()} == seen
    res.close()


def test_max_states_exact_boundary():
    res = search.explore(ms(11982), max_states=84767)
    assert res.complete and res.states == 84767
    res = search.explore(ms(11982), max_states=84766)
    assert not res.complete and res.status == "limit" and not res.won


def test_wrapper_input_checks():
    cols, cells, home = ms(1)
    with pytest.raises(FreecellError):
        search.successors((((-1,) + cols[0],) + cols[1:], cells, home))
    with pytest.raises(FreecellError):
        search.successors_p64(pack_p64(ms(1))[:63])
    with pytest.raises(FreecellError):
        search.explore(ms(1), order="sideways")
    with pytest.raises(FreecellError):
        search.explore(ms(1), max_states=0)
    s = search.Search(ms(11982))
    assert s.find_p64(b"\0" * 10) is None and s.find_p64(b"\0" * 64) is None   # the won position: absent
    with pytest.raises(IndexError):
        s.p64(1)
    assert Rules(autoplay="safe").counting and Rules() == rules_mod.STANDARD
    assert Rules(cells=5)._replace(cells=4) == Rules() and hash(Rules(cells=5).plain()) == hash(Rules(cells=5))
    with pytest.raises(FreecellError):
        Rules()._replace(cells=9)
    with pytest.raises(FreecellError):
        Rules(autoplay=True)


def test_the_binding_reads_its_constants_from_the_header():
    """The pure-Python modules' own copies of the format constants agree with solver/fc.h."""
    assert search.P64_SIZE == packed.SIZE == 64
    assert search.MAX_CELLS == rules_mod.MAX_CELLS == 8
    assert set(search.AUTOPLAY) == set(rules_mod.AUTOPLAY)
    assert (search.CELL, search.HOME) == (8, 9)
