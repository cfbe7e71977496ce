"""The command line, run as a person would: `python -m solver ...` in a subprocess."""
import json
import os
import subprocess
import sys
import types

import pytest

from helpers import ROOT, loaded_after, one_line_error as assert_one_line_error, run_in

# Seed 003's numbered FreeCell deal 1, laid out in rows of eight.
SIGGY_N1_BOARD = """\
9C 5S AS KH JD TD 5H
QD 6S 5C JS 7C 2S 4D
6H KC JC 8S 2D 3D QC
3H 6C TH 2H 9S 7D 8C
7S TS 8D 4S JH 3S
AH 5D 3C 9H KD KS
2C AC TC QS 4C 8H
7H 6D AD 9D 4H QH
"""


# --- deal ---------------------------------------------------------------------------------------------

def test_deal_11982_prints_the_seed_layout(run, deal11982_board):
    p = run("deal", "11982")
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout == deal11982_board


def test_deal_json(run):
    p = run("deal", "1", "--json")
    assert p.returncode == 0
    obj = json.loads(p.stdout)
    assert obj["deal"] == 1 and obj["source"] == "ms:1"
    assert obj["columns"][0] == "JD KD 2S 4C 3S 6D 6S".split()
    assert obj["order"][:4] == ["JD", "2D", "9H", "JC"]
    assert obj["freecells"] == [] and obj["foundations"] == {"C": 0, "D": 0, "H": 0, "S": 0}


def test_deal_board_file_and_stdin(run, deal11982_board, tmp_path):
    f = tmp_path / "b.txt"
    f.write_text(deal11982_board.replace("T", "10"))
    assert run("deal", "--board", str(f)).stdout == deal11982_board
    assert run("deal", "--board", "-", stdin=deal11982_board).stdout == deal11982_board


def test_deal_full_position_round_trip(run, deal11982_board, tmp_path):
    text = deal11982_board.replace(" 4S 4C\n", "\n")
    text = "Foundations: H-0 C-0 D-0 S-0\nFreecells: 4C 4S\n" + text
    p = run("deal", "--board", "-", stdin=text)
    assert p.returncode == 0
    assert p.stdout.splitlines()[:2] == ["Foundations: H-0 C-0 D-0 S-0", "Freecells:  4C  4S"]
    assert run("deal", "--board", "-", stdin=p.stdout).stdout == p.stdout


def test_deal_code_numbered_1(run):
    p = run("deal", "--code", "SOL1-freecell-cells=4-N1")
    assert p.returncode == 0 and p.stdout == SIGGY_N1_BOARD


def test_deal_code_classic(run, deal11982_board):
    assert run("deal", "--code", "SOL1-freecell-cells=4-C11982").stdout == deal11982_board


@pytest.mark.parametrize("raw", ["0", "-1", "abc", "1.5", "8589934592", "99999999999999999999999", ""])
def test_deal_bad_numbers(run, assert_one_line_error, raw):
    assert_one_line_error(run("deal", raw),
                          f"deal must be a whole number from 1 to 8589934591, got {raw!r}")


def test_deal_0_exact_message(run):
    p = run("deal", "0")
    assert p.stderr == "error: deal must be a whole number from 1 to 8589934591, got '0'\n"


def test_deal_bad_boards(run, assert_one_line_error, deal11982_board, tmp_path):
    assert_one_line_error(run("deal", "--board", str(tmp_path / "missing.txt")),
                          f"board: cannot read {tmp_path / 'missing.txt'}: no such file")
    assert_one_line_error(run("deal", "--board", str(tmp_path)),
                          f"board: cannot read {tmp_path}: it is a directory")
    seven = "".join(deal11982_board.splitlines(True)[:7])
    assert_one_line_error(run("deal", "--board", "-", stdin=seven), "board: 7 columns, expected 8")
    dup = deal11982_board.replace("5H\n", "7H\n")
    assert_one_line_error(run("deal", "--board", "-", stdin=dup),
                          "board: card 7H appears twice: in column 6 and in column 8")
    assert_one_line_error(run("deal", "--board", "-", stdin=deal11982_board.replace("KC", "ZZ")),
                          "board: line 1: 'ZZ' is not a card (expected a rank A 2-9 T J Q K and a suit "
                          "C D H S, e.g. TS)")
    assert_one_line_error(run("deal", "--board", "-", stdin=""),
                          "board: empty input, expected 8 columns of cards")


