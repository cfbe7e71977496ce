"""Rule variants and counting modes on the command line (seed 000's experiments, seed 004's autoplay).

- 11982 with foundation returns: still unwinnable, at most 2 cards ever home (and the same 8 frozen cards).
- 11982 with 5 free cells: winnable.
- 11982 counted up to column order with safe autoplay: 61,643 positions (the seed's C++ count).
- Certificates need the plain spec rules: `certgen build` takes no counting flags, and a counting mode has
  no file stem.
"""
import pytest

from solver.errors import FreecellError
from solver.rules import Rules


def test_canonical_safe_autoplay_counts_61643(run_json):
    obj = run_json("explore", "--deal", "11982", "--canonical", "--autoplay", "safe")
    assert obj["states"] == 61643
    assert obj["verdict"] == "unwinnable" and obj["complete"] is True and obj["max_home"] == 2
    assert obj["rules"] == {"cells": 4, "foundation_return": False, "autoplay": "safe", "canonical": True}


def test_canonical_safe_autoplay_plain_line(run):
    p = run("explore", "--deal", "11982", "--canonical", "--autoplay", "safe")
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout == ("deal 11982 (counted up to column order, safe autoplay): unwinnable \u2014 all 61,643 "
                        "reachable positions enumerated, at most 2 cards ever reach the foundations\n")


def test_spec_flags_print_the_spec_rules(run_json):
    """--autoplay none alone is the spec: the rules print exactly as without it."""
    obj = run_json("explore", "--deal", "11982", "--autoplay", "none")
    assert obj["states"] == 84767 and obj["rules"] == {"cells": 4, "foundation_return": False}


def test_foundation_return_still_unwinnable(run_json):
    obj = run_json("explore", "--deal", "11982", "--foundation-return")
    assert obj["verdict"] == "unwinnable" and obj["complete"] is True
    assert obj["max_home"] == 2
    assert obj["rules"] == {"cells": 4, "foundation_return": True}
    a = run_json("analyze", "--deal", "11982", "--foundation-return", "--exposed", "QC")
    assert a["verdict"] == "unwinnable" and a["max_home"] == 2
    assert a["frozen"] == ["AS", "3H", "6H", "4H", "QS", "AC", "QC", "6S"]


def test_five_cells_winnable(run, run_json):
    obj = run_json("explore", "--deal", "11982", "--cells", "5")
    assert obj["verdict"] == "winnable" and obj["max_home"] == 52
    p = run("explore", "--deal", "11982", "--cells", "5")
    assert p.stdout.startswith("deal 11982 (5 free cells): winnable \u2014 a won position was reached")
    a = run_json("analyze", "--deal", "11982", "--cells", "5")
    assert a["verdict"] == "winnable" and a["frozen"] == [] and a["max_home"] == 52


def test_certificates_refuse_counting_modes(run, assert_one_line_error, tmp_path):
    """No certificate with automatic moves or supermoves (up to column order there is one:
    tests/test_canoncert.py)."""
    out = tmp_path / "c.cert"
    for flags in (["--autoplay", "safe"], ["--supermoves"]):
        line = assert_one_line_error(run("build", "--deal", "11982", *flags, "--out", str(out), module="certgen"))
        assert "unrecognized arguments" in line
    assert not out.exists()
    for rules in (Rules(autoplay="safe"), Rules(canonical=True, supermoves=True)):
        with pytest.raises(FreecellError, match="plain spec rules"):
            rules.stem()


def test_bad_rules_flags(run, assert_one_line_error):
    assert_one_line_error(run("explore", "--deal", "11982", "--autoplay", "sometimes"))
    assert_one_line_error(run("explore", "--deal", "11982", "--canonical", "yes"))
    p = run("explore", "--help")
    assert "--canonical" in p.stdout and "--autoplay" in p.stdout and "--foundation-return" in p.stdout
