"""The survey's batch path: the C core's dealer (fc_deal) and batch solver (fc_solve_deals), and the
independent checker's replay of the winning lines (checker/fccheck.c's library mode, certgen.replay).

The batch must give exactly what the per-deal path gives (the same status, positions and line, deal by
deal, including the unwinnable #11982 and deals with fewer free cells), and the replay must refuse a
line with an illegal move or a line that does not end won, at the move where the Python replay
(solver.lines, written from the spec) refuses it.
"""
import random

import pytest

from certgen import certificate, fastcheck, replay, survey
from solver import deals, lines, search, solve
from solver.errors import FreecellError
from solver.rules import STANDARD, Rules

EDGES = [1, 2, 617, 11982, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 33 - 1]


def test_the_c_dealer_is_the_python_dealer():
    for n in list(range(1, 301)) + EDGES:
        assert search.deal(n) == deals.ms_deal(n), n
    for bad in (0, -1, 2 ** 33, 2 ** 70, True, "7"):
        with pytest.raises(FreecellError, match="deal must be a whole number"):
            search.deal(bad)


def per_deal(n, rules, max_states):
    status, codes, states, _exp, _found = search.solve_line(deals.ms_deal(n), solve.speedups(rules),
                                                            max_states, solve.DEFAULT_SHORTEN)
    return status, codes or [], int(states)


STATUS = {search.lib.FC_WON: "won", search.lib.FC_DONE: "done", search.lib.FC_LIMIT: "limit"}


@pytest.mark.parametrize("first,count,cells,max_states", [(1, 300, 4, 3_000_000), (11940, 60, 4, 3_000_000),
                                                          (1, 40, 2, 30_000), (1, 30, 1, 5_000)])
def test_the_batch_equals_the_per_deal_solver(first, count, cells, max_states):
    rules = Rules(cells=cells)
    b = search.solve_deals(first, count, solve.speedups(rules), max_states, solve.DEFAULT_SHORTEN)
    assert b.count == count
    seen = set()
    for i in range(count):
        status, codes, states = per_deal(first + i, rules, max_states)
        seen.add(status)
        assert (STATUS[b.status[i]], b.line(i), int(b.states[i])) == (status, codes, states), first + i
        assert b.length[i] == (len(codes) if status == "won" else -1)
    if first == 11940:       # #11982: the solver's own space runs out (the enumeration, 84,767 positions more:
        # the survey's 405,246, then decides)
        assert b.status[11982 - first] == search.lib.FC_DONE and b.states[11982 - first] == 320_479
    if cells < 4:
        assert seen >= {"won", "done"} or seen >= {"won", "limit"}


def test_a_full_line_buffer_is_continued(monkeypatch):
    monkeypatch.setattr(search, "BATCH_LINE", 0)        # room for one line of MAX_LINE codes: ~500 deals
    b = search.solve_deals(1, 1000, solve.speedups(STANDARD), 3_000_000)
    assert 300 < b.count < 1000
    assert sum(b.length[i] for i in range(b.count)) <= search.MAX_LINE
    rows = [row[:4] for row, _data in survey.classify_range(1, 700, STANDARD, 3_000_000)]
    assert [r[0] for r in rows] == list(range(1, 701))
    for n in (1, 2, 350, b.count, b.count + 1, 700):
        row, _ = survey.classify(n, STANDARD, 3_000_000)
        assert rows[n - 1] == row[:4]


def test_every_batch_line_replays_and_corrupted_lines_are_refused():
    b = search.solve_deals(1, 200, solve.speedups(STANDARD), 3_000_000)
    assert replay.batch(b) == [0] * 200
    rnd = random.Random(12)
    refused = 0
    for i in range(200):
        n, codes = 1 + i, b.line(i)
        assert replay.line(n, codes) == 0
        assert replay.line(n, codes[:-1]) == len(codes)              # legal, but not won
        assert replay.line(n + 1, codes) != 0                        # another deal's line
        k = rnd.randrange(len(codes))
        bad = list(codes)
        bad[k] = rnd.randrange(52) | rnd.randrange(10) << 8
        got = replay.line(n, bad)
        try:                                                         # the Python replay (solver.lines)
            lines.codes_to_moves(deals.ms_deal(n), bad)
            want = 0
        except lines.LineError as exc:
            msg = str(exc)
            want = int(msg.split(":")[0].split()[1]) if msg.startswith("move ") else len(bad) + 1
        assert got == want, (n, k, bad[k])
        refused += got != 0
    assert refused > 150
    assert replay.line(1, [52]) == 1 and replay.line(1, [0 | 10 << 8]) == 1 and replay.line(1, []) == 1


