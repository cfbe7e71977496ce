#!/usr/bin/env python3
"""Time Freecell Solver and our survey on the same range of deals, in one run: `scripts/compare_fcsolve.py A B`.

Freecell Solver (Debian package freecell-solver-bin) solves the range with its range solver,

    freecell-solver-range-parallel-solve A B 1 -l lg

(one process; "-l lg" is its "looking-glass" preset, the one quoted for the 32,000 deals). It prints
"Unsolved Board No. N" for a deal whose search space it exhausted and "Intractable Board No. N" for one
it gave up on. Then our survey runs as a whole command, one after the other (never at the same time):
by default the streaming survey of issue 12, `python -m certgen survey A-B --dir TMP --jobs J --json`
(every winning line replayed, every unwinnable deal certified and checked); `--ours solver` runs the
in-memory `python -m solver survey A-B --jobs J --out CSV` instead (default --jobs 1). The script prints
both wall times and CPU times (on a machine shared with other jobs the CPU times are the steadier
figure), the ratios (ours / Freecell Solver) and every deal on which the verdicts differ (solved =
winnable, "Unsolved" = unwinnable, "Intractable" = unknown). `--json` prints one object instead (with the
unwinnable and unknown deals of each side).
For one core each on a shared machine: `nice -n 5 python scripts/compare_fcsolve.py 1 32000`.

`--states [--cells K]` compares the searches instead, deal by deal: Freecell Solver's "states checked"
(`fc-solve --freecells-num K -l lg -s` on `make-microsoft-freecell-board -t N`) against the positions
our solver stores (`solver.search.solve_line` with the speed-ups of `solve`, up to --max-states), for
every deal of A..B: how many each wins, and the states of the deals both win. A search that stops
without a win is no proof for either (Freecell Solver's preset prunes; ours is cut at its limit).

Exit status: 0 (also when Freecell Solver is not installed: one line says so), 1 when verdicts differ,
2 bad arguments.
"""
import csv
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from certgen.paths import ROOT
from solver import deals, search
from solver.cliargs import Parser, cells_arg, jobs_arg, max_states_arg, one_line_errors, whole_arg
from solver.rules import Rules

FCS = "freecell-solver-range-parallel-solve"
PRESET = ["-l", "lg"]