def test_deal_bad_sources(run, assert_one_line_error):
    assert_one_line_error(run("deal"), "give exactly one of a deal number, --board FILE or --code CODE")
    assert_one_line_error(run("deal", "1", "--code", "SOL1-freecell-cells=4-N1"),
                          "give exactly one of a deal number, --board FILE or --code CODE")
    assert_one_line_error(run("deal", "--code", "SOL1-klondike-draw=3-N0"),
                          "deal code: a numbered deal must be a whole number from 1 to 1000000, got '0'")
    # other games' numbers are read as FreeCell's (a superscript digit was a traceback, an Arabic-Indic
    # digit deal 3, 4,301 digits Python's int limit: the hostile pass)
    for body, shown in (("³", "'³'"), ("٣", "'٣'"), ("1" * 4301, "'" + "1" * 37 + "...'")):
        assert_one_line_error(run("deal", "--code", f"SOL1-klondike--N{body}"),
                              f"deal code: a numbered deal must be a whole number from 1 to 1000000, got {shown}")
    assert_one_line_error(run("deal", "--code", "SOL1-freecell-cells=4-N0"),
                          "deal code: a numbered deal must be a whole number from 1 to 1000000, got '0'")


def test_usage_errors_are_one_line_exit_2(run, assert_one_line_error):
    for args in (["deal", "1", "--frobnicate"], ["nosuchcommand"], ["explore", "--deal"],
                 ["deal", "1", "2"]):
        p = run(*args)
        assert_one_line_error(p)
        assert "--help" in p.stderr


def test_no_command_shows_help(run):
    p = run()
    assert p.returncode == 2 and "usage:" in p.stderr and "Traceback" not in p.stderr


def test_help(run):
    for args in (["--help"], ["deal", "--help"], ["explore", "--help"]):
        p = run(*args)
        assert p.returncode == 0 and "usage:" in p.stdout


# --- explore: argument errors (before any search) ----------------------------------------------------

def test_explore_bad_inputs(run, assert_one_line_error, deal11982_board):
    assert_one_line_error(run("explore", "--deal", "0"),
                          "deal must be a whole number from 1 to 8589934591, got '0'")
    assert_one_line_error(run("explore", "--deal", "-7"),
                          "deal must be a whole number from 1 to 8589934591, got '-7'")
    assert_one_line_error(run("explore"), "give exactly one of a deal number, --board FILE or --code CODE")
    assert_one_line_error(run("explore", "--deal", "1", "--max-states", "0"),
                          "--max-states must be a whole number from 1 to 1099511627776, got '0'")
    assert_one_line_error(run("explore", "--deal", "1", "--max-states", "lots"),
                          "--max-states must be a whole number from 1 to 1099511627776, got 'lots'")
    assert_one_line_error(run("explore", "--deal", "1", "--cells", "9"),
                          "--cells must be a whole number from 0 to 8, got '9'")
    assert_one_line_error(run("explore", "--code", "SOL1-freecell-cells=5-C11982", "--cells", "4"),
                          "--cells 4 contradicts the deal code's cells=5")
    text = "Freecells: 4C 4S\n" + deal11982_board.replace(" 4S 4C\n", "\n")
    assert_one_line_error(run("explore", "--board", "-", "--cells", "1", stdin=text),
                          "the position has 2 cards in the free cells but the rules have 1 "
                          "(use --cells 2 or more)")


# --- explore with a stand-in search (the CLI's own logic, independent of the C core) -------------------

class FakeResult:
    def __init__(self, states, max_home, won, complete, seconds=0.25, line=None):
        self.states, self.max_home, self.won, self.complete, self.seconds = states, max_home, won, complete, seconds
        self.line = line

    def winning_line(self):
        return self.line


def _fake_search(monkeypatch, result, calls):
    from solver import search, solve    # noqa: F401 -- solve imported with the real search (it takes Stage from it)
    fake = types.ModuleType("solver.search")

    def explore(pos, rules, max_states=None, progress=False):
        calls.append((pos, rules.cells, rules.foundation_return, max_states, progress))
        return result

    fake.explore = explore
    fake.CELL, fake.HOME = search.CELL, search.HOME      # solver.lines imports them (when not loaded yet)
    import solver
    monkeypatch.setitem(sys.modules, "solver.search", fake)
    monkeypatch.setattr(solver, "search", fake, raising=False)


