"""`python -m solver survey` (solver/survey.py) and scripts/compare_fcsolve.py.

Known verdicts: every deal of 11980..11984 is winnable except 11982, unwinnable (seed 000). The survey's
lines pass the fast replay check; here they are checked once more with spec.moves itself.
"""
import csv
import importlib.util
import json
import os

import pytest

from solver import deals, lines, solve, survey
from solver.cliargs import one_line_errors
from solver.errors import FreecellError
from solver.report import survey_summary
from solver.rules import STANDARD

from helpers import ROOT, journal_records, one_line_error as assert_one_line_error, run

KNOWN = {11980: "winnable", 11981: "winnable", 11982: "unwinnable", 11983: "winnable", 11984: "winnable"}


def test_parse_range():
    assert survey.parse_range("1-32000") == (1, 32000)
    assert survey.parse_range("7") == (7, 7)
    for bad in ("", "a-b", "5-3", "0-4", "1-", "-3", "1-2-3", "1-99999999999", "1,000-2_000",  # digits only
                " 7 ", "1 - 5", "1-5\n"):                                                   # no spaces
        with pytest.raises(FreecellError) as ei:
            survey.parse_range(bad)
        assert "\n" not in str(ei.value) and str(ei.value).startswith("range must")


def test_known_verdicts_and_lines():
    s = survey.survey(11980, 11984)
    assert {r[0]: r[1] for r in s.rows} == KNOWN
    assert s.counts == {"winnable": 4, "unwinnable": 1, "unknown": 0}
    assert s.deals_with("unwinnable") == [11982]
    for deal, verdict, states, length, sec in s.rows:
        assert states > 0 and sec >= 0
        assert (length is None) == (verdict != "winnable")
    # the same lines, checked against spec.moves (strict)
    s2 = survey.survey(11980, 11984, strict=True)
    assert [r[:4] for r in s2.rows] == [r[:4] for r in s.rows]
    line = survey_summary(s, STANDARD)
    assert line.startswith("deals 11980-11984: 4 winnable, 1 unwinnable (11982), 0 unknown in ")
    assert "lines: median" in line


def test_jobs_give_the_same_rows():
    one = survey.survey(1, 24)
    two = survey.survey(1, 24, jobs=2)
    assert [r[:4] for r in one.rows] == [r[:4] for r in two.rows]
    assert [r[0] for r in two.rows] == list(range(1, 25))
    assert one.counts["winnable"] == 24


def test_lines_are_verified_and_short():
    s = survey.survey(1, 40)
    assert all(r[1] == "winnable" and 52 <= r[3] <= 200 for r in s.rows)
    r = solve.solve(deals.ms_deal(7), strict=False)
    lines.verify_spec(r.start, r.moves)


def test_unknown_under_a_small_limit():
    s = survey.survey(11981, 11983, max_states=50)
    assert [r[1] for r in s.rows] == ["unknown"] * 3
    assert all(r[3] is None for r in s.rows)


def test_cli_csv_and_summary(run, tmp_path):
    out = tmp_path / "sub" / "s.csv"
    p = run("survey", "11980-11984", "--out", str(out))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("deals 11980-11984: 4 winnable, 1 unwinnable (11982), 0 unknown in ")
    assert lines[1] == f"csv: {out}"
    with open(out, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["deal", "verdict", "searched_states", "length", "seconds"]
    assert [(int(r[0]), r[1]) for r in rows[1:]] == sorted(KNOWN.items())
    for r in rows[1:]:
        assert int(r[2]) > 0 and float(r[4]) >= 0
        assert (r[3] == "") == (r[1] != "winnable")
        if r[3]:
            assert 52 <= int(r[3]) <= 200
    row = {int(r[0]): r for r in rows[1:]}
    assert int(row[11982][2]) > 84767        # the solver's own search, then the whole enumeration


def test_cli_json_rules_and_errors(run):
    p = run("survey", "11982", "--cells", "5", "--json", "--jobs", "2")
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)
    assert obj["counts"] == {"winnable": 1, "unwinnable": 0, "unknown": 0}
    assert obj["rules"] == {"cells": 5, "foundation_return": False} and obj["jobs"] == 2
    p = run("survey", "11982", "--foundation-return")
    assert p.returncode == 0 and "(foundation returns allowed): 0 winnable, 1 unwinnable (11982)" in p.stdout
    for args in (["x-y"], ["1-2", "--jobs", "0"], ["1-2", "--cells", "9"], ["1-2", "--max-states", "0"]):
        p = run("survey", *args)
        assert p.returncode == 2 and p.stdout == "" and len(p.stderr.splitlines()) == 1, args
        assert p.stderr.startswith("error: ")


