"""Difficulty by free cells needed (seed 004, issue 13 item 4): `survey A-B --difficulty`.

Each k is proven both ways (a replayed win with k cells, every position with k - 1 cells enumerated
without a win); the figures below were measured with the default tiers and are asserted exactly. The
whole 1..32000 run (docs/difficulty-1-32000.csv) is a long job, not a test: its command is in docs/DIFFICULTY.md.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

from solver import deals, difficulty, search, spec
from solver.limits import SOLVER_BYTES_PER_POSITION, STORE_BYTES_PER_POSITION_WORST
from solver.solve import DEEP, solve
from solver.errors import FreecellError, WorkerLost
from solver.journal import open_journal
from solver.rules import Rules

from helpers import ROOT

# k for deals 1..30, each proven both ways (deal 9: a win with 2 cells, the 1-cell set enumerated; deal 1
# needs 3). The same with the solver before its portfolio of stages (which needed tier 2 for deals 9 and 12).
K_1_30 = {1: 3, 2: 1, 3: 2, 4: 2, 5: 1, 6: 3, 7: 1, 8: 1, 9: 2, 10: 2, 11: 1, 12: 2, 13: 2, 14: 2, 15: 2,
          16: 2, 17: 2, 18: 2, 19: 2, 20: 2, 21: 3, 22: 2, 23: 2, 24: 2, 25: 3, 26: 1, 27: 2, 28: 2, 29: 2,
          30: 1}


def read_journal(csv_path):
    """{deal: Need} of the difficulty survey's journal beside ``csv_path`` (what a run killed before its export
    had recorded)."""
    with difficulty.attach(difficulty.work_root_of(csv_path)) as j:
        return difficulty._journal_needs(j)


def test_survey_1_30_figures(run_json, tmp_path):
    out = tmp_path / "d.csv"
    obj = run_json("survey", "1-30", "--difficulty", "--jobs", "2", "--out", str(out))
    assert obj["cells_needed"] == {str(d): k for d, k in K_1_30.items()}
    assert obj["counts"] == {"easy": 7, "medium": 19, "hard": 4, "more": 0, "undecided": 0}
    rows = out.read_text().splitlines()
    assert rows[0] == "deal,k,class,proven_low,win_with,states,tier,sha256" and len(rows) == 31
    assert rows[9].startswith("9,2,medium,2,2,") and rows[9].split(",")[6] == "1"     # decided in tier 1
    assert rows[1].startswith("1,3,hard,3,3,") and rows[1].split(",")[6] == "1"
    assert all(r.split(",")[7] == difficulty.row_digest(difficulty.read_csv(str(out))[0][int(r.split(",")[0])])
               for r in rows[1:])


@pytest.mark.parametrize("deal,k", [(2, 1), (617, 4), (11982, 5)])
def test_cells_needed_proven_both_ways(deal, k):
    """The ladder's answer, then both halves of the proof again by hand: a win with k cells (none needed
    for 11982: it needs more than 4), every position with k - 1 cells enumerated, none won."""
    n = difficulty.cells_needed(deal)
    assert (n.k, n.low) == (k, k) and difficulty.klass(n) == {1: "easy", 4: "hard", 5: "more"}[k]
    assert n.high == (None if k > 4 else k)
    r = search.explore(deals.ms_deal(deal), Rules(cells=k - 1), stop_on_win=False)
    try:
        assert r.complete and not r.won
    finally:
        r.close()


def test_a_win_found_by_the_enumeration_lowers_the_bound():
    """Deal 28 with a solver limit of 10 positions (the solver finds nothing): the depth-first
    enumerations find wins with 4, 3 and 2 cells (the 4-cell line is 151,514 moves, more than the C
    core's 65,535-move line buffer, and is replayed all the same) and the 1-cell one is complete (55
    positions): k = 2, in one tier."""
    n = difficulty.cells_needed(28, tiers=((10, 2_000_000),))
    assert (n.k, n.low, n.high, n.tier) == (2, 2, 2, 1)
    r = search.explore(deals.ms_deal(28), Rules(cells=4))
    try:
        assert r.won and len(r.search.moves_to(r.won_index)) == 151_514
    finally:
        r.close()


def test_a_tier_with_no_bigger_solver_limit_runs_only_the_enumeration(monkeypatch):
    """Tier 4 keeps tier 3's solver limit: the same deterministic search again would find nothing new, so
    only its bigger enumeration runs (deal 28 from no bounds: the enumerations alone find k = 2); a tier
    with a bigger solver limit tries the solver first, downwards from high - 1 (here from 4 cells)."""
    calls = []
    real = difficulty._solver
    monkeypatch.setattr(difficulty, "_solver", lambda pos, k, limit, deep=False: calls.append(k) or real(pos, k, limit, deep))
    n = difficulty.refine(28, 1, tiers=((10, 100), (10, 2_000_000)))
    assert calls == [] and (n.k, n.low, n.high, n.tier) == (2, 2, 2, 2)
    difficulty.refine(28, 1, tiers=((10, 100), (11, 2_000_000)))
    assert calls[0] == 4
    assert difficulty.TIERS[3][0] == difficulty.TIERS[2][0] and difficulty.TIERS[3][1] > difficulty.TIERS[2][1]


def test_tier_5_tries_the_deep_solver_before_its_disk_enumeration(monkeypatch):
    """Tier 5's solver is the deep portfolio with up to 100,000,000 positions (tiers 3 and 4: the built-in
    one, 20,000,000), so it runs again, downwards from high - 1, before the enumeration on disk; its memory is
    the larger of the solver's (60 bytes a position: 6,000,000,000) and the disk enumeration's (6 GiB), not
    their sum (one runs after the other). A win there decides the deal without touching the disk (the solver
    stands in for #11744's 1-cell win: the real ones are in test_tier_5s_deep_solver_wins_with_one_cell, slow).
    A tier with the same limit as the one before but the deep portfolio runs the solver too."""
    t4, t5 = difficulty.tier_of(3), difficulty.tier_of(4)
    assert (t4.solver, t5.solver, t4.deep, t5.deep) == (20_000_000, 100_000_000, False, True)
    assert not difficulty.runs_solver(3) and difficulty.runs_solver(4)
    assert difficulty.runs_solver(1, tiers=((10, 10), (10, 20, None, False, True)))
    assert not difficulty.runs_solver(1, tiers=((10, 10, None, False, True), (10, 20, None, False, True)))
    assert difficulty.job_memory(4) == max((4 << 30) + (1 << 20), 100_000_000 * SOLVER_BYTES_PER_POSITION) \
        == 6_000_000_000      # the deep solver's; the disk enumeration's buffer and the overflow set's floor less
    assert difficulty.job_memory(1, tiers=((10, 10), (1_000_000_000, 10))) == 60_000_000_000
    assert difficulty.job_memory(1, tiers=((10, 10), (10, 10))) == 10 * STORE_BYTES_PER_POSITION_WORST  # no solver
    calls = []
    monkeypatch.setattr(difficulty, "_solver", lambda pos, k, limit, deep=False: calls.append((k, limit, deep)) or ("winnable", 7))
    monkeypatch.setattr(difficulty, "_enumerate_on_disk", lambda *a, **kw: pytest.fail("no disk search after a win"))
    n = difficulty.refine(11744, 4, low=1, high=2, states=5)
    assert calls == [(1, 100_000_000, True)] and (n.k, n.low, n.high, n.states, n.tier) == (1, 1, 1, 12, 5)


@pytest.mark.slow
@pytest.mark.parametrize("deal,length,states", [(14497, 130, 17_058_877), (13599, 157, 82_861_647),
                                                (11744, 175, 5_667_052)])
def test_tier_5s_deep_solver_wins_with_one_cell(deal, length, states):
    """Deals tier 4 left at 1 <= k <= 2 (their 1-cell sets up to column order past 400,000,000 positions;
    #11744's past 2,874,052,559 on disk) are won with 1 cell by tier 5's solver, the deep
    portfolio: lines replayed under spec.moves: k = 1, Easy. #14497 in its first stage (about 40 s, 1 GB),
    #13599 in its fourth (about 3 minutes), #11744 in 5,667,052 positions (the built-in portfolio wins it
    too, in its last, unpruned stage: 145 moves, 35,059,546 positions)."""
    t5 = difficulty.tier_of(4)
    r = solve(deals.ms_deal(deal), Rules(cells=1), max_states=t5.solver, stages=DEEP)
    assert r.verdict == "winnable" and r.path is not None and spec.won(r.path[-1])
    assert (r.length, r.states) == (length, states)
    if deal == 11744:
        r = solve(deals.ms_deal(deal), Rules(cells=1), max_states=t5.solver)
        assert (r.verdict, r.length, r.states) == ("winnable", 145, 35_059_546)


def test_undecided_is_kept_with_its_bounds_and_goes_on_at_the_next_tier(run_json, tmp_path):
    obj = run_json("survey", "2", "--difficulty", "--max-states", "10")
    assert obj["cells_needed"] == {"2": None} and obj["counts"]["undecided"] == 1
    assert obj["undecided"] == [{"deal": 2, "low": 1, "win_with": None}]     # 0 cells: all 10 seen
    # A file holding an undecided row from tier 1 (say a killed run's) goes on at tier 2 from its bounds.
    out = tmp_path / "d.csv"
    out.write_text(difficulty.csv_text([difficulty.Need(144, None, 1, 2, 100, 1)]))
    obj = run_json("survey", "144", "--difficulty", "--out", str(out))
    assert obj["cells_needed"] == {"144": 1} and obj["resumed"] == 1
    assert out.read_text().splitlines()[1].startswith("144,1,easy,1,1,") and out.read_text().split(",")[-2] == "2"


def test_a_killed_run_goes_on(run_json, run, tmp_path):
    """A CSV brought without its journal is taken in (its rows checked against their digests): the deals it
    holds are not done again, and the CSV exported at the end has one row a deal in deal order (rows of other
    deals kept)."""
    out = tmp_path / "d.csv"
    three = difficulty.Need(3, 2, 2, 2, 5, 1)                   # "done": not redone (its states stay 5)
    out.write_text(difficulty.csv_text([three, difficulty.Need(100, 2, 2, 2, 7, 1)]))   # 100: outside the range
    obj = run_json("survey", "2-5", "--difficulty", "--out", str(out))
    assert obj["resumed"] == 1 and obj["cells_needed"] == {"2": 1, "3": 2, "4": 2, "5": 1}
    lines = out.read_text().splitlines()
    assert [ln.split(",")[0] for ln in lines[1:]] == ["2", "3", "4", "5", "100"]
    assert lines[2] == difficulty.row_text(three) and lines[2].startswith("3,2,medium,2,2,5,1,")
    # the words, singular and plural
    for deals, words in (("3", "; 1 deal was already in "), ("2-5", "; 4 deals were already in ")):
        p = run("survey", deals, "--difficulty", "--out", str(out))
        assert p.returncode == 0 and words + str(out) + "\n" in p.stdout, p.stdout


def test_bad_output_file_is_one_line(run, assert_one_line_error, tmp_path):
    other = tmp_path / "other.csv"
    other.write_text("deal,verdict\n1,winnable\n")
    line = assert_one_line_error(run("survey", "1", "--difficulty", "--out", str(other)))
    assert "is not a difficulty CSV" in line
    assert other.read_text() == "deal,verdict\n1,winnable\n"
    bad = tmp_path / "bad.csv"
    bad.write_text(",".join(difficulty.CSV_HEADER) + "\n1,2,easy,0,3,5,1,0\n")
    assert "line 2: not a difficulty row" in assert_one_line_error(
        run("survey", "1", "--difficulty", "--out", str(bad)))
    # A file that is not a journal is refused before anything is cut (its unfinished last line was lost).
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"my notes, no newline at the end")
    assert "is not a difficulty CSV" in assert_one_line_error(run("survey", "1", "--difficulty", "--out", str(notes)))
    assert notes.read_bytes() == b"my notes, no newline at the end"
    # Rows that cannot be: low above win_with (it became a "proven" k = 1 for deal 1, which needs 3), a tier
    # outside 1..5, negative states, deal 0.
    for row in ("1,,undecided,2,1,5,1", "1,,undecided,1,2,5,0", "1,,undecided,1,2,5,6", "1,,undecided,1,2,-5,1",
                "0,,undecided,1,2,5,1", "1,,undecided,1,5,5,1",
                "2,1,hard,1,1,322,1", "2,1,undecided,1,1,322,1",           # the class word not k's
                "\u0662,1,easy,1,1,322,1", "2,1,easy,1,1,3_22,1", " 2, 1,easy, 1, 1,322,1", "2,1,easy,01,1,322,1"):
        bad.write_text(",".join(difficulty.CSV_HEADER) + "\n" + row + ",0\n")
        assert "line 2: not a difficulty row" in assert_one_line_error(
            run("survey", "1", "--difficulty", "--tiers", "2", "--out", str(bad))), row


def test_a_difficulty_csv_the_csv_reader_cannot_read_is_one_line(run, assert_one_line_error, tmp_path):
    """Lines ended by a carriage return alone, a field past the csv module's limit: one line naming the file
    and the line (csv.Error was a traceback), the file left as it was."""
    header = ",".join(difficulty.CSV_HEADER)
    row = difficulty.row_text(difficulty.Need(3, 2, 2, 2, 5, 1))
    for name, data, why in (("cr.csv", f"{header}\n{row}\r{row}\n", "line 2: not read as CSV (a carriage return "
                                                                      "not followed by a line feed)"),
                            ("long.csv", f"{header}\n{row}\n1,\"{'x' * 200_000}\"\n", "line 3: not read as CSV")):
        bad = tmp_path / name
        bad.write_text(data, newline="")
        line = assert_one_line_error(run("survey", "1", "--difficulty", "--tiers", "1", "--out", str(bad)))
        assert f"{bad} {why}" in line, line
        assert bad.read_bytes() == data.encode()


def test_one_survey_a_file_and_no_plain_survey_over_it(run, assert_one_line_error, tmp_path):
    # Two surveys on one file: the second is refused, naming the first's process.
    journal = tmp_path / "d.csv"
    row = difficulty.row_text(difficulty.Need(3, 2, 2, 2, 5, 1))
    journal.write_text(",".join(difficulty.CSV_HEADER) + "\n" + row + "\n")
    with open_journal(str(tmp_path / "d.csv.work"), "difficulty survey"):       # what a running survey holds
        line = assert_one_line_error(run("survey", "1", "--difficulty", "--tiers", "1", "--out", str(journal)))
        assert line == f"error: {tmp_path / 'd.csv.work'} is in use by another survey (process {os.getpid()}): " \
                       "wait for it to end, or give another --out file"
    assert journal.read_text().endswith(row + "\n")
    # A plain survey (no --difficulty) would have replaced a day's journal by its own CSV.
    line = assert_one_line_error(run("survey", "1", "--out", str(journal)))
    assert "holds a difficulty survey" in line
    assert journal.read_text().endswith(row + "\n")
    # The disk tier's folder beside the journal, not a folder: refused at the start, not hours later.
    shutil.rmtree(tmp_path / "d.csv.work")
    (tmp_path / "d.csv.work").write_text("x")
    line = assert_one_line_error(run("survey", "1", "--difficulty", "--tiers", "1", "--out", str(journal)))
    assert "the survey's work folder" in line and "not a folder" in line
    # A CSV of the older format (no digests) is refused in one line.
    (tmp_path / "d.csv.work").unlink()
    old = tmp_path / "old.csv"
    old.write_text("deal,k,class,proven_low,win_with,states,tier\n3,2,medium,2,2,5,1\n")
    line = assert_one_line_error(run("survey", "1", "--difficulty", "--tiers", "1", "--out", str(old)))
    assert line == f"error: {old} is a difficulty CSV of the older format (no sha256 column: its rows cannot be " \
                   "checked); give another --out, or run the survey again"


def test_rules_flags_do_not_go_with_difficulty(run, assert_one_line_error, tmp_path):
    # A bad row is refused before the unfinished last line is cut: the refused file is left as it was.
    bad = tmp_path / "rows.csv"
    bad.write_text(",".join(difficulty.CSV_HEADER) + "\nhello world\nno newline at the end")
    before = bad.read_bytes()
    assert "line 2: not a difficulty row" in assert_one_line_error(run("survey", "1", "--difficulty", "--out", str(bad)))
    assert bad.read_bytes() == before
    for flags in (["--cells", "3"], ["--foundation-return"], ["--strict"]):
        line = assert_one_line_error(run("survey", "1", "--difficulty", *flags))
        assert f"{flags[0]} does not go with --difficulty" in line
    assert "--memory goes with --difficulty" in assert_one_line_error(run("survey", "1", "--memory", "12G"))
    assert "--memory must be a size" in assert_one_line_error(run("survey", "1", "--difficulty", "--memory", "12Q"))


def limits(obj):
    """The tiers' own limits in a survey's --json (without what each used when it ran)."""
    return [{k: t[k] for k in ("solver", "enumeration", "disk_buffer", "up_to_column_order")} for t in obj["tiers"]]


def test_tiers_flag(run_json, run, assert_one_line_error):
    """--tiers N runs only the first N tiers: deal 90 is decided in tier 2 (its 1-cell set has 6,813,131
    positions, more than tier 1's 2,000,000), so with one tier it stays undecided with what tier 1 proved
    (0 cells are too few; a win with 2)."""
    obj = run_json("survey", "90", "--difficulty", "--tiers", "1")
    assert obj["undecided"] == [{"deal": 90, "low": 1, "win_with": 2}] and len(obj["tiers"]) == 1
    assert limits(obj) == [{"solver": 100_000, "enumeration": 2_000_000, "disk_buffer": None,
                            "up_to_column_order": False}]
    assert (obj["tiers"][0]["jobs_used"], obj["tiers"][0]["disk_buffer_used"]) == (1, None)   # ran, in memory
    obj = run_json("survey", "2", "--difficulty")      # decided in tier 1: quick
    assert limits(obj)[2:] == [
        {"solver": 20_000_000, "enumeration": 80_000_000, "disk_buffer": None, "up_to_column_order": False},
        {"solver": None, "enumeration": 400_000_000, "disk_buffer": None, "up_to_column_order": True},  # no solver
        {"solver": 100_000_000, "enumeration": 4_000_000_000, "disk_buffer": 4 << 30,
         "up_to_column_order": True}]  # disk, after a bigger solver
    assert [t["solver_portfolio"] for t in obj["tiers"]] == ["built-in"] * 3 + [None, "deep"]
    assert [t["automatic_moves"] for t in obj["tiers"]] == ["none"] * 4 + ["safe"]
    assert [(t["jobs_used"], t["disk_buffer_used"], t["memory_budget"]) for t in obj["tiers"][1:]] == \
        [(None, None, None)] * 4        # tiers 2..5 did not run
    assert len(run_json("survey", "2", "--difficulty", "--tiers", "4")["tiers"]) == 4
    text = run("survey", "90", "--difficulty", "--tiers", "1")     # undecided: the words name the last tier's limits
    assert text.returncode == 0 and "1 undecided (a limit stopped a search: last tier 100,000 solver / 2,000,000 " \
                                    "enumeration positions)\n" in text.stdout, text.stdout
    assert "--tiers" in assert_one_line_error(run("survey", "9", "--difficulty", "--tiers", str(len(difficulty.TIERS) + 1)))
    assert "goes with --difficulty" in assert_one_line_error(run("survey", "9", "--tiers", "1"))


# --- the disk tier (tier 5) and the memory budget ---------------------------------------------------------

# Deal 43 needs 2 cells; its 1-cell set has 143,047 positions. With these tiers the first (in memory) stops
# that enumeration at 100,000 and the second enumerates it on disk (a 64 KiB buffer: runs merged every layer).
SMALL_TIERS = ((100_000, 100_000), (100_000, 1_000_000, 1 << 16))
DEAL43_1_CELL = 143_047


def test_the_disk_tier_decides_what_the_memory_tiers_left(tmp_path):
    """Tier 1 proves 0 cells too few and wins with 2, but the 1-cell enumeration passes its 100,000: deal 43
    stays undecided (1..2). The disk tier (no solver: its limit is not above) enumerates the whole 1-cell
    set, 143,047 positions without a win: k = 2, decided in tier 2. Its work folder beside the CSV is gone."""
    n = difficulty.refine(43, 0, tiers=SMALL_TIERS)
    assert (n.k, n.low, n.high, n.tier) == (None, 1, 2, 1)
    assert difficulty.disk_buffer(0, SMALL_TIERS) is None and difficulty.disk_buffer(1, SMALL_TIERS) == 1 << 16
    out = tmp_path / "d.csv"
    needs, counts, _s, _r = difficulty.survey(43, 43, tiers=SMALL_TIERS, journal=str(out))
    (m,) = needs
    assert (m.k, m.low, m.high, m.tier) == (2, 2, 2, 2) and counts["medium"] == 1
    assert m.states == n.states + DEAL43_1_CELL
    assert out.read_text().splitlines()[1].startswith(f"43,2,medium,2,2,{m.states},2,")
    assert [n for n in os.listdir(tmp_path / "d.csv.work") if not n.startswith("journal.")] == []
    # without a journal the disk tier's folder is a temporary one: the same answer
    assert difficulty.survey(43, 43, tiers=SMALL_TIERS)[0] == [m]
    # the same in memory only: undecided (the disk tier is what decides it)
    needs, counts, _s, _r = difficulty.survey(43, 43, tiers=SMALL_TIERS[:1])
    assert needs[0].k is None and counts["undecided"] == 1


_KILL_IN_LAYER_20 = """
import os, signal, sys
from solver import difficulty, disksearch
real = disksearch.DiskSearch.stats
def stats(self):
    st = real(self)
    if st.layer >= 20:                  # layers 0..19 at least finished and checkpointed: killed like kill -9
        print(f"layer {st.layer} {st.states}", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    return st
disksearch.DiskSearch.stats = stats
difficulty.survey(43, 43, tiers=((100_000, 100_000), (100_000, 1_000_000, 1 << 16)), journal=sys.argv[1])
"""


@pytest.mark.e2e
def test_a_killed_disk_tier_goes_on_in_its_folder(tmp_path, capfd):
    """A survey killed (SIGKILL) inside the disk tier's enumeration leaves the journal's tier-1 row and the
    work folder d.csv.work/43-1 with its last checkpoint; the same survey again resumes that enumeration
    from its last finished layer (saying so on stderr) and decides k = 2 with the whole 1-cell set, then
    removes the folder."""
    out = tmp_path / "d.csv"
    p = subprocess.run([sys.executable, "-c", _KILL_IN_LAYER_20, str(out)], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == -9, p.stderr
    killed_in = int(p.stderr.split("layer ")[1].split()[0])
    wd = tmp_path / "d.csv.work" / "43-1"
    assert (wd / "search.state").is_file()
    row = read_journal(str(out))[43]
    assert (row.k, row.low, row.high, row.tier) == (None, 1, 2, 1)
    tier1_states = row.states
    needs, _c, _s, resumed = difficulty.survey(43, 43, tiers=SMALL_TIERS, journal=str(out))
    assert resumed == 1 and (needs[0].k, needs[0].tier) == (2, 2)
    assert needs[0].states == tier1_states + DEAL43_1_CELL       # the same set as in one go
    err = capfd.readouterr().err
    assert "resuming deal 43 with 1 cell from layer " in err
    layer = int(err.split("from layer ")[1].split(",")[0])
    assert 20 <= layer <= killed_in < 61        # 61 layers in all (the whole set)
    assert not wd.exists() and [n for n in os.listdir(tmp_path / "d.csv.work") if not n.startswith("journal.")] == []


def _late_position(deal, cells, moves_left):
    """The position ``moves_left`` moves before the end of the solver's winning line with ``cells`` cells."""
    from solver.lines import apply_move
    from solver.solve import solve
    rules = Rules(cells=cells)
    pos = deals.ms_deal(deal)
    r = solve(pos, rules)
    assert r.verdict == "winnable"
    for mv in r.moves[:len(r.moves) - moves_left]:
        pos = apply_move(pos, mv, rules)
    return pos


def test_a_win_found_on_disk_counts_only_replayed(tmp_path, monkeypatch):
    """Six moves before the end of deal 43's 2-cell line, the disk search with 1 cell finds a won position
    after 59,778 positions: "winnable" once its line, read back through the layer files, replays under the
    spec rules; its work folder is removed. The same search whose line is cut short (its last position
    dropped) is "unknown", never a win."""
    from solver.disksearch import DiskResult
    pos = _late_position(43, 2, 6)
    wd = tmp_path / "w"
    assert difficulty._enumerate_on_disk(pos, 1, 1_000_000, 1 << 16, str(wd)) == ("winnable", 59_778)
    assert not wd.exists()
    real = DiskResult.winning_line
    monkeypatch.setattr(DiskResult, "winning_line", lambda self: real(self)[:-1])
    assert difficulty._enumerate_on_disk(pos, 1, 1_000_000, 1 << 16, str(wd)) == ("unknown", 59_778)


def test_a_win_on_disk_deeper_than_the_kept_layers_counts(tmp_path, monkeypatch):
    """The last tier's case: a win up to column order deeper than the 32 layers the disk search keeps apart
    (helpers.disk's DEEP: 0 cells, 34 moves). Its line is read back through a second disk search (for the
    first position the layers kept, in a temporary folder beside the work folder), taken onto the real
    columns and replayed: "winnable" without the solver (which had failed on such deals); nothing is left
    in the survey's folder."""
    from solver import disksearch, solve
    from helpers.disk import DEEP

    def refuse(*args, **kwargs):
        raise AssertionError("the solver was called")
    monkeypatch.setattr(solve, "solve", refuse)
    made, init = [], disksearch.DiskSearch.__init__

    def spy(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append((self.dir, kwargs.get("target") is not None))
    monkeypatch.setattr(disksearch.DiskSearch, "__init__", spy)
    wd = tmp_path / difficulty.work_name(0, 0, True)
    assert difficulty._enumerate_on_disk(DEEP, 0, 1_000_000, 1 << 16, str(wd), canonical=True) == ("winnable", 198)
    assert made[0] == (str(wd), False) and len(made) == 2 and made[1][1]
    assert os.path.dirname(made[1][0]) == str(tmp_path)
    assert os.listdir(tmp_path) == []


def test_the_disk_tier_at_its_limit_is_unknown_and_leaves_no_files(tmp_path):
    """Deal 43's 1-cell set stopped at 100,000 positions on disk: unknown (the deal stays undecided), and the
    folder kept by the disk search at a limit is removed (an undecided deal's files are not kept)."""
    wd = tmp_path / "43-1"
    assert difficulty._enumerate_on_disk(deals.ms_deal(43), 1, 100_000, 1 << 16, str(wd)) == ("unknown", 100_000)
    assert not wd.exists()
    n = difficulty.refine(43, 1, 1, 2, 7, tiers=((100_000, 100_000), (100_000, 100_000, 1 << 16)),
                          work_root=str(tmp_path))
    assert (n.k, n.low, n.high, n.states, n.tier) == (None, 1, 2, 100_007, 2)
    assert os.listdir(tmp_path) == []


def test_the_memory_budget_follows_the_machine(tmp_path, monkeypatch):
    """The budget is the machine's available memory (MemAvailable) less 512 MiB. A tier-4 enumeration
    (400,000,000 positions at 42 bytes: 16.8 GB) runs one job on a 24 GB machine with 23 GB available (at 26
    bytes it ran two, and the kernel killed one at 16.2 GB), two with 34 GB; the disk tier four: its deep solver's
    100,000,000 positions at 60 bytes (6 GB) pass its enumeration's 4 GiB buffer and the 1 MiB floor of the set
    for positions past the key, which the 24-byte key leaves empty; a smaller buffer when the budget is tight."""
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       25165824 kB\nMemFree:        20000000 kB\nMemAvailable:   24117248 kB\n")
    assert difficulty.machine_memory(str(meminfo)) == 23 << 30
    assert difficulty.machine_memory(str(tmp_path / "none")) == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    budget = difficulty.memory_budget(23 << 30)
    assert budget == (23 << 30) - (1 << 29)
    assert difficulty.job_memory(3) == 400_000_000 * 42
    assert difficulty.jobs_for(3, 2, budget=budget) == 1
    assert difficulty.jobs_for(3, 2, budget=difficulty.memory_budget(34 << 30)) == 2
    assert difficulty.jobs_for(3, 8, budget=budget) == 1 and difficulty.jobs_for(0, 8, budget=budget) == 8
    assert difficulty.job_memory(4) == 6_000_000_000
    assert difficulty.jobs_for(4, 2, budget=budget) == 2 and difficulty.jobs_for(4, 8, budget=budget) == 4
    assert difficulty.buffer_for(4, 2, budget=budget) == 4 << 30           # the tier's own
    assert difficulty.buffer_for(4, 1, budget=3 << 30) == (3 << 30) - (1 << 20)
    assert difficulty.jobs_for(4, 2, budget=3 << 30) == 1 and difficulty.buffer_for(3, 1, budget=budget) is None
    # the survey reads the figure when a tier starts (injected here): the jobs it gives each tier (a stand-in
    # for the tier's work leaves both deals undecided)
    monkeypatch.setattr(difficulty, "machine_memory", lambda meminfo="": 34 << 30)
    tiers = ((10, 10), (10, 10), (10, 10), difficulty.TIERS[3])
    jobs = []
    monkeypatch.setattr(difficulty, "_run_tier", lambda tasks, jobs_, journal, done, *a, **k: (
        jobs.append(jobs_), done.update({t[0]: difficulty.Need(t[0], None, 0, None, 0, t[1] + 1) for t in tasks})))
    difficulty.survey(2, 3, jobs=2, tiers=tiers)
    assert jobs == [2, 2, 2, 2]
    jobs.clear()
    difficulty.survey(2, 3, jobs=2, tiers=tiers, budget=23 << 30)
    assert jobs == [2, 2, 2, 1]     # --memory 23G: tier 4 alone


# --- tiers 4 and 5: positions up to the order of the columns ----------------------------------------------

def _permuted(s, perm):
    """spec State ``s`` with its columns reordered: column i of the result is column perm[i] of ``s``."""
    return s._replace(cols=tuple(s.cols[p] for p in perm))


@pytest.mark.parametrize("foundation_return", [False, True])
def test_the_lemma_moves_commute_with_reordering_the_columns(foundation_return):
    """The lemma tiers 4 and 5 stand on (docs/TRUST.md, "Difficulty"): for every position and every order of
    the eight columns, spec.moves of the reordered position are the reordered moves of the position (as
    multisets), and won is the same. Checked on 400 positions of deal 64's 1-cell set (200 of them with an
    empty column) and deal 11982's start, each with 8 random orders (seeded), with 1 and 4 cells."""
    import random
    from collections import Counter
    from solver import packed, spec
    rng = random.Random(13)
    r = search.explore(deals.ms_deal(64), Rules(cells=1), stop_on_win=False)
    try:
        recs = r.records()
    finally:
        r.close()
    every = [spec.from_position(packed.unpack(x)) for x in recs]
    empty = [s for s in every if () in s.cols]                      # reordering empty columns is exercised
    assert len(every) == 19_350 and len(empty) > 1_000
    states = rng.sample(empty, 200) + rng.sample(every, 200) + [spec.ms_deal(11982)]
    for cells in (1, 4):
        rules = spec.Rules(cells=cells, foundation_return=foundation_return)
        for s in states:
            moved = spec.moves(rules, s)
            for _ in range(8):
                perm = rng.sample(range(8), 8)
                assert Counter(spec.moves(rules, _permuted(s, perm))) == Counter(_permuted(t, perm) for t in moved)
                assert spec.won(_permuted(s, perm)) == spec.won(s)


@pytest.mark.parametrize("deal,fixed,canonical", [(64, 19_350, 8_175), (200, 31_154, 12_522)])
def test_the_enumeration_up_to_column_order_is_the_spec_set_up_to_column_order(deal, fixed, canonical):
    """The C core's enumeration up to column order (tiers 4 and 5) holds exactly the fixed-column spec set
    taken up to column order (each position's columns as a multiset), with 1 cell: deal 64 19,350 -> 8,175
    positions, deal 200 31,154 -> 12,522, neither with a won position."""
    from solver import packed, spec
    from solver.lines import column_blind
    sets = []
    for canon in (False, True):
        r = search.explore(deals.ms_deal(deal), Rules(cells=1, canonical=canon), stop_on_win=False)
        try:
            assert r.complete and not r.won
            sets.append((r.states, {column_blind(spec.from_position(packed.unpack(x))) for x in r.records()}))
        finally:
            r.close()
    (n_fixed, blind_fixed), (n_canon, blind_canon) = sets
    assert (n_fixed, n_canon) == (fixed, canonical)
    assert len(blind_canon) == canonical and blind_canon == blind_fixed


def test_tier_4_decides_what_fixed_columns_left():
    """Deal 5752 with 0 cells: its fixed-column set passes 1,000,000 positions (in the survey it passed tier
    3's 80,000,000), up to column order it is 503,119 positions, complete, none won: 0 cells are too few,
    and with the replayed 1-cell win k = 1. The same tier with fixed columns leaves it undecided."""
    fixed = ((10, 10), (10, 1_000_000))
    canon = ((10, 10), difficulty.Tier(10, 1_000_000, canonical=True))
    assert difficulty.tier_of(1, canon).canonical and not difficulty.tier_of(1, fixed).canonical
    n = difficulty.refine(5752, 1, 0, 1, 5, tiers=fixed)
    assert (n.k, n.low, n.high, n.states, n.tier) == (None, 0, 1, 1_000_005, 2)
    n = difficulty.refine(5752, 1, 0, 1, 5, tiers=canon)
    assert (n.k, n.low, n.high, n.states, n.tier) == (1, 1, 1, 503_124, 2)
    assert [difficulty.tier_of(t).canonical for t in range(len(difficulty.TIERS))] == [False] * 3 + [True] * 2


def test_a_win_up_to_column_order_is_replayed_on_the_real_columns(tmp_path):
    """A win found up to column order counts once its line, rebuilt on the real columns, replays under the
    spec rules: deal 2 with 1 cell in memory (a win after 4,309 positions); on disk, a nearly won position
    whose stored line has its columns in another order (the line is taken back onto the real columns). A
    stored line with a step left out, or from another start, gives no line."""
    from solver import disksearch, spec
    from solver.lines import column_blind, real_columns
    from solver.solve import judge
    assert difficulty._enumerate(deals.ms_deal(2), 1, 100_000, canonical=True) == ("winnable", 4_309)
    pos = ((),) * 6 + ((44, 49), (45, 48)), (), (11, 11, 13, 13)
    rules = Rules(cells=4, canonical=True)
    r = disksearch.explore_disk(pos, rules, 1 << 16, tmp=str(tmp_path))
    try:
        stored = [spec.from_position(p) for p in r.winning_line()]
        verdict, line = judge(pos, r, rules)
        assert verdict == "winnable" and line[0] == spec.from_position(pos) and spec.won(line[-1])
        assert [column_blind(s) for s in stored] == [column_blind(t) for t in line]
        assert stored[0] != line[0] and sum(s != t for s, t in zip(stored, line)) == 4     # 4 of 6 reordered
        assert real_columns(spec.STANDARD, spec.from_position(pos), stored[:2] + stored[3:]) == []     # a step left out
        assert real_columns(spec.STANDARD, spec.ms_deal(1), stored) == []       # another start
    finally:
        r.close()
    assert difficulty._enumerate_on_disk(pos, 4, 1_000_000, 1 << 16, str(tmp_path / "w"), canonical=True)[0] \
        == "winnable"


def test_the_json_says_the_jobs_a_tier_used(run_json):
    """--jobs 2 with a budget of 100 MiB: a tier-1 process counts 2,000,000 positions at 42 bytes (84 MB), so
    tier 1 runs one process; the --json says the 2 asked for and, per tier, the 1 used and the budget."""
    obj = run_json("survey", "1-2", "--difficulty", "--jobs", "2", "--memory", "100M", "--tiers", "2")
    assert obj["jobs"] == 2 and obj["undecided"] == []
    assert [(t["jobs_used"], t["disk_buffer_used"], t["memory_budget"]) for t in obj["tiers"]] == \
        [(1, None, 100 << 20), (None, None, None)]
    assert difficulty.jobs_for(0, 2, budget=100 << 20) == 1 and difficulty.jobs_for(0, 2, budget=170 << 20) == 2


def test_a_smaller_disk_buffer_is_said_and_reported(monkeypatch, capsys):
    """Deal 43 with a disk tier of 1 MiB and --memory 64K: the tier runs with the smallest buffer, 64 KiB (the
    same answer, k = 2: the whole 1-cell set on disk), says so in one line on stderr, and the --json says the buffer used beside the tier's own."""
    from solver import cli
    monkeypatch.setattr(difficulty, "TIERS", ((100_000, 100_000), (100_000, 1_000_000, 1 << 20)))
    assert cli.main(["survey", "43", "--difficulty", "--memory", "64K", "--json", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert err == ("tier 1: one process may take 5.7 MiB, above the memory budget 64 KiB: it runs anyway (an "
                   "enumeration in memory stops at its limit of positions, not at the budget)\n"
                   "tier 2: disk buffer 64 KiB instead of 1 MiB (memory budget 64 KiB): slower, same answer\n")
    obj = json.loads(out)
    assert obj["cells_needed"] == {"43": 2}
    assert obj["tiers"][1] == {"solver": None, "solver_portfolio": None, "enumeration": 1_000_000,
                               "automatic_moves": "none", "disk_buffer": 1 << 20,
                               "up_to_column_order": False, "jobs_used": 1,
                               "disk_buffer_used": 1 << 16, "memory_budget": 1 << 16}
    # 6 MiB: tier 1's process (its solver's 100,000 positions at 60 bytes, 5.7 MiB) and tier 2's buffer fit
    assert cli.main(["survey", "43", "--difficulty", "--memory", "6M", "--json", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and json.loads(out)["tiers"][1]["disk_buffer_used"] == 1 << 20      # the tier's own


def test_the_smaller_buffer_words():
    """The line for the real tier 5 (4 GiB) under a 1 GiB budget: the budget less the overflow set's floor (1 MiB),
    1023 MiB (it was 2/3 of the budget while the survey counted half the buffer for that set); and its deep
    solver's 6 GB (100,000,000 positions at 60 bytes) pass the budget: said too. The buffer is rounded down: 4 GiB less 1 MiB is 3.9 GiB, not "4 GiB instead of 4 GiB"."""
    run = difficulty.TierRun(5, 1, difficulty.buffer_for(4, 1, budget=1 << 30), 1 << 30)
    assert difficulty.smaller_buffer_words(run) == \
        ("tier 5: disk buffer 1023 MiB instead of 4 GiB (memory budget 1 GiB): slower, same answer; its solver may "
         "take 5.6 GiB, above the memory budget 1 GiB: it runs anyway (the solver stops at its limit of positions, "
         "not at the budget)")
    run = difficulty.TierRun(5, 1, difficulty.buffer_for(4, 1, budget=4 << 30), 4 << 30)
    assert difficulty.smaller_buffer_words(run).startswith(
        "tier 5: disk buffer 3.9 GiB instead of 4 GiB (memory budget 4 GiB): slower, same answer; its solver may "
        "take 5.6 GiB")
    assert difficulty.smaller_buffer_words(difficulty.TierRun(5, 1, 4 << 30, 6 << 30)) is None
    assert difficulty.binary_size((1 << 30) - 1, down=True) == "1023.9 MiB" and difficulty.binary_size(3 << 19) == "1.5 MiB"
    assert difficulty.smaller_buffer_words(difficulty.TierRun(5, 2, 4 << 30, 12 << 30)) is None
    assert difficulty.smaller_buffer_words(difficulty.TierRun(4, 2, None, 24 << 30)) is None      # in memory
    # a tier in memory whose one process passes the budget runs all the same, and says so
    assert difficulty.smaller_buffer_words(difficulty.TierRun(4, 1, None, 1 << 30)) == \
        ("tier 4: one process may take 15.6 GiB, above the memory budget 1 GiB: it runs anyway (an enumeration "
         "in memory stops at its limit of positions, not at the budget)")
    assert [difficulty.binary_size(n) for n in (1 << 16, 1 << 20, 3 << 29, 409_600, 1000)] == \
        ["64 KiB", "1 MiB", "1.5 GiB", "400 KiB", "1000 B"]


def test_the_canonical_disk_tier_has_its_own_work_folder(tmp_path):
    """A disk enumeration up to column order works in DEAL-K-canonical: a folder DEAL-K (a fixed-column
    search's, say from before tier 5 counted up to column order) is another search, left alone, and does not
    stop the survey. Deal 43 with 1 cell up to column order: 60,854 positions, none won: k = 2. A folder of
    the right name holding a search under other rules is refused in one line naming the survey's folder."""
    other = tmp_path / "43-1"
    other.mkdir()
    (other / "search.state").write_bytes(b"not ours")
    tiers = ((100_000, 100_000), difficulty.Tier(100_000, 1_000_000, 1 << 16, True))
    n = difficulty.refine(43, 1, 1, 2, 7, tiers=tiers, work_root=str(tmp_path))
    assert (n.k, n.low, n.high, n.states, n.tier) == (2, 2, 2, 7 + 60_854, 2)
    assert os.listdir(tmp_path) == ["43-1"] and (other / "search.state").read_bytes() == b"not ours"
    from solver import disksearch
    wd = tmp_path / difficulty.work_name(43, 1, True)
    r = disksearch.explore_disk(deals.ms_deal(43), Rules(cells=1), 1 << 16, max_states=1000, work_dir=str(wd))
    r.close()                                   # kept at its limit: a fixed-column search in the canonical name
    with pytest.raises(FreecellError) as e:
        difficulty.refine(43, 1, 1, 2, 7, tiers=tiers, work_root=str(tmp_path))
    assert str(e.value) == (f"the survey's work folder {wd}: it holds a search under other rules: there 1 free cell, "
                            "nothing back from the foundations; asked 1 free cell, nothing back from the foundations, "
                            "up to column order (remove that folder)")


def test_a_gap_of_two_enumerates_the_smallest_set_first():
    """After tier 1, a deal with low < high - 1 (e.g. #982: 1 <= k <= 3, its 2-cell set past every limit, its
    1-cell set 269,217 positions) has its smallest set enumerated first: deal 43 from 0 <= k <= 2 with a
    limit of 100,000 positions: its 0-cell set (7 positions) is complete without a win, so low = 1, then its
    1-cell set (143,047) passes the limit: 1 <= k <= 2, where the enumeration with high - 1 cells alone left
    low at 0. After the smallest set the ladder goes on as before: deal 8 from 0 <= k <= 3: 0 cells complete
    without a win, then wins with 2 and with 1 cells: k = 1."""
    tiers = ((100_000, 100_000), (100_000, 100_000))        # tier 2 runs no solver (its limit is not above)
    n = difficulty.refine(43, 1, low=0, high=2, tiers=tiers)
    assert (n.k, n.low, n.high, n.states) == (None, 1, 2, 7 + 100_000)
    n = difficulty.refine(43, 1, low=1, high=2, tiers=tiers)          # no gap: high - 1 only, as before
    assert (n.k, n.low, n.high, n.states) == (None, 1, 2, 100_000)
    n = difficulty.refine(8, 1, low=0, high=3, tiers=tiers)
    assert (n.k, n.low, n.high, n.states) == (1, 1, 1, 64_816)


def test_a_disk_tier_going_on_from_its_folder_skips_its_solver(tmp_path, monkeypatch):
    """The disk tier's work folder is made only after the tier's solver ran to its end without a win, and the
    solver is deterministic: the same tier in a later sitting goes on with the enumeration at once (tier 5's
    deep solver costs about 20 minutes a deal). Without a folder the solver runs first. Deal 43 with 1 cell up
    to column order: 60,854 positions, none won: k = 2, the same set when resumed."""
    calls = []
    monkeypatch.setattr(difficulty, "_solver", lambda pos, k, limit, deep=False: calls.append(k) or ("unknown", 0))
    tiers = ((100_000, 100_000), difficulty.Tier(1_000_000, 1_000_000, 1 << 16, True))
    assert difficulty.runs_solver(1, tiers) and not difficulty.resumes_on_disk(43, 1, 1, tiers, str(tmp_path))
    empty = tmp_path / difficulty.work_name(43, 1, True)
    empty.mkdir()                               # no checkpoint in it: the solver runs
    assert not difficulty.resumes_on_disk(43, 1, 1, tiers, str(tmp_path))
    empty.rmdir()
    n = difficulty.refine(43, 1, 1, 2, 7, tiers=tiers, work_root=str(tmp_path))
    assert calls == [1] and (n.k, n.low, n.high, n.states) == (2, 2, 2, 7 + 60_854)
    from solver import disksearch
    wd = tmp_path / difficulty.work_name(43, 1, True)
    r = disksearch.explore_disk(deals.ms_deal(43), Rules(cells=1, canonical=True), 1 << 16, max_states=1000,
                                work_dir=str(wd))
    r.close()                                   # kept at its limit, as a killed tier leaves it
    assert (wd / "search.state").is_file() and difficulty.resumes_on_disk(43, 1, 1, tiers, str(tmp_path))
    assert not difficulty.resumes_on_disk(43, 1, 0, tiers, str(tmp_path))       # tier 0 is in memory
    assert not difficulty.resumes_on_disk(43, 1, 1, tiers, None)
    calls.clear()
    n = difficulty.refine(43, 1, 1, 2, 7, tiers=tiers, work_root=str(tmp_path))
    assert calls == [] and (n.k, n.low, n.high, n.states) == (2, 2, 2, 7 + 60_854)
    assert not wd.exists()


def test_a_canonical_win_in_memory_reports_the_solver_line(run_json):
    """explore --canonical in memory: the win's line is the solver's under the plain rules (143 moves for deal
    1), not the depth-first search's own (673 moves, and up to 100,000 on other deals: slow to take across
    in Python)."""
    obj = run_json("explore", "--deal", "1", "--canonical")
    assert (obj["verdict"], obj["states"], obj["line_length"]) == ("winnable", 15_329, 143)


def test_the_docs_run_agrees_with_its_summary_and_the_readme():
    """docs/difficulty-1-32000.csv (the survey's journal for deals 1..32000) is what docs/DIFFICULTY.md's table, its
    "k per deal" line and docs/difficulty-1-32000.json say: the counts per class, k per deal and the deals
    still undecided with their bounds (a fold that updates one and not the others fails here)."""
    root = str(ROOT)
    needs, dropped = difficulty.read_csv(os.path.join(root, "docs", "difficulty-1-32000.csv"))
    assert dropped == set()
    assert sorted(needs) == list(range(1, 32001))
    counts = difficulty.counts_of(needs.values())
    ks = {}
    for n in needs.values():
        key = "undecided" if n.k is None else str(n.k)
        ks[key] = ks.get(key, 0) + 1
    undecided = [{"deal": n.deal, "low": n.low, "win_with": n.high} for n in sorted(needs.values()) if n.k is None]
    with open(os.path.join(root, "docs", "difficulty-1-32000.json")) as f:
        summary = json.load(f)
    assert summary["counts"] == counts and summary["k_histogram"] == ks and summary["undecided"] == undecided
    assert summary["more_than_4"] == [n.deal for n in sorted(needs.values()) if n.k is not None and n.k > 4]
    with open(os.path.join(root, "docs", "DIFFICULTY.md"), encoding="utf-8") as f:
        readme = f.read()
    pct = {c: f"{100 * counts[c] / 32000:.1f} %" for c in ("easy", "medium", "hard")}
    row = (f"| ours, each k proven both ways | **{counts['easy']:,}** ({pct['easy']}) | **{counts['medium']:,}** "
           f"({pct['medium']}) | **{counts['hard']:,}** ({pct['hard']}) | **{counts['more']}** (#11982) | "
           f"**{counts['undecided']}** |")
    assert row in readme
    line = "k per deal: " + ", ".join(f"k = {k}: {ks[k]:,}" for k in sorted(k for k in ks if k != "undecided")) + \
        f", undecided: {ks.get('undecided', 0)}."
    assert line in readme


def test_tier_5_enumerates_with_safe_automatic_moves(tmp_path):
    """Tier 5's enumeration counts up to column order with seed 004's "safe" automatic moves, proved to lose no
    win (coq/FreeCell/Autoplay.v, unwinnable_of_safe_autoplay_fence_up_to_column_order: aces and twos, a card
    whose two other-colour foundations reach its rank - 1, or rank - 2 with the other suit of its colour at
    rank - 3; no foundation returns): deal 43's 1-cell set is 28,960 positions so (29,558 with horne's rule,
    60,854 up to column order alone), complete, none won: k = 2, the same answer; on disk the same count, in
    its own work folder DEAL-K-canonical-safe."""
    assert difficulty.tier_of(4).autoplay == "safe" and {difficulty.tier_of(t).autoplay for t in range(4)} == {"none"}
    for autoplay, states in (("safe", 28_960), ("horne", 29_558), ("none", 60_854)):
        n = difficulty.refine(43, 1, low=1, high=2, tiers=((100_000, 10), (10, 1_000_000, None, True, False, autoplay)))
        assert (n.k, n.states) == (2, states), autoplay
    disk = ((100_000, 10), (10, 1_000_000, 1 << 20, True, False, "safe"))
    assert difficulty.work_name(43, 1, True, "safe") == "43-1-canonical-safe"
    assert difficulty.work_name(43, 1, True) == "43-1-canonical"
    n = difficulty.refine(43, 1, low=1, high=2, tiers=disk, work_root=str(tmp_path))
    assert (n.k, n.states) == (2, 28_960) and os.listdir(tmp_path) == []     # the folder removed at the end


@pytest.mark.parametrize("autoplay", ["horne", "safe"])
def test_automatic_moves_keep_every_verdict(autoplay):
    """The C core's horne and safe automatic moves (up to column order) against the enumeration without them,
    deals 1..60 with 0 and 1 cells (stopping at a win): whenever both end (a win, or complete), one finds a
    win exactly when the other does, and a complete set with automatic moves is no bigger (a test of the C
    core's rules, which the Coq theorems do not see)."""
    seen = {"won": 0, "none": 0}
    for deal in range(1, 61):
        pos = deals.ms_deal(deal)
        for cells in (0, 1):
            a = search.explore(pos, Rules(cells=cells, canonical=True), max_states=200_000, stop_on_win=True)
            b = search.explore(pos, Rules(cells=cells, canonical=True, autoplay=autoplay), max_states=200_000,
                               stop_on_win=True)
            try:
                ends = [("won" if r.won else "none" if r.complete else None) for r in (a, b)]
                if None not in ends:
                    assert ends[0] == ends[1], (deal, cells, ends)
                    if ends[0] == "none":
                        assert b.states <= a.states
                    seen[ends[0]] += 1
            finally:
                a.close()
                b.close()
    assert seen == {"won": 12, "none": 104}     # and 4 cases where neither ended within 200,000


def _stopped_at(deal, k_stop, real):
    """An _enumerate that stops (KeyboardInterrupt, as Ctrl-C) when asked for deal ``deal`` with k_stop cells."""
    start = deals.ms_deal(deal)

    def enumerate_(pos, k, limit, canonical=False, autoplay="none"):
        if k == k_stop and pos == start:
            raise KeyboardInterrupt
        return real(pos, k, limit, canonical, autoplay)
    return enumerate_


@pytest.mark.parametrize("jobs", [1, 2])
def test_bounds_proven_in_a_tier_stopped_later_stay_in_the_journal(tmp_path, monkeypatch, jobs):
    """Deal 43 from 0 <= k <= 2 (tier 1's row) in a tier with no solver: its 0-cell set (7 positions) is complete
    without a win, so low = 1; then its 1-cell enumeration is stopped. The journal keeps 1 <= k <= 2 in a row
    marked as tier 1 (the tier not done), and the next sitting goes on from there: the 1-cell set passes
    the limit, 1 <= k <= 2 after tier 2, the 7 positions counted once. Before, the stopped sitting left the
    row at low = 0 and the 0-cell set was enumerated again. With 2 jobs the row comes from a forked worker,
    beside deal 44 (from 0 <= k <= 2: 70 positions with 0 cells, 1,587 with 1, none won: k = 2 after the next
    sitting whether or not the stopped one got that far)."""
    out = tmp_path / "d.csv"
    out.write_text(difficulty.csv_text([difficulty.Need(43, None, 0, 2, 5, 1), difficulty.Need(44, None, 0, 2, 5, 1)]))
    tiers = ((100_000, 100_000), (100_000, 100_000))
    monkeypatch.setattr(difficulty, "_enumerate", _stopped_at(43, 1, difficulty._enumerate))
    with pytest.raises((KeyboardInterrupt, WorkerLost)):
        difficulty.survey(43, 44, jobs=jobs, tiers=tiers, journal=str(out))
    assert read_journal(str(out))[43] == difficulty.Need(43, None, 1, 2, 5 + 7, 1)
    monkeypatch.undo()
    needs, _c, _s, _r = difficulty.survey(43, 44, jobs=jobs, tiers=tiers, journal=str(out))
    assert needs == [difficulty.Need(43, None, 1, 2, 12 + 100_000, 2), difficulty.Need(44, 2, 2, 2, 5 + 70 + 1_587, 2)]
    assert [",".join(r.split(",")[:7]) for r in out.read_text().splitlines()[1:]] == \
        [f"43,,undecided,1,2,{12 + 100_000},2", "44,2,medium,2,2,1662,2"]


def test_an_edited_or_duplicate_row_is_redone_and_every_deal_counts_once(run, run_json, tmp_path):
    """Deal 450 (k = 1) with its k changed to 0 by hand, in a CSV taken in without its journal, was kept and
    reported as proven; an appended duplicate row won (easy 423 -> 422, hard 434 -> 435). Now the edited row
    fails its digest and the deal is done again; a deal with two different rows is done again; an exact copy
    of a row counts once."""
    out = tmp_path / "d.csv"
    docs, _d = difficulty.read_csv(os.path.join(ROOT, "docs", "difficulty-1-32000.csv"))
    rows = {d: docs[d] for d in (450, 451, 452)}
    assert [(n.k, n.states) for n in rows.values()] == [(1, 326), (3, 32944), (2, 10049)]
    text = difficulty.csv_text(rows.values())
    text = text.replace("450,1,easy,1,1,326,1,", "450,0,easy,0,0,326,1,")      # the edit by hand
    text += difficulty.row_text(rows[452])                                        # an exact copy
    text += "\n" + difficulty.row_text(difficulty.Need(451, 4, 4, 4, 9, 1)).replace(   # another row for 451
        difficulty.row_digest(difficulty.Need(451, 4, 4, 4, 9, 1)), difficulty.row_digest(rows[451])) + "\n"
    out.write_text(text)
    p = run("survey", "450-452", "--difficulty", "--tiers", "1", "--out", str(out), "--json")
    assert p.returncode == 0 and p.stderr == f"{out}: 2 deals with a row that does not match its digest, or two " \
                                             "different rows: done again\n", p.stderr
    obj = json.loads(p.stdout)
    assert obj["resumed"] == 1                              # 452 only: 450 and 451 done again
    assert obj["cells_needed"] == {"450": 1, "451": 3, "452": 2}
    assert obj["counts"] == {"easy": 1, "medium": 1, "hard": 1, "more": 0, "undecided": 0}
    got, dropped = difficulty.read_csv(str(out))
    assert dropped == set() and got[452] == rows[452] and [got[d].k for d in (450, 451)] == [1, 3]
    # Once the journal holds the deals, an edit of the exported CSV changes nothing: the journal is the source
    out.write_text(out.read_text().replace("\n450,1,easy,1,1,", "\n450,0,easy,0,0,"))
    obj = run_json("survey", "450-452", "--difficulty", "--tiers", "1", "--out", str(out))
    assert obj["resumed"] == 3 and obj["cells_needed"]["450"] == 1
    assert difficulty.read_csv(str(out))[0][450].k == 1


def test_no_limit_is_named_when_nothing_is_undecided(run):
    p = run("survey", "2", "--difficulty", "--tiers", "1")
    assert p.returncode == 0 and "0 undecided\n" in p.stdout and "a limit stopped" not in p.stdout, p.stdout
    p = run("survey", "2", "--difficulty", "--max-states", "10")
    assert "1 undecided (a limit stopped a search: last tier 10 solver / 10 enumeration positions)" in p.stdout


def test_a_forged_journal_record_of_another_shape_is_left_out(tmp_path):
    """Records written by hand with their digests recomputed but holding no row (a key missing, k not a
    number, k lower than the bounds say, a class that is not the row's): each deal is left out (done again),
    never a traceback."""
    from solver.journal import digest
    csv_path = str(tmp_path / "d.csv")
    good = difficulty.Need(2, 1, 1, 1, 322, 1)
    forged = [(3, {"k": 2}, "medium"), (4, {"k": "x", "low": 2, "high": 2, "states": 5, "tier": 1}, "medium"),
              (5, {"k": 0, "low": 1, "high": 1, "states": 5, "tier": 1}, "easy"),
              (6, {"k": 1, "low": 1, "high": 1, "states": 5, "tier": 1}, "hard")]
    with open_journal(difficulty.work_root_of(csv_path), "difficulty survey") as j:
        difficulty._record(j, good)
        j.record_many(("deal", d, body, None, v) for d, body, v in forged)
        assert j.query("SELECT count(*) FROM records WHERE sha256 = ?", (digest("deal", 3, {"k": 2}, None, "medium"),)) \
            == [(1,)]
    assert read_journal(csv_path) == {2: good}