def _main(args, capsys):
    from solver.cli import main
    rc = main(args)
    out, err = capsys.readouterr()
    return rc, out, err


def test_explore_verdicts_and_json(monkeypatch, capsys):
    from solver.deals import ms_deal
    calls = []
    _fake_search(monkeypatch, FakeResult(84767, 2, False, True), calls)
    rc, out, err = _main(["explore", "--deal", "11982", "--json"], capsys)
    assert rc == 0 and err == ""
    obj = json.loads(out)
    assert obj == {"deal": 11982, "source": "ms:11982", "rules": {"cells": 4, "foundation_return": False},
                   "states": 84767, "max_home": 2, "verdict": "unwinnable", "complete": True,
                   "seconds": 0.25, "max_states": 20_000_000}
    assert calls == [(ms_deal(11982), 4, False, 20_000_000, False)]  # a default limit: never out of memory

    rc, out, err = _main(["explore", "--deal", "11982"], capsys)
    assert out == ("deal 11982: unwinnable \u2014 all 84,767 reachable positions enumerated, at most 2 cards "
                   "ever reach the foundations\n")
    assert calls[-1][4] is False          # stderr is not a terminal under pytest: no progress bar


def test_explore_winnable_and_unknown(monkeypatch, capsys):
    calls = []
    _fake_search(monkeypatch, FakeResult(1000, 7, False, False), calls)
    rc, out, _ = _main(["explore", "--deal", "1", "--max-states", "1000", "--json"], capsys)
    obj = json.loads(out)
    assert obj["verdict"] == "unknown" and obj["complete"] is False and obj["max_states"] == 1000
    assert calls[-1][3] == 1000
    rc, out, _ = _main(["explore", "--deal", "1", "--max-states", "1000"], capsys)
    assert out == ("deal 1: unknown \u2014 stopped after 1,000 positions (the --max-states 1,000 limit); "
                   "at most 7 cards reached the foundations so far\n")

    # A won position the core reports is not enough: its line must replay under the spec rules.
    from solver.deals import ms_deal
    start = ms_deal(11982)
    calls.clear()
    _fake_search(monkeypatch, FakeResult(5000, 52, True, False, line=[start, start]), calls)
    rc, out, err = _main(["explore", "--code", "SOL1-freecell-cells=5-C11982", "--json"], capsys)
    obj = json.loads(out)
    assert obj["verdict"] == "unknown" and obj["deal"] == 11982 and "line_length" not in obj
    assert err.startswith("note: a won position was reached, but no line to it replays")
    assert obj["source"] == "SOL1-freecell-cells=5-C11982" and obj["rules"]["cells"] == 5
    assert calls[-1][1] == 5
    _fake_search(monkeypatch, FakeResult(5000, 52, True, True, line=None), calls)
    rc, out, err = _main(["explore", "--deal", "11982", "--cells", "5", "--foundation-return"], capsys)
    assert out.startswith("deal 11982 (5 free cells, foundation returns allowed): unknown")
    assert calls[-1][1:3] == (5, True)


def test_explore_winnable_comes_with_a_replayed_line(run):
    p = run("explore", "--deal", "1", "--json")
    obj = json.loads(p.stdout)
    assert p.returncode == 0 and obj["verdict"] == "winnable" and obj["line_length"] > 52
    p = run("explore", "--deal", "1")
    assert "single-card moves to a won position replays under the spec rules" in p.stdout


def test_explore_progress_only_on_a_terminal(monkeypatch, capsys):
    calls = []
    _fake_search(monkeypatch, FakeResult(10, 0, False, True), calls)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    _main(["explore", "--deal", "11982"], capsys)
    _main(["explore", "--deal", "11982", "--json"], capsys)
    _main(["explore", "--deal", "11982", "--no-progress"], capsys)
    assert [c[4] for c in calls] == [True, False, False]