@pytest.mark.parametrize("cells,fret", [(4, False), (2, True), (1, False), (0, True)])
def test_the_replay_answers_as_the_python_replay_on_random_walks(cells, fret):
    """Random walks from deals (each step one of the legal moves by solver.lines: cards from the columns'
    tops, the free cells and -- with foundation returns -- the foundations' tops), with an illegal move
    tried at every step: the replay answers as the Python replay (the illegal move's index; the line's
    length + 1, legal but not won)."""
    rules = Rules(cells=cells, foundation_return=fret)
    rnd = random.Random(cells * 2 + fret)
    tried = {"illegal": 0, "from cell": 0, "from home": 0}
    for n in rnd.sample(range(1, 2 ** 33), 9) + [1, 2 ** 31 + 5]:
        pos, codes = deals.ms_deal(n), []
        for _step in range(80):
            cols, cell_cards, home = pos
            cards = [c[-1] for c in cols if c] + list(cell_cards) + [(h - 1) * 4 + s for s, h in enumerate(home) if h]
            legal, illegal = [], []
            for code in (card | dst << 8 for card in cards for dst in range(10)):
                try:
                    legal.append((code, lines.codes_to_moves(pos, [code], rules, need_won=False)[1]))
                except lines.LineError:
                    illegal.append(code)
            bad = rnd.choice(illegal)
            assert replay.line(n, codes + [bad], cells, fret) == len(codes) + 1, (n, codes, bad)
            tried["illegal"] += 1
            if not legal:
                break
            code, pos = rnd.choice(legal)
            if code >> 8 == search.CELL:       # the walk goes on longer with the cells filling slower
                code, pos = rnd.choice(legal)
            tried["from cell"] += (code & 0xFF) in cell_cards
            tried["from home"] += home[code & 3] == (code & 0xFF) // 4 + 1
            codes.append(code)
        assert replay.line(n, codes, cells, fret) == len(codes) + 1, n
    assert tried["illegal"] > 150 and (tried["from cell"] > 10) == (cells > 0)
    assert (tried["from home"] > 10) == fret


def first_return(b):
    """A line of the batch cut after a card went home, then that card back onto a column where it may go
    (empty, or a top card one rank higher of the other colour): the first such, by the Python replay."""
    fret = Rules(foundation_return=True)
    for i in range(b.count):
        codes = b.line(i)
        for k, code in enumerate(codes):
            if code >> 8 != search.HOME or code & 0xFF < 4:
                continue
            for j in range(8):
                line = codes[:k + 1] + [(code & 0xFF) | j << 8]
                try:
                    lines.codes_to_moves(deals.ms_deal(b.first + i), line, fret, need_won=False)
                except lines.LineError:
                    continue
                return b.first + i, line
    raise AssertionError("no foundation return found")


def test_a_foundation_return_is_replayed_only_under_its_rules():
    n, line = first_return(search.solve_deals(1, 20, solve.speedups(STANDARD), 3_000_000))
    assert replay.line(n, line, foundation_return=True) == len(line) + 1      # legal, not won
    assert replay.line(n, line) == len(line)                                  # no returns: refused
    with pytest.raises(lines.LineError, match=f"move {len(line)}: .* cannot come back from its foundation"):
        lines.codes_to_moves(deals.ms_deal(n), line, STANDARD, need_won=False)


def test_a_refused_line_stops_the_survey(monkeypatch, tmp_path):
    monkeypatch.setattr(replay, "batch", lambda b, *a: [3] * b.count)
    with pytest.raises(lines.LineError, match="deal 1 failed the checker's replay \\(move 3 is not legal\\)"):
        survey.run(1, 3, str(tmp_path / "s"))


@pytest.mark.parametrize("checker", ["fast", "python"])
def test_a_certificate_the_checker_refuses_is_not_counted(monkeypatch, checker):
    # Deal 3 with one free cell is unwinnable (2,240 positions); a certificate missing one of them fails
    # the check, and the deal is then unknown, never unwinnable.
    rules = Rules(cells=1)
    if checker == "python":
        monkeypatch.setattr(fastcheck, "binary", lambda: None)
    elif fastcheck.binary() is None:
        pytest.skip(f"no fast checker: {fastcheck.why_not()}")
    assert survey.classify(3, rules, 3_000_000)[0][1] == "unwinnable"
    real = certificate.make
    monkeypatch.setattr(certificate, "make", lambda src, r, pos, recs, info: real(src, r, pos, recs[:-1], info))
    row, data = survey.classify(3, rules, 3_000_000)
    assert row[1] == "unknown" and data is None
