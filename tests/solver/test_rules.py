"""Rule variants and counting modes on the command line (seed 000's experiments, seed 004's autoplay).

- 11982 with foundation returns: still unwinnable, at most 2 cards ever home (and the same 8 frozen cards).
- 11982 with 5 free cells: winnable.
- 11982 counted up to column order with safe autoplay: 61,643 positions (the seed's C++ count), verdict
  unwinnable: safe autoplay is proved to lose no win (coq/FreeCell/Autoplay.v,
  unwinnable_of_safe_autoplay_fence_up_to_column_order).
- The verdict of a complete enumeration without a win, mode by mode, on deal 85 with no free cell (a few
  hundred positions): unwinnable in the plain rules, up to column order, with horne, safe or twos autoplay
  (with and without column order) and with supermoves; unknown with automatic moves plus foundation returns.
- Certificates need the plain spec rules: `certgen build` takes no counting flags, and a counting mode has
  no file stem.
"""
import ast

import pytest

from solver.errors import FreecellError
from solver.rules import Rules

from helpers import ROOT


def test_canonical_safe_autoplay_counts_61643(run_json):
    # Autoplay.v: unwinnable_of_safe_autoplay_fence_up_to_column_order
    obj = run_json("explore", "--deal", "11982", "--canonical", "--autoplay", "safe")
    assert obj["states"] == 61643
    assert obj["verdict"] == "unwinnable" and obj["complete"] is True and obj["max_home"] == 2
    assert "note" not in obj
    assert obj["rules"] == {"cells": 4, "foundation_return": False, "autoplay": "safe", "canonical": True}