def test_explore_board_source(deal11982_board, monkeypatch, capsys, tmp_path):
    calls = []
    _fake_search(monkeypatch, FakeResult(10, 0, False, True), calls)
    f = tmp_path / "b.txt"
    f.write_text(deal11982_board)
    rc, out, _ = _main(["explore", "--board", str(f), "--json"], capsys)
    obj = json.loads(out)
    assert obj["deal"] is None and obj["source"] == f"board:{f}"
    rc, out, _ = _main(["explore", "--board", str(f)], capsys)
    assert out.startswith(f"board {f}: unwinnable \u2014 all 10 reachable positions enumerated, at most 0 cards")


def test_explore_out_moved_to_certgen(run, assert_one_line_error, tmp_path):
    # certificates are certgen's: `explore --out` says where the command went, and writes nothing
    line = assert_one_line_error(run("explore", "--deal", "11982", "--out", str(tmp_path / "c.cert")))
    assert "python -m certgen build" in line and not (tmp_path / "c.cert").exists()
    line = assert_one_line_error(run("solve", "--deal", "1", "--lean"))
    assert "python -m certgen prove-win" in line


# --- explore with the real C core -----------------------------------------------------------------------

def test_explore_11982_json_real(run):
    p = run("explore", "--deal", "11982", "--json")
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)
    assert obj["states"] == 84767
    assert obj["max_home"] == 2
    assert obj["verdict"] == "unwinnable"
    assert obj["complete"] is True
    assert obj["deal"] == 11982 and obj["source"] == "ms:11982"
    assert obj["rules"] == {"cells": 4, "foundation_return": False}
    assert obj["seconds"] >= 0


def test_explore_11982_plain_real(run):
    p = run("explore", "--deal", "11982")
    assert p.returncode == 0, p.stderr
    assert p.stdout == ("deal 11982: unwinnable \u2014 all 84,767 reachable positions enumerated, at most 2 "
                        "cards ever reach the foundations\n")
    assert p.stderr == ""


def test_explore_deal1_limited_is_unknown(run):
    p = run("explore", "--deal", "1", "--max-states", "1000", "--json")
    assert p.returncode == 0, p.stderr
    obj = json.loads(p.stdout)
    assert obj["verdict"] == "unknown" and obj["complete"] is False
    assert obj["states"] == 1000 and obj["max_states"] == 1000
    p = run("explore", "--deal", "1", "--max-states", "1000")
    assert p.stdout.startswith("deal 1: unknown \u2014 stopped after 1,000 positions")


def test_explore_deal1_winnable(run):
    obj = json.loads(run("explore", "--deal", "1", "--json").stdout)
    assert obj["verdict"] == "winnable" and obj["max_home"] == 52


def test_certgen_build_writes_a_certificate(run, tmp_path):
    out = tmp_path / "c.cert"
    p = run("build", "--deal", "11982", "--out", str(out), module="certgen")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert p.stdout.splitlines() == [
        "deal 11982: unwinnable \u2014 all 84,767 reachable positions enumerated, at most 2 cards ever reach "
        "the foundations", f"certificate: {out} (388,959 bytes)"]
    assert out.stat().st_size == 388_959


def test_explore_board_equals_deal(run, deal11982_board):
    p = run("explore", "--board", "-", "--json", stdin=deal11982_board)
    obj = json.loads(p.stdout)
    assert obj["states"] == 84767 and obj["deal"] is None and obj["source"] == "board:-"


# --- start-up cost ----------------------------------------------------------------------------------

def test_cli_imports_stay_cheap():
    """`python -m solver deal N` must not pay for json, tqdm, hashlib, cffi, the C core or certgen, nor for
    dataclasses or typing; `explore` pays for the C core and the spec (and solver.solve, for its verdict:
    solver.solve.judge), not for tqdm, json or dataclasses."""
    heavy = ["json", "tqdm", "hashlib", "cffi", "solver.search", "solver._fc", "certgen", "msgpack", "jinja2",
             "solver.siggysoft", "dataclasses", "typing"]
    assert loaded_after(["deal", "11982"], heavy) == []
    assert loaded_after(["explore", "--deal", "11982"], heavy) == ["solver.search", "solver._fc", "typing"]


# --- QA regressions --------------------------------------------------------------------------------------