def cpu_of_children():
    """User + system CPU seconds of every finished child process so far (children of children included)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


CPU = {}   # "fcs" / "ours": CPU seconds of that run (on a shared machine steadier than the wall time)


def run_fcsolve(exe, a, b):
    t, c = time.perf_counter(), cpu_of_children()
    proc = subprocess.run([exe, str(a), str(b), "1", *PRESET], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    sec = time.perf_counter() - t
    CPU["fcs"] = cpu_of_children() - c
    if proc.returncode != 0:
        last = (proc.stdout.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"error: {FCS} failed (exit {proc.returncode}): {last}")
    unsolved = {int(n) for n in re.findall(r"^Unsolved Board No\. (\d+)", proc.stdout, re.M)}
    intractable = {int(n) for n in re.findall(r"^Intractable Board No\. (\d+)", proc.stdout, re.M)}
    verdicts = {}
    for d in range(a, b + 1):
        verdicts[d] = "unwinnable" if d in unsolved else "unknown" if d in intractable else "winnable"
    return sec, verdicts


def _run(cmd):
    t, c = time.perf_counter(), cpu_of_children()
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sec = time.perf_counter() - t
    CPU["ours"] = cpu_of_children() - c
    if proc.returncode != 0:
        raise SystemExit(f"error: our survey failed (exit {proc.returncode}): {proc.stderr.strip()}")
    return sec, proc.stdout


def run_ours(a, b, jobs, ours="certgen"):
    """(wall seconds, {deal: verdict}, the command, a one-line summary) of our survey of a..b."""
    with tempfile.TemporaryDirectory() as tmp:
        if ours == "certgen":
            cmd = [sys.executable, "-m", "certgen", "survey", f"{a}-{b}", "--dir", os.path.join(tmp, "s"),
                   "--jobs", str(jobs), "--no-progress", "--json"]
            sec, out = _run(cmd)
            summary = json.loads(out)
            verdicts = dict.fromkeys(range(a, b + 1), "winnable")
            verdicts.update((n, "unwinnable") for n in summary["unwinnable"])
            verdicts.update((n, "unknown") for n in summary["unknown"])
            line = (f"deal seconds {summary['deal_seconds']:.2f}, wall {summary['wall_seconds']:.2f}, "
                    f"certificates {len(summary['certificates'])}")
            shown = f"python -m certgen survey {a}-{b} --dir DIR --jobs {jobs}"
        else:
            out_csv = os.path.join(tmp, "survey.csv")
            cmd = [sys.executable, "-m", "solver", "survey", f"{a}-{b}", "--jobs", str(jobs), "--no-progress",
                   "--out", out_csv]
            sec, out = _run(cmd)
            with open(out_csv, newline="") as f:
                verdicts = {int(r["deal"]): r["verdict"] for r in csv.DictReader(f)}
            line = (out.strip().splitlines() or [""])[0]
            shown = f"python -m solver survey {a}-{b} --jobs {jobs}"
    return sec, verdicts, shown, line


def counts(verdicts):
    c = {"winnable": 0, "unwinnable": 0, "unknown": 0}
    for v in verdicts.values():
        c[v] += 1
    return c


def which(verdicts, verdict):
    """The deals with that verdict, in order."""
    return sorted(d for d, v in verdicts.items() if v == verdict)


def words(c, names):
    return ", ".join(f"{c[k]:,} {names[k]}" for k in ("winnable", "unwinnable", "unknown"))


def fcsolve_states(n, cells):
    """("won" | "lost", states checked) of Freecell Solver's -l lg on deal n with `cells` free cells."""
    board = subprocess.run(["make-microsoft-freecell-board", "-t", str(n)], stdout=subprocess.PIPE, text=True,
                           check=True).stdout
    out = subprocess.run(["fc-solve", "--freecells-num", str(cells), "-l", "lg", "-mi", "3000000", "-s", "-"],
                         input=board, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    m = re.search(r"Total number of states checked is (\d+)", out)
    return ("won" if "This game is solveable." in out else "lost"), int(m.group(1)) if m else 0


def compare_states(a, b, cells, max_states, as_json):
    speedups = Rules(cells=cells, autoplay="safe", canonical=True)
    rows = []
    for n in range(a, b + 1):
        status, _codes, states, _exp, _len = search.solve_line(deals.ms_deal(n), speedups, max_states, 0)
        rows.append((n, *fcsolve_states(n, cells), "won" if status == "won" else "lost", int(states)))
    both = [r for r in rows if r[1] == r[3] == "won"]
    obj = {"first": a, "last": b, "cells": cells, "max_states": max_states,
           "freecell_solver_won": sum(r[1] == "won" for r in rows), "ours_won": sum(r[3] == "won" for r in rows),
           "both_won": len(both), "states_both": {"freecell_solver": sum(r[2] for r in both),
                                                  "ours": sum(r[4] for r in both)},
           "only_freecell_solver": [r[0] for r in rows if r[1] == "won" != r[3]],
           "only_ours": [r[0] for r in rows if r[3] == "won" != r[1]]}
    if as_json:
        print(json.dumps(obj))
    else:
        print(f"deals {a}..{b} with {cells} free cells: Freecell Solver (-l lg) wins {obj['freecell_solver_won']}, "
              f"ours {obj['ours_won']} (limit {max_states:,} positions); both win {len(both)}, in "
              f"{obj['states_both']['freecell_solver']:,} states checked against {obj['states_both']['ours']:,} "
              f"positions stored by ours")
        print(f"  won only by Freecell Solver: {obj['only_freecell_solver'] or 'none'}; "
              f"only by ours: {obj['only_ours'] or 'none'}")
    return 0


def main(argv=None):
    p = Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("first", type=whole_arg("A", 1, deals.MAX_DEAL), metavar="A")
    p.add_argument("last", type=whole_arg("B", 1, deals.MAX_DEAL), metavar="B")
    p.add_argument("--jobs", type=jobs_arg, default=1, help="our survey's processes (default 1)")
    p.add_argument("--ours", choices=("certgen", "solver"), default="certgen",
                   help="our command: the streaming `certgen survey` (default) or `solver survey`")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--states", action="store_true", help="compare the searches deal by deal (states), not times")
    p.add_argument("--cells", type=cells_arg, default=4, help="free cells for --states (default 4)")
    p.add_argument("--max-states", type=max_states_arg, default=3_000_000,
                   help="our limit for --states (default 3,000,000)")
    args = p.parse_args(argv)
    if args.first > args.last:
        p.error("need 1 <= A <= B")
    exe = shutil.which(FCS)
    if args.states and exe is not None and shutil.which("fc-solve") and shutil.which("make-microsoft-freecell-board"):
        return compare_states(args.first, args.last, args.cells, args.max_states, args.json)
    if exe is None:
        print(f"Freecell Solver is not installed ({FCS} is not on PATH; Debian: apt-get install "
              f"freecell-solver-bin): nothing compared")
        return 0
    a, b = args.first, args.last
    fsec, fv = run_fcsolve(exe, a, b)
    osec, ov, shown, summary = run_ours(a, b, args.jobs, args.ours)
    fc, oc = counts(fv), counts(ov)
    diff = [(d, fv.get(d), ov.get(d)) for d in range(a, b + 1) if fv.get(d) != ov.get(d)]
    if args.json:
        print(json.dumps({"first": a, "last": b, "freecell_solver": {"command": f"{FCS} {a} {b} 1 {' '.join(PRESET)}",
                                                                      "seconds": round(fsec, 3), "cpu_seconds": round(CPU["fcs"], 3),
                                                                      "counts": fc, "unsolved": which(fv, "unwinnable"),
                                                                      "intractable": which(fv, "unknown")},
                          "ours": {"command": shown, "seconds": round(osec, 3), "cpu_seconds": round(CPU["ours"], 3),
                                   "counts": oc, "unwinnable": which(ov, "unwinnable"),
                                   "unknown": which(ov, "unknown")},
                          "ratio": round(osec / fsec, 3), "cpu_ratio": round(CPU["ours"] / max(CPU["fcs"], 1e-9), 3),
                          "differ": [list(x) for x in diff]}))
        return 1 if diff else 0
    print(f"Freecell Solver ({FCS} {a} {b} 1 {' '.join(PRESET)}): {fsec:.2f} s ({CPU['fcs']:.2f} s CPU); "
          + words(fc, {"winnable": "solved", "unwinnable": "unsolved", "unknown": "intractable"}))
    print(f"freecell-proof ({shown}): {osec:.2f} s ({CPU['ours']:.2f} s CPU); "
          + words(oc, {"winnable": "winnable", "unwinnable": "unwinnable", "unknown": "unknown"}))
    print(f"  {summary}")
    print(f"ratio (ours / Freecell Solver): {osec / fsec:.2f} wall, {CPU['ours'] / max(CPU['fcs'], 1e-9):.2f} CPU")
    if not diff:
        print(f"verdicts: all {b - a + 1:,} deals agree")
        return 0
    print(f"verdicts: {len(diff):,} deals differ")
    for d, f, o in diff[:50]:
        print(f"  deal {d}: Freecell Solver {f}, ours {o}")
    if len(diff) > 50:
        print(f"  ... and {len(diff) - 50:,} more")
    return 1


if __name__ == "__main__":
    sys.exit(one_line_errors(main))