def test_canonical_safe_autoplay_plain_line(run):
    p = run("explore", "--deal", "11982", "--canonical", "--autoplay", "safe")
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout == ("deal 11982 (up to column order, safe automatic moves): unwinnable \u2014 all 61,643 "
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


@pytest.mark.slow
def test_five_cells_winnable(run, run_json):
    obj = run_json("explore", "--deal", "11982", "--cells", "5")
    assert obj["verdict"] == "winnable" and obj["max_home"] == 52
    p = run("explore", "--deal", "11982", "--cells", "5")
    assert p.stdout.startswith("deal 11982 (5 free cells): winnable \u2014 a won position was reached")
    a = run_json("analyze", "--deal", "11982", "--cells", "5")
    assert a["verdict"] == "winnable" and a["frozen"] == [] and a["max_home"] == 52


def test_certificates_refuse_counting_modes(run, assert_one_line_error, tmp_path):
    """No certificate with automatic moves or supermoves (up to column order there is one:
    tests/certgen/test_columns.py)."""
    out = tmp_path / "c.cert"
    line = assert_one_line_error(run("build", "--deal", "11982", "--autoplay", "safe", "--out", str(out),
                                     module="certgen"))
    assert "certificates exist for the spec rules, fixed columns or up to column order (--canonical)" in line
    line = assert_one_line_error(run("build", "--deal", "11982", "--supermoves", "--out", str(out), module="certgen"))
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


# --- which counting modes may say "unwinnable" (solver.rules.Rules.unproved) --------------------------------
# Deal 85 with no free cell: every mode enumerates a few hundred positions, none won, 5 cards home at most;
# the counts differ by mode, so each mode's own moves run (column order merges positions, horne sends fewer
# cards home than safe, foundation returns add positions).

def note_fret(mode):
    return (f"no win in this counting mode (automatic moves '{mode}' are proved to lose no win only without "
            f"foundation returns: use --autoplay none for a proof)")


@pytest.mark.parametrize("flags,states,verdict,note", [
    ((), 277, "unwinnable", None),                                              # the fence (Lean)
    (("--canonical",), 217, "unwinnable", None),          # Columns.v unwinnable_of_fence_up_to_column_order
    (("--autoplay", "horne"), 250, "unwinnable", None),             # Autoplay.v unwinnable_of_autoplay_fence
    (("--autoplay", "horne", "--canonical"), 190, "unwinnable", None),     # ..._up_to_column_order
    (("--supermoves",), 277, "unwinnable", None),                   # only adds moves: contains the spec's set
    (("--autoplay", "horne", "--canonical", "--supermoves"), 190, "unwinnable", None),
    (("--autoplay", "safe"), 243, "unwinnable", None),         # Autoplay.v unwinnable_of_safe_autoplay_fence
    (("--autoplay", "safe", "--canonical"), 183, "unwinnable", None),           # ..._up_to_column_order
    (("--autoplay", "twos"), 243, "unwinnable", None),         # Autoplay.v unwinnable_of_twos_autoplay_fence
    (("--autoplay", "twos", "--canonical"), 183, "unwinnable", None),           # ..._up_to_column_order
    (("--autoplay", "safe", "--supermoves"), 243, "unwinnable", None),
    (("--autoplay", "horne", "--foundation-return"), 272, "unknown", note_fret("horne")),   # Autoplay.v: no returns
    (("--autoplay", "safe", "--foundation-return"), 243, "unknown", note_fret("safe")),
    (("--autoplay", "twos", "--foundation-return"), 243, "unknown", note_fret("twos")),
    (("--foundation-return",), 365, "unwinnable", None),                        # the fence, returns allowed
])
def test_verdict_of_a_complete_enumeration_by_mode(run, run_json, flags, states, verdict, note):
    obj = run_json("explore", "--deal", "85", "--cells", "0", *flags)
    assert (obj["states"], obj["complete"], obj["max_home"], obj["verdict"]) == (states, True, 5, verdict)
    assert obj.get("note") == note
    text = run("explore", "--deal", "85", "--cells", "0", *flags).stdout
    assert f": {verdict} \u2014 all {states:,} reachable positions enumerated, at most 5 cards" in text
    assert text.rstrip("\n").endswith(f"; {note}" if note else "the foundations")
    a = run_json("analyze", "--deal", "85", "--cells", "0", *flags)
    assert (a["states"], a["complete"], a["max_home"], a["verdict"], a.get("note")) == (states, True, 5, verdict,
                                                                                       note)
    assert a["frozen"] is not None       # the figures of a complete enumeration are given either way


def test_proves_unwinnable_is_the_one_rule():
    """Rules.unproved/proves_unwinnable, and solver.verdict.decide applying it (analyze, solve, survey, certgen
    and explore all go through it)."""
    from solver.verdict import decide as verdict
    proved = [Rules(), Rules(canonical=True), Rules(autoplay="horne"), Rules(autoplay="horne", canonical=True),
              Rules(supermoves=True), Rules(autoplay="horne", supermoves=True), Rules(foundation_return=True),
              Rules(canonical=True, foundation_return=True), Rules(cells=0, hand=1),
              Rules(autoplay="safe"), Rules(autoplay="twos"), Rules(autoplay="safe", canonical=True),
              Rules(autoplay="twos", canonical=True, supermoves=True)]
    unproved = [Rules(autoplay="all"), Rules(autoplay="all", canonical=True),
                Rules(autoplay="safe", foundation_return=True), Rules(autoplay="twos", foundation_return=True),
                Rules(autoplay="horne", foundation_return=True),
                Rules(autoplay="horne", canonical=True, foundation_return=True, supermoves=True)]
    for r in proved:
        assert r.proves_unwinnable() and r.unproved() == "" and verdict(False, True, rules=r) == "unwinnable", r
    for r in unproved:
        assert not r.proves_unwinnable() and r.unproved().startswith("no win in this counting mode"), r
        assert verdict(False, True, rules=r) == "unknown", r
        assert verdict(False, False, rules=r) == "unknown" and verdict(True, True, [()], r) == "winnable", r


def _decided_outside_the_rule(path):
    """Lines of ``path`` where "winnable" or "unwinnable" is returned, or handed to a result's constructor, as
    it is (not from solver.verdict.decide)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parent = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    out = []
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Constant) and n.value in ("winnable", "unwinnable")):
            continue
        up = parent[n]
        if isinstance(up, ast.Tuple):
            up = parent[up]
        made = isinstance(up, ast.Call) and n in up.args and getattr(up.func, "id", "").endswith("Result")
        if isinstance(up, ast.Return) or made:
            out.append(n.lineno)
    return sorted(out)


def test_every_decider_goes_through_the_rule(tmp_path):
    """solver.solve, solve.judge, certgen.prove, the difficulty survey and the hand decide through
    solver.verdict.decide: no other module of solver/ (nor certgen/prove.py) returns a verdict word itself."""
    files = sorted((ROOT / "solver").glob("*.py")) + [ROOT / "certgen" / "prove.py"]
    assert {p.name: _decided_outside_the_rule(p) for p in files if p.name != "verdict.py"
            if _decided_outside_the_rule(p)} == {}
    bad = tmp_path / "bad.py"
    bad.write_text('def f(res):\n    if res.won:\n        return "winnable", 1\n    return HandResult("unwinnable")\n'
                   'def g(v):\n    return v == "winnable"\n')
    assert _decided_outside_the_rule(bad) == [3, 4]