def test_deal_takes_deal_flag_too(run, assert_one_line_error):
    # The README says every command takes --deal N; `deal --deal 5` was "unrecognized arguments".
    p = run("deal", "--deal", "5")
    assert p.returncode == 0 and p.stdout == run("deal", "5").stdout
    assert_one_line_error(run("deal", "5", "--deal", "6"), "give the deal number once: N or --deal N")


def test_one_free_cell_card_is_singular(run, assert_one_line_error, deal11982_board):
    text = "Freecells: 4C\n" + deal11982_board.replace(" 4C\n", "\n")
    assert_one_line_error(run("explore", "--board", "-", "--cells", "0", stdin=text),
                          "the position has 1 card in the free cells but the rules have 0 "
                          "(use --cells 1 or more)")


def test_out_of_memory_is_one_line(capsys):
    # The C core reports ENOMEM as MemoryError; it printed a traceback.
    from solver.cliargs import Parser, run as cli_run

    def boom(args):
        raise MemoryError("search stopped: out of memory")
    p = Parser(prog="x")
    p.set_defaults(func=boom)
    assert cli_run(p, []) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: out of memory") and "nothing is claimed" in err


def test_prove_win_write_error_names_the_path(run, assert_one_line_error, tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    p = run("prove-win", "--deal", "1", "--lean-dir", str(f / "sub"), module="certgen")
    assert p.stdout.startswith("1/3 solve")
    line = p.stderr.splitlines()[-1]
    assert p.returncode == 2 and line.startswith("error: ") and str(f / "sub") in line


def test_make_refuses_unknown_rules():
    # `make prove RULES=bogus` proved the standard rules without a word.
    import shutil
    if shutil.which("make") is None:
        pytest.skip("make is not on PATH")
    root = ROOT
    p = subprocess.run(["make", "-n", "prove", "RULES=bogus"], cwd=root, capture_output=True, text=True)
    assert p.returncode == 2 and "RULES may only be foundation-return" in p.stderr
    p = subprocess.run(["make", "-n", "prove", "RULES=foundation-return"], cwd=root, capture_output=True,
                       text=True)
    assert p.returncode == 0 and "--foundation-return" in p.stdout
    # COLUMN_ORDER=yes turned column order on (only 0 was off)
    for value, flag in (("1", True), ("0", False), ("", False)):
        p = subprocess.run(["make", "-n", "prove-coq", "DEAL=1", f"COLUMN_ORDER={value}"], cwd=root,
                           capture_output=True, text=True)
        assert p.returncode == 0 and ("--canonical" in p.stdout) == flag, p.stdout + p.stderr
    p = subprocess.run(["make", "-n", "prove-coq", "DEAL=1", "COLUMN_ORDER=yes"], cwd=root, capture_output=True,
                       text=True)
    assert p.returncode == 2 and "COLUMN_ORDER may only be 1 or 0, got 'yes'" in p.stderr


# --- rules: the option the user typed, and only counts a board can have (issue 10) -------------------------

def test_rules_names_free_cells_not_cells(run, assert_one_line_error):
    assert_one_line_error(run("rules", "--free-cells", "9", "--empty-columns", "1"),
                          "--free-cells must be a whole number from 0 to 8, got '9'")


def test_rules_to_empty_needs_an_empty_column(run, assert_one_line_error):
    assert "is impossible" in assert_one_line_error(run("rules", "--free-cells", "2", "--empty-columns", "0",
                                                        "--to-empty"))
    assert "--to-empty describes a destination" in assert_one_line_error(run("rules", "--to-empty"))


@pytest.mark.parametrize("args,most", [(("--empty-columns", "8", "--to-empty"), 7), (("--empty-columns", "8"), 6),
                                       (("--empty-columns", "7"), 6)])
def test_rules_refuses_more_empty_columns_than_a_board_can_have(run, assert_one_line_error, args, most):
    line = assert_one_line_error(run("rules", "--free-cells", "2", *args))
    assert "is impossible" in line and f"at most {most} columns are empty" in line


def test_rules_allows_seven_empty_columns_into_an_empty_one(run):
    p = run("rules", "--free-cells", "2", "--empty-columns", "7", "--to-empty")
    assert p.returncode == 0 and p.stdout == "2 empty free cells, 7 empty columns, moving into an empty column: " \
                                             "(2+1)\u00b72^6 = 192 cards\n", p.stderr


# --- an option given twice ------------------------------------------------------------------------------

@pytest.mark.parametrize("module, args, flag", [
    ("solver", ["explore", "--deal", "1", "--deal", "2"], "--deal"),
    ("solver", ["explore", "--deal=1", "--cells", "1", "--cells=2"], "--cells"),
    ("solver", ["survey", "1-2", "--jobs", "1", "--jobs", "2"], "--jobs"),
    ("solver", ["deal", "--code", "SOL1-freecell-cells=4-N1", "--code", "SOL1-freecell-cells=4-N2"], "--code"),
    ("certgen", ["build", "--deal", "1", "--out", "a.cert", "--out", "b.cert"], "--out"),
    ("certgen", ["check", "x.cert", "--reference", "--sample", "5", "--sample", "6"], "--sample"),
])
def test_an_option_given_twice_is_refused(run, assert_one_line_error, module, args, flag):
    # argparse kept the last of `--deal 1 --deal 2` without a word 
    prog = f"python -m {module} {args[0]}"
    assert_one_line_error(run(*args, module=module),
                          f"{flag} given twice: give it once (see '{prog} --help')")


@pytest.mark.parametrize("module, args, unknown", [
    ("solver", ["survey", "1-2", "--d"], "--d"),
    ("solver", ["explore", "--de", "5", "--cells", "1"], "--de 5"),
    ("certgen", ["info", "x.cert", "--js"], "--js"),
])
def test_an_option_is_spelled_whole(run, assert_one_line_error, module, args, unknown):
    # `survey 1-2 --d` meant --difficulty, `--de 5` --deal 5 (argparse's
    # prefixes): a script's prefix would change meaning when an option is added
    assert_one_line_error(run(*args, module=module),
                          f"unrecognized arguments: {unknown} (see 'python -m {module} {args[0]} --help')")


def _subcommands(module):
    """(name, parser) of every subcommand of ``python -m module``."""
    import argparse
    import importlib
    top = importlib.import_module(f"{module}.cli").build_parser()
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices.items())