def _compare_module():
    spec_ = importlib.util.spec_from_file_location("compare_fcsolve", ROOT / "scripts" / "compare_fcsolve.py")
    mod = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(mod)
    return mod


def test_compare_without_fcsolve(monkeypatch, capsys):
    mod = _compare_module()
    monkeypatch.setattr(mod.shutil, "which", lambda name: None)
    assert mod.main(["1", "10"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Freecell Solver is not installed") and len(out.splitlines()) == 1


@pytest.mark.skipif(not __import__("shutil").which("freecell-solver-range-parallel-solve"),
                    reason="Freecell Solver (freecell-solver-bin) is not installed")
def test_compare_with_fcsolve(capsys):
    mod = _compare_module()
    assert mod.main(["11978", "11986", "--ours", "solver"]) == 0
    out = capsys.readouterr().out
    assert "8 solved, 1 unsolved" in out and "8 winnable, 1 unwinnable" in out
    assert "ratio (ours / Freecell Solver): " in out and "verdicts: all 9 deals agree" in out
    # the default: the streaming `certgen survey`, one JSON object
    assert mod.main(["1", "30", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["ours"]["command"] == "python -m certgen survey 1-30 --dir DIR --jobs 1"
    assert obj["ours"]["counts"] == obj["freecell_solver"]["counts"] == {"winnable": 30, "unwinnable": 0, "unknown": 0}
    assert obj["differ"] == [] and obj["ratio"] > 0
    # --states: deal 9 with 2 free cells, Freecell Solver checks 16,063 states, ours stores <= 20,000
    assert mod.main(["9", "9", "--states", "--cells", "2", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["both_won"] == 1 and obj["states_both"]["freecell_solver"] == 16063
    assert obj["states_both"]["ours"] <= 20_000


@pytest.mark.slow
def test_survey_1_32000():
    s = survey.survey(1, 32000, jobs=2)
    assert s.counts == {"winnable": 31999, "unwinnable": 1, "unknown": 0}
    assert s.deals_with("unwinnable") == [11982]
    assert max(s.lengths()) <= 250


def test_cli_out_errors_leave_nothing_behind(run, tmp_path):
    # --out DIR left DIR.tmp behind (the CSV was written to path + ".tmp", then renamed).
    folder = tmp_path / "adir"
    folder.mkdir()
    p = run("survey", "1-2", "--out", str(folder))
    assert p.returncode == 2 and p.stderr == f"error: cannot write {folder}: Is a directory\n"
    assert sorted(os.listdir(tmp_path)) == ["adir"] and os.listdir(folder) == []


def test_compare_bad_arguments_are_one_line(capsys, monkeypatch):
    mod = _compare_module()
    monkeypatch.setattr(mod.shutil, "which", lambda name: None)     # refused before anything runs
    for argv, words in ((["abc", "1"], "A must be a whole number from 1 to 8589934591, got 'abc'"),
                        (["5", "1"], "need 1 <= A <= B"),
                        (["1", "2", "--jobs", "0"], "--jobs must be a whole number from 1 to 256, got '0'"),
                        (["\uff15", "10"], "A must be a whole number from 1 to 8589934591, got '\uff15'"),  # int() read 5
                        (["1_0", "20"], "A must be a whole number written with digits only"),
                        (["+5", "10"], "A must be a whole number from 1 to 8589934591, got '+5'"),
                        (["1", "8589934592"], "B must be a whole number from 1 to 8589934591, got '8589934592'"),
                        (["1", "2", "--cells", "9"], "--cells must be a whole number from 0 to 8, got '9'"),
                        (["1", "2", "--max-states", "0"], "--max-states must be a whole number from 1 to")):
        try:
            code = one_line_errors(lambda: mod.main(argv))      # as the script runs it
        except SystemExit as e:
            code = e.code
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and err.startswith("error: ") and words in err, err


def test_a_range_too_large_to_hold_is_refused():
    assert survey.parse_range("1-10000000") == (1, 10_000_000)
    with pytest.raises(FreecellError, match="at most 10,000,000 deals in one survey"):
        survey.parse_range("1-2147483647")
    assert survey.parse_range("1-8589934591", max_range=None) == (1, 2 ** 33 - 1)
    for past in ("1-8589934592", "1-1234567890123", "1234567890123", "5-" + "9" * 100):   # digits, past the deals
        with pytest.raises(FreecellError) as ei:
            survey.parse_range(past, max_range=None)
        shown = past if len(past) <= 40 else past[:37] + "..."
        assert str(ei.value) == f"range must satisfy 1 <= A <= B <= 8589934591, got {shown!r}"


@pytest.mark.parametrize("text, words", [("9" * 100_000, "range must satisfy 1 <= A <= B"),
                                         ("1-" + "x" * 100_000, "range must be A-B with whole numbers")])
def test_a_huge_range_is_quoted_cut_short(text, words):
    """The error quotes a range of 100,000 characters cut to about 40 (as --jobs and the others are), not
    whole: one line of 100 kB."""
    with pytest.raises(FreecellError) as ei:
        survey.parse_range(text)
    assert str(ei.value).startswith(words) and len(str(ei.value)) < 250, len(str(ei.value))


def test_survey_and_solve_give_the_same_line(run, tmp_path):
    # issue 10, item 17: one line per deal, whichever command asks (they used to differ by the shortening:
    # deal 1 was 126 moves in the survey and 121 in solve). The default is the survey's line, without the
    # post-pass; solve --shorten 2 (asked for) gives a shorter one
    from certgen import survey as certified
    numbers = [1, 2, 3, 617, 1941]
    solved = {n: solve.solve(deals.ms_deal(n)) for n in numbers}
    assert solved[1].length == 143
    for n in numbers:
        assert survey.survey(n, n).rows[0][3] == solved[n].length, n
    rows = certified.run(1, 3, str(tmp_path / "s"), rows=True, chunk=3)
    assert rows["length_histogram"] == {str(L): sum(1 for n in (1, 2, 3) if solved[n].length == L)
                                        for L in sorted({solved[n].length for n in (1, 2, 3)})}
    p = run("solve", "--deal", "1")
    assert p.returncode == 0 and "a line of 143 single-card moves" in p.stdout
    p = run("solve", "--deal", "1", "--shorten", "2")
    assert p.returncode == 0 and "a line of 139 single-card moves" in p.stdout
    q = run("survey", "1", "--out", str(tmp_path / "one.csv"))
    assert q.returncode == 0
    assert (tmp_path / "one.csv").read_text().splitlines()[1].split(",")[:4] == ["1", "winnable", str(solved[1].states), "143"]


def test_a_killed_survey_goes_on_from_its_journal(tmp_path):
    """`survey --out F.csv` keeps its journal in F.csv.work: killed with SIGKILL mid-run and started again with
    the same command, it does only the deals the journal lacks and writes the CSV an uninterrupted run writes
    (the seconds aside); a second survey on the same file meanwhile is refused, naming the first's process."""
    import signal
    import subprocess
    import sys
    import time
    args = ["survey", "1-500", "--max-states", "20000"]
    whole, killed = tmp_path / "whole.csv", tmp_path / "killed.csv"
    cmd = [sys.executable, "-m", "solver", *args, "--no-progress"]
    subprocess.run(cmd + ["--out", str(whole)], check=True, cwd=ROOT, capture_output=True)
    p = subprocess.Popen(cmd + ["--out", str(killed)], cwd=ROOT, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and journal_records(str(killed) + ".work") < 20:
        time.sleep(0.01)
    assert p.poll() is None, "the survey ended before it could be stopped: use a bigger range"
    p.send_signal(signal.SIGSTOP)          # held mid-run (its lock too) while the second one tries
    second = subprocess.run(cmd + ["--out", str(killed)], cwd=ROOT, capture_output=True, text=True)
    assert second.returncode == 2 and second.stderr == f"error: {killed}.work is in use by another survey (process " \
                                                       f"{p.pid}): wait for it to end, or give another --out file\n"
    p.send_signal(signal.SIGKILL)
    p.wait()
    done = journal_records(str(killed) + ".work")
    assert 20 <= done < 500 and not killed.exists()
    subprocess.run(cmd + ["--out", str(killed)], check=True, cwd=ROOT, capture_output=True)

    def rows(path):
        with open(path, encoding="utf-8") as f:
            return [r[:4] for r in csv.reader(f)]
    assert rows(killed) == rows(whole) and len(rows(whole)) == 501
    # other settings on the same file: refused
    again = subprocess.run(cmd[:-1] + ["--out", str(killed)], cwd=ROOT, capture_output=True, text=True)
    assert again.returncode == 0
    other = subprocess.run([sys.executable, "-m", "solver", "survey", "1-500", "--out", str(killed)], cwd=ROOT,
                           capture_output=True, text=True)
    assert other.returncode == 2 and other.stderr == f"error: {killed}.work holds a survey with other settings " \
                                                     "(max_states): use the same command, or another --out\n"


def test_a_forged_record_of_another_shape_is_done_again(tmp_path):
    """A journal record rewritten by hand with its digest recomputed, holding no row (no states, a verdict
    the survey never gives): that deal is solved again, never a traceback."""
    import sqlite3
    from solver.journal import digest
    folder = str(tmp_path / "s.csv.work")
    first = survey.survey(1, 3, folder=folder)
    con = sqlite3.connect(os.path.join(folder, "journal.sqlite"))
    with con:
        con.execute("UPDATE records SET body = '{}', verdict = 'proven', sha256 = ? WHERE key = 2",
                    (digest("deal", 2, {}, None, "proven"),))
    con.close()
    again = survey.survey(1, 3, folder=folder)
    assert [r[:4] for r in again.rows] == [r[:4] for r in first.rows] and again.counts == {"winnable": 3,
                                                                                         "unwinnable": 0, "unknown": 0}


@pytest.mark.parametrize("text", ["1,000", "1_0", "1-2,000", "1_000-2000"])
def test_survey_ranges_are_plain_digits(text):
    with pytest.raises(FreecellError, match="digits only"):
        survey.parse_range(text)
    assert_one_line_error(run("survey", text))


def test_a_worker_that_cannot_start_the_solver_thread_solves_in_its_own(monkeypatch):
    # `ulimit -v 60000; solver survey 1-2000 --jobs 2`: the workers (forked with the parent's thread stacks
    # mapped) could not start search._interruptible's thread, and the survey ended in a RuntimeError traceback
    import threading
    real = threading.Thread.start

    def no_solver_thread(self):
        if self.name == "fc_solve":
            raise RuntimeError("can't start new thread")
        return real(self)
    monkeypatch.setattr(threading.Thread, "start", no_solver_thread)
    s = survey.survey(11980, 11984, jobs=2)
    assert {r[0]: r[1] for r in s.rows} == KNOWN
