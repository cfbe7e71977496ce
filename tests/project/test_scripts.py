"""The scripts/ entries, run as files from another folder: bad input is one line `error: …` naming the problem,
a non-zero exit, no traceback (solver.cliargs.Parser and one_line_errors, as the commands)."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from helpers import ROOT, one_line_error


def script(name, *args, cwd):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name, args, words", [
    ("ledger_figures.py", ["missing.csv"], "missing.csv: No such file or directory"),
    ("ledger_figures.py", ["."], ".: Is a directory"),
    ("ledger_figures.py", ["junk.txt"], "junk.txt: not a ledger"),
    ("ledger_figures.py", ["junk.txt", "--range", "5-x"], "range must be A-B with whole numbers"),
    ("ledger_figures.py", ["junk.txt", "--whole", "-5"],
     "--whole must be a whole number from 1 to 8589934591, got '-5'"),
    ("ledger_figures.py", ["junk.txt", "--whole", "\u0665"], "--whole must be a whole number from 1 to 8589934591"),
    ("ledger_figures.py", ["junk.txt", "--whole", "1e3"], "--whole must be a whole number from 1 to 8589934591"),
    ("hash_collisions.py", ["missing.cert"], "cannot read certificate missing.cert: No such file or directory"),
    ("hash_collisions.py", ["junk.txt"], "junk.txt: not a readable certificate"),
    ("compare_list.py", ["nosurvey"], "nosurvey/summary.json: No such file or directory"),
    ("compare_list.py", ["survey"], "survey/summary.json is not a survey's summary"),
    ("compare_list.py", ["finished", "--list", "junk.txt"], "junk.txt line 1: not a deal number"),
    ("compare_list.py", ["finished", "--list", "nolist"], "no list at nolist: give --list FILE"),
    ("bench.py", ["--child"], "--child takes one of store, ddd-big"),
    ("bench.py", ["--child", "nosuch"], "--child takes one of store, ddd-big"),
    ("bench.py", ["--child", "store", "1"], "--child takes one of store, ddd-big"),
    ("bench.py", ["--reps", "0"], "--reps must be a whole number from 1 to 1000, got '0'"),
    ("bench.py", ["--prove-only", "--prove-other", "/nonexistent"],
     "--prove-other /nonexistent: no .venv/bin/python there (a checkout set up by `make setup`)"),
    ("bench.py", ["--certify-other", "."], "--certify-other goes with --certify"),
    ("bench.py", ["--certify", "junk.txt", "--certify-other", "/nonexistent"],
     "--certify-other /nonexistent: no .venv/bin/python there (a checkout set up by `make setup`)"),
    ("bench.py", ["--certify", "junk.txt"], "junk.txt line 1: 'junk' is not a deal number"),
    ("bench.py", ["--certify", "nolist"], "nolist: No such file or directory"),
    ("certify_profile.py", ["junk.txt", "run", "--max-states", "-5"],            # ran, as if there were no limit
     "--max-states must be a whole number from 1 to"),
    ("certify_profile.py", ["junk.txt", "run", "--canonical-max-states", "0"],
     "--canonical-max-states must be a whole number from 1 to"),
    ("certify_profile.py", ["junk.txt", "run", "--range", "5-x"], "range must be A-B with whole numbers"),  # no error:
    ("coq_sample.py", ["junk.txt", "--out-dir", "o", "--fixed", "-3"],          # random.sample's traceback
     "--fixed must be a whole number from 0 to 1000000, got '-3'"),
    ("coq_sample.py", ["junk.txt", "--out-dir", "o", "--canonical", "\uff15"],  # int() read 5
     "--canonical must be a whole number from 0 to 1000000"),
    ("coq_sample.py", ["junk.txt", "--out-dir", "o", "--fixed-max", "1e3"], "--fixed-max must be a whole number"),
    ("coq_sample.py", ["junk.txt", "--out-dir", "o", "--seed", "1_0"], "--seed must be a whole number written"),
    ("coq_sample.py", ["ledger.csv", "--out-dir", "o", "--dry-run"],
     "only 1 fixed rows of at most 60,000 positions, not 29"),
    ("bench_play.py", ["--paint-runs", "0"], "--paint-runs must be a whole number from 1 to 1000, got '0'"),
    ("bench_play.py", ["--hint-step", "-1"], "--hint-step must be a whole number from 0 to 32000, got '-1'"),
])
def test_a_script_says_bad_input_in_one_line(tmp_path, name, args, words):
    (tmp_path / "junk.txt").write_text("junk\n")
    (tmp_path / "ledger.csv").write_text("deal,form,positions,max_home,records_sha256,seconds\n"
                                         "5,fixed,100,2," + "a" * 64 + ",1.5\n")
    (tmp_path / "survey").mkdir()
    (tmp_path / "survey" / "summary.json").write_text("{}")
    (tmp_path / "finished").mkdir()
    (tmp_path / "finished" / "summary.json").write_text('{"first": 1, "last": 9}')
    p = script(name, *args, cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("error: ") and words in p.stderr, p.stderr


def test_ledger_figures_of_a_range_count_only_its_rows(tmp_path):
    """The committed ledger holds the list's deals below 2^31 and may hold more: --range gives one range's."""
    (tmp_path / "l.csv").write_text("deal,form,positions,max_home,records_sha256,seconds\n"
                                    "5,fixed,100,2," + "a" * 64 + ",1.5\n"
                                    "7,unknown,80,,,3.0\n"
                                    "2147483650,canonical-safe,4000,3," + "b" * 64 + ",0.5\n")
    whole = json.loads(script("ledger_figures.py", "l.csv", "--json", cwd=tmp_path).stdout)
    low = json.loads(script("ledger_figures.py", "l.csv", "--range", "1-2147483647", "--whole", "2", "--json",
                            cwd=tmp_path).stdout)
    high = json.loads(script("ledger_figures.py", "l.csv", "--range", "2147483648-4294967295", "--json",
                             cwd=tmp_path).stdout)
    assert (whole["deals"], low["deals"], high["deals"]) == (3, 2, 1)
    assert low["forms"]["unknown"] == 1 and low["seconds_mean"] == 2.25 and low["projected_core_hours"] == 0.0
    assert high["forms"]["canonical-safe"] == 1 and high["largest"] == [[2147483650, "canonical-safe", 4000]]
    assert low["seconds_by_form"] == {"fixed": 1.5, "canonical-safe": 0.0, "disk-canonical-safe": 0.0,
                                      "unknown": 3.0, "winnable": 0.0}
    text = script("ledger_figures.py", "l.csv", "--range", "1-2147483647", cwd=tmp_path).stdout.splitlines()
    assert text[-1] == ("processor seconds by form: fixed 1.5 (1 deal, 0.667 a core-second); "
                        "unknown 3.0 (1 deal, 0.333 a core-second)")
    (tmp_path / "header.csv").write_text("deal,form,positions,max_home,records_sha256,seconds\n")
    for args, words in ((["l.csv", "--range", ""], "range must be A-B with whole numbers"),     # not every row
                        (["l.csv", "--range", "8-2147483649"], "l.csv: no row of deals 8..2,147,483,649"),
                        (["header.csv"], "header.csv: no row")):     # no figures, not a projection of 0.0 hours
        assert words in one_line_error(script("ledger_figures.py", *args, cwd=tmp_path)), args


def test_ledger_figures_rates_of_a_form_come_from_its_seconds_not_their_rounding(tmp_path):
    """Five quick rows of 0.04 s: 0.2 s, 25 deals a core-second (not 20 from 0.2 rounded, nor none from 0.0)."""
    head = "deal,form,positions,max_home,records_sha256,seconds\n"
    (tmp_path / "l.csv").write_text(head + "".join(f"{n},fixed,100,2,{'a' * 64},0.04\n" for n in (1, 2, 3, 4, 5))
                                    + f"6,canonical-safe,100,2,{'b' * 64},0.01\n")
    f = json.loads(script("ledger_figures.py", "l.csv", "--json", cwd=tmp_path).stdout)
    assert f["seconds_by_form"]["fixed"] == 0.2 and f["seconds_by_form"]["canonical-safe"] == 0.0
    assert f["deals_per_core_second_by_form"] == {"fixed": 25.0, "canonical-safe": 100.0,
                                                  "disk-canonical-safe": None, "unknown": None, "winnable": None}
    text = script("ledger_figures.py", "l.csv", cwd=tmp_path).stdout.splitlines()
    assert text[-1] == ("processor seconds by form: fixed 0.2 (5 deals, 25.000 a core-second); "
                        "canonical-safe 0.0 (1 deal, 100.000 a core-second)")


def test_ledger_figures_of_rows_past_any_deal_s_seconds_is_one_line(tmp_path):
    """A row's seconds past 2^53 microseconds (285 years) is not a row (two of 1e308 summed to infinity: --json
    printed `Infinity`, which is not JSON)."""
    head = "deal,form,positions,max_home,records_sha256,seconds\n"
    (tmp_path / "l.csv").write_text(head + "".join(f"{n},fixed,100,2,{'a' * 64},1e308\n" for n in (1, 2)))
    assert one_line_error(script("ledger_figures.py", "l.csv", "--json", cwd=tmp_path)) == \
        "error: l.csv line 2: seconds '1e308'"
    (tmp_path / "m.csv").write_text(head + f"1,fixed,100,2,{'a' * 64},9007199254.740992\n")    # 2^53 us: a row
    assert json.loads(script("ledger_figures.py", "m.csv", "--json", cwd=tmp_path).stdout)["deals"] == 1


def test_certify_profile_splits_a_run_s_processor_time_into_its_phases(tmp_path):
    (tmp_path / "list.txt").write_text("11982\n")
    p = script("certify_profile.py", "list.txt", "run", "--json", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    f = json.loads(p.stdout)
    s = f["seconds"]
    assert f["deals"] == 1 and list(s) == ["search", "export", "column order", "sort", "zlib", "SHA-256", "file writes",
                                           "rest of the process", "fast checker"]
    assert s["search"] > 0 and s["sort"] > 0 and s["zlib"] > 0 and s["fast checker"] > 0 and s["column order"] == 0
    assert abs(sum(s.values()) - f["total"]) < 0.05


def test_a_bench_child_runs_from_another_folder(tmp_path):
    p = script("bench.py", "--child", "store", 11982, 0, "bfs", cwd=tmp_path)
    assert p.returncode == 0 and '"states": 84767' in p.stdout and '"status": "done"' in p.stdout, p.stderr


@pytest.mark.skipif(shutil.which("coqc") is None, reason="no coqc")
def test_the_bench_coqc_shim_runs_coqc_found_through_a_relative_path_entry(tmp_path, monkeypatch):
    # PATH=bin:...: the shim runs in coqc's own empty folder, where bin/coqc names nothing
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        import bench
    finally:
        sys.path.pop(0)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "coqc").symlink_to(shutil.which("coqc"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "bin" + os.pathsep + os.environ["PATH"])
    shim = bench._coqc_shim(str(tmp_path / "shim"))
    (tmp_path / "elsewhere").mkdir()
    log = tmp_path / "times"
    p = subprocess.run([os.path.join(shim, "coqc"), "--version"], cwd=tmp_path / "elsewhere", capture_output=True,
                       text=True, env=dict(os.environ, FCP_COQC_LOG=str(log)))
    assert p.returncode == 0 and p.stdout.startswith("The Coq Proof Assistant"), p.stdout + p.stderr
    assert len(log.read_text().split()) == 2                # one run: its start and end times


# the arguments each script needs before an option it does not know (argparse says missing ones first)
NEEDED = {"certify_profile.py": ["list.txt", "dir"], "compare_fcsolve.py": ["1", "2"], "compare_list.py": ["dir"],
          "coq_sample.py": ["ledger.csv", "--out-dir", "out"], "hash_collisions.py": ["c.cert"],
          "ledger_figures.py": ["ledger.csv"]}


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "scripts").glob("*.py")))
def test_a_script_says_an_unknown_option_in_one_line(tmp_path, name):
    p = script(name, *NEEDED.get(name, []), "--no-such-option", cwd=tmp_path)
    assert p.returncode == 2 and p.stdout == "", (p.stdout, p.stderr)
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("error: unrecognized arguments: --no-such-option"), \
        p.stderr


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "scripts").glob("*.py")))
def test_a_script_answers_help(tmp_path, name):
    """--help and -h: what the script does on stdout, exit 0 (check_setup.py, which reads its arguments itself,
    said `error: unrecognized arguments: --help`)."""
    for flag in ("--help", "-h"):
        p = script(name, flag, cwd=tmp_path)
        assert p.returncode == 0 and p.stderr == "" and len(p.stdout.splitlines()) > 2, (flag, p.stdout, p.stderr)