@pytest.mark.parametrize("module", ["solver", "certgen"])
def test_an_unrecognised_argument_names_the_subcommands_help(module, capsys):
    # `explore --deal 1 --bogus` said "(see 'python -m solver --help')": the top level's help, which does
    # not list explore's options (certgen build's missing --out already named `certgen build --help`)
    import importlib
    main = importlib.import_module(f"{module}.cli").main
    commands = _subcommands(module)
    assert len(commands) >= 6
    for name, parser in commands:
        argv = [name]
        for a in parser._actions:       # the required arguments, so that --bogus is what is refused
            if a.required:
                argv += ([] if not a.option_strings else [a.option_strings[0]]) + ["1-2"]
        with pytest.raises(SystemExit) as exc:
            main(argv + ["--bogus"])
        out, err = capsys.readouterr()
        assert exc.value.code == 2 and out == ""
        assert err == f"error: unrecognized arguments: --bogus (see 'python -m {module} {name} --help')\n", argv


@pytest.mark.parametrize("module, args, prog", [
    ("solver", ["explore", "--deal", "1", "--bogus"], "python -m solver explore"),
    ("certgen", ["build", "--deal", "1", "--out", "x.cert", "--bogus"], "python -m certgen build"),
    ("solver", ["--bogus", "explore", "--deal", "1"], "python -m solver"),     # before the command: the top level's
])
def test_an_unrecognised_argument_end_to_end(run, assert_one_line_error, module, args, prog):
    # exit 2, one line, no traceback
    assert_one_line_error(run(*args, module=module), f"unrecognized arguments: --bogus (see '{prog} --help')")


def test_options_meant_to_repeat_still_do(run, tmp_path):
    # --certs is action="append"; a flag without a value changes nothing when repeated
    p = run("audit", "--certs", str(tmp_path), "--certs", str(tmp_path / "missing"), module="certgen")
    assert p.stderr.splitlines()[-1] == f"error: --certs {tmp_path / 'missing'}: no such directory"
    p = run("deal", "1", "--json", "--json")
    assert p.returncode == 0 and json.loads(p.stdout)["deal"] == 1


def test_solver_out_empty_path(tmp_path):
    assert assert_one_line_error(run_in(tmp_path, "survey", "1-2", "--out", "", module="solver")) == \
        "error: --out: empty path"


def test_a_lone_reachable_position_is_said_in_the_singular(run):
    p = run("explore", "--deal", "1", "--cells", "0", "--no-progress")
    assert (p.returncode, p.stdout) == (0, "deal 1 (0 free cells): unwinnable \u2014 the only reachable position "
                                           "enumerated, at most 0 cards ever reach the foundations\n"), p.stderr
    p = run("solve", "--deal", "1", "--cells", "0")
    assert p.returncode == 0 and "unwinnable \u2014 the only reachable position enumerated under the spec rules" in p.stdout


def test_an_error_shows_a_control_character_of_a_path_as_its_escape(run, tmp_path):
    # a terminal's escape sequence in a file name is not sent to the terminal: the line says \x1b
    bad = tmp_path / "\x1b[31mred\x07"
    bad.write_text("a file, not a folder\n")
    for p in (run("explore", "--board", str(tmp_path / "\x1b[2Jmissing")), run("explore", "--deal", "\x1b[2J")):
        line = assert_one_line_error(p)
        assert "\x1b" not in line and "\x07" not in line and "\\x1b" in line, line
    line = assert_one_line_error(run("spec-doc", "--out", str(bad / "x.md"), module="certgen"))
    assert "\\x1b[31mred\\x07/x.md" in line, line


def test_a_path_said_on_standard_output_shows_a_control_character_as_its_escape(run, tmp_path):
    p = run("survey", "1-3", "--out", str(tmp_path / "s\x1b[31m.csv"), "--no-progress")
    assert p.returncode == 0 and p.stdout.endswith("csv: " + str(tmp_path) + "/s\\x1b[31m.csv\n"), p.stdout
    p = run("survey", "1-3", "--dir", str(tmp_path / "d\x1b[31m"), "--no-progress", module="certgen")
    assert p.returncode == 0 and f"survey directory: {tmp_path}/d\\x1b[31m (summary.json" in p.stdout, p.stdout
    assert "\x1b" not in p.stdout + p.stderr


@pytest.mark.parametrize("cmd", [["-m", "solver", "explore", "--deal", "1"], ["-m", "certgen", "spec-doc"],
                                 [str(ROOT / "scripts" / "ledger_figures.py"), "missing.csv"]])
def test_a_command_started_with_standard_output_closed_says_so_in_one_line(cmd):
    p = subprocess.run([sys.executable, *cmd], cwd=ROOT, stderr=subprocess.PIPE, text=True,
                       preexec_fn=lambda: os.close(1))
    assert (p.returncode, p.stderr) == (2, "error: standard output is closed: nothing could be said (give it a "
                                           "file, e.g. >/dev/null)\n")


def test_out_of_memory_while_the_commands_are_imported_is_one_line(tmp_path):
    # python -m certgen under a tight memory limit ran out while importing: a MemoryError traceback
    from solver.errors import OUT_OF_MEMORY
    (tmp_path / "greedy.py").write_text("raise MemoryError\n")
    p = subprocess.run([sys.executable, "-c", "from solver.errors import main_of; main_of('greedy')"],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{tmp_path}"))
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.splitlines() == [f"error: {OUT_OF_MEMORY}"]


FILL_MEMORY = r"""
import resource, sys
from solver.cliargs import one_line_errors

def fill():                             # a command whose data fills the memory it may use, to the last bytes
    hog = []
    for size in [1 << 20, 1 << 12, *range(1024, 0, -8)]:
        try:
            while True:
                hog.append(bytearray(size))
        except MemoryError:
            pass
    raise MemoryError

size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + (64 << 20), resource.RLIM_INFINITY))
sys.exit(one_line_errors(fill))
"""


def test_out_of_memory_is_one_line_when_the_data_left_no_byte_to_say_it():
    # `ulimit -v 49000; certgen check --reference CERT`: the line was printed while the exception (its frames,
    # the decoded certificate) still held the memory; the print failed and Python could not print that either
    # ("object repr: MemoryError() ... lost sys.stderr", 4 runs in 6)
    from solver.errors import OUT_OF_MEMORY
    p = subprocess.run([sys.executable, "-c", FILL_MEMORY], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert (p.returncode, p.stdout, p.stderr) == (1, "", f"error: {OUT_OF_MEMORY}\n")
