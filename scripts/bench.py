#!/usr/bin/env python3
"""Benchmarks, in one run: `make bench` (or `.venv/bin/python -m scripts.bench [--json]`, from the checkout).

In one run it measures
  1. the C core enumerating deal 11982 under the spec rules (solver.search.explore; best of --reps),
  2. the Python transliteration of the spec (solver.spec.moves) doing the same breadth-first search with
     a Python set -- over the first --py-states expanded states, or all of them with --py-full --
     and prints states/s of both and their ratio (target: C >= 100x),
  3. the whole command-line process `python -m solver explore --deal 11982`, --cli-runs times: wall time
     and max RSS (via /usr/bin/time -v when present, else getrusage of the children); targets 0.08 s
     and 40 MiB,
  3b. issue 35's figures (alone with --speed): that whole process against `fc-solve` on the same board, 5 of each
     alternating (medians of wall and processor time; target: explore <= fc-solve), the C search of its 84,767
     positions alone (best of --reps; target <= 15 ms), the store's bytes a position by the whole process's
     peak RSS (`explore --deal 3 --cells 2` at 1,000 and 3,000,000 positions: the difference over the
     difference; target <= 24), `certgen survey A-B --jobs 1` against `freecell-solver-range-parallel-solve A B 1
     -l lg`, one process each (--survey-range, default 600001-610000; the target, <= 0.8, is for 100,000 deals),
     and the whole prove process of item 5 (target <= 3 s),
  4. the prove pipeline for deal 11982 in this process (certgen.prove.prepare, no kernel ahead: the Python
     reference on every member): the wall time of each phase -- search, write (the certificate), read (it
     back), decode (its records, for the reference), check (the independent Python checker), fastcheck (what
     is left of the fast checker's time once Python is done: it runs beside), render (the Lean module and the
     standalone file, the text encoded once), render_coq (the Coq module),
  5. the whole `python -m certgen prove --deal 11982` process (LEAN_BOOTSTRAP=0, the files in a temporary
     folder), as issue 35 defines the target: with coqc on PATH and the Coq library already built in the
     folder, its wall time minus coqc's on the module (the figure prove prints; the driver's coqc and
     Spec.v's compilation stay in), median and best of 3, target 3 s; and one process with no prover on PATH
     (the Python reference then checks every member). `--prove-only [--prove-other ROOT]`: only this, with
     another checkout (e.g. main's) run alike, alternating,
  6. with --big, deal 1 stopped at 2,000,000 states (time and memory of a large, cut-off search); with
     --store, bytes per stored position (hash table included; target <= 24) and states/s at 2,951,466
     positions (deal 1474422072, whole), with --store-big also at 100,000,000 (deal 24795893, cut off),
  7. the two certificate checkers on #11982's certificate: the fast checker (build/fccheck, the whole
     process, and its check alone in wall and processor time) and the Python reference
     (certgen/checker.py: reading the file, and the check), positions/s of both and the ratio; the same
     verdict is required (--no-checkers skips this part, ~30 s).
  8. with --fccheck, the fast checker alone on #11982's certificate and deal 1474422072's (2,951,466
     positions; built here with `certgen build`, about a minute, unless --fccheck-cert gives certificates):
     bytes a position held for the records (its own count; target <= 16) and peak RSS a position, its check
     in positions/s of processor and wall time (target >= 1 M/s), best of 3 processes, with the load
     average; --fccheck-other EXE runs another build of it alike (before and after in one run),
  9. with --coq, deal 11982: its certificate checked by the independent Python checker, and the Coq check
     (certgen/coq.py: render, then coqc, whose search builds the set itself; wall time and peak memory),
     and the ratio of the two,
 10. with --play, the play page: first paint in headless Chromium and the hint times over deals of
     1..32000 (scripts/bench_play.py; its options --hint-step, --hint-full, --difficulty pass through).
 10. with --ddd (--ddd-only: nothing else), the enumeration past memory: `explore --deal 1474422072` in memory
     and with `--memory 16M` (on disk, solver/disksearch.py), each in its own process: positions/s, wall,
     peak RSS, disk at most; then `certgen build` both ways (wall, peak RSS, the same certificate body).
 11. with --zlib (nothing else), the certificate body's compression at zlib levels 9, 6 and 1 on deal
     1474422072's 2,951,466 sorted records: processor time, bytes a record, both extrapolated to 10^9 records.
 12. with --disk (nothing else), the disk search's files: `explore --deal 219837216 --memory 2G --on-disk
     --max-states 30000000` and deal 1474422072 complete with `--memory 16M` (then `certgen build`, whose
     sort for the certificate has the last peak), each in its own process: disk at most, bytes a position and
     against raw keys (24 bytes a key: the disk search's key; --disk-other ROOT of a checkout before
     December 2026 had 16), seconds in the core, processor seconds, wall; with --disk-other ROOT the same
     in another checkout (e.g. main's, built), the ratios of the two and whether the certificate bodies agree.
 13. with --certify LIST (nothing else), issue 34's throughput of `certgen certify-list`: certgen.certify.certify_deal
     on the first --certify-deals (default 300) listed deals above 2^31, with the list run's limits
     (--max-states 1,000,000, --canonical-max-states 80,000,000): deals a processor second (a row's `seconds`:
     the deal's processor time, the fast checker's included; target >= 2), by form; with --certify-other ROOT
     another checkout (set up, e.g. main's) run alike, slices of CERTIFY_SLICE deals alternating between the
     two, each slice a process of each, and the same rows (form, positions, records_sha256) required.
Plain text by default, one JSON object with --json. A child process that runs Python of this script's own (the
store's search, the big disk search) is this module again: `python -m scripts.bench --child NAME ARGS` (CHILDREN).
The package and this folder are found through the checkout's editable install (`make setup`).
"""
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from solver.cliargs import Parser, one_line_errors, whole_arg
from solver.errors import FreecellError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DEAL = 11982
WALL_TARGET = 0.08
RSS_TARGET_MIB = 40
RATIO_TARGET = 100
PROVE_TARGET = 3.0
PHASES = ("search", "write", "read", "decode", "check", "fastcheck", "render", "render_coq")


def bench_c(reps):
    from solver import deals, search
    start = deals.ms_deal(DEAL)
    best = None
    for _ in range(reps):
        t = time.perf_counter()
        r = search.explore(start, order="bfs")
        wall = time.perf_counter() - t
        row = {"states": r.states, "expanded": r.expanded, "generated": r.generated,
               "max_home": r.max_home, "complete": r.complete, "won": r.won,
               "seconds": r.seconds, "wall": wall, "memory_bytes": r.search.memory()}
        r.close()
        if best is None or row["seconds"] < best["seconds"]:
            best = row
    best["states_per_s"] = best["expanded"] / best["seconds"]
    best["successors_per_s"] = best["generated"] / best["seconds"]
    return best


def bench_python(max_expand):
    from solver import deals, spec
    r = spec.Rules()
    s0 = spec.from_position(deals.ms_deal(DEAL))
    seen, queue = {s0}, [s0]
    expanded = generated = 0
    t = time.perf_counter()
    while expanded < len(queue) and (max_expand is None or expanded < max_expand):
        s = queue[expanded]
        expanded += 1
        for n in spec.moves(r, s):
            generated += 1
            if n not in seen:
                seen.add(n)
                queue.append(n)
    sec = time.perf_counter() - t
    complete = expanded == len(queue)
    return {"expanded": expanded, "states": len(seen), "generated": generated, "complete": complete,
            "seconds": sec, "states_per_s": expanded / sec, "successors_per_s": generated / sec}


def _cli_cmd():
    return [sys.executable, "-m", "solver", "explore", "--deal", str(DEAL)]


def bench_cli(runs):
    env = _user_env()       # one warm-up run writes the bytecode
    subprocess.run(_cli_cmd(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    walls, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.run(_cli_cmd(), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        walls.append(time.perf_counter() - t)
        if p.returncode != 0:
            return {"available": False, "error": (p.stderr.decode(errors="replace").strip() or
                                                  f"exit status {p.returncode}").splitlines()[-1]}
        out = p.stdout.decode(errors="replace").strip()
    rss_kib = []
    timebin = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)
    for _ in range(min(runs, 3)):
        if timebin:
            p = subprocess.run([timebin, "-v"] + _cli_cmd(), cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env)
            m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr.decode(errors="replace"))
            if m:
                rss_kib.append(int(m.group(1)))
                continue
        subprocess.run(_cli_cmd(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        rss_kib.append(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)   # max over children
    return {"available": True, "output": out, "runs": runs, "wall_min": min(walls),
            "wall_median": statistics.median(walls), "wall_max": max(walls),
            "max_rss_mib": max(rss_kib) / 1024, "rss_method": "time -v" if timebin else "getrusage",
            "wall_ok": statistics.median(walls) <= WALL_TARGET,
            "rss_ok": max(rss_kib) / 1024 <= RSS_TARGET_MIB}


def bench_python_startup(runs):
    """The interpreter's own start-up: the median wall time of `python /dev/null` (an empty program)."""
    walls = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, os.devnull], cwd=ROOT)
        walls.append(time.perf_counter() - t)
    return statistics.median(walls)


FCS_RUNS = 5                # processes of each side, alternating; medians compared
SEARCH_TARGET_MS = 15       # the C search of #11982's 84,767 positions (issue 35)
RSS_DEAL, RSS_CELLS, RSS_SMALL, RSS_BIG = 3, 2, 1000, 3_000_000   # the store by peak RSS (issue 35)


def _user_env():
    """The environment a user's command runs in: this one without PYTHONDONTWRITEBYTECODE (a session may export
    it, which makes every run compile the package again) and without PYTHONPATH."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPATH", None)
    return env


def _process(cmd):
    """One process of cmd as a user runs it (_user_env), its output thrown away: (wall seconds, processor seconds
    of the child, exit status)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_user_env())
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), p.returncode


def _peak_rss(cmd):
    """Peak RSS in bytes of one process of cmd (/usr/bin/time), or None."""
    if not os.path.exists("/usr/bin/time"):
        return None
    p = subprocess.run(["/usr/bin/time", "-f", "maxrss_kib %M"] + cmd, cwd=ROOT, capture_output=True, text=True)
    m = re.search(r"maxrss_kib (\d+)", p.stderr)
    return int(m.group(1)) * 1024 if p.returncode in (0, 1) and m else None


SURVEY_RANGE = "600001-610000"      # --speed's survey against Freecell Solver (the target's ranges: 100,000 deals)
SURVEY_TARGET = 0.8                 # certgen survey / Freecell Solver, one core each (issue 35)


def bench_survey(deals=SURVEY_RANGE):
    """`python -m certgen survey A-B --jobs 1` (a new survey folder) against `freecell-solver-range-parallel-solve A B
    1 -l lg`, one process each: wall and processor seconds, and the ratios."""
    first, last = (int(x) for x in deals.split("-"))
    out = {"first": first, "last": last, "load": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        wall, cpu, code = _process([sys.executable, "-m", "certgen", "survey", f"{first}-{last}", "--jobs", "1",
                                    "--dir", os.path.join(tmp, "survey"), "--no-progress"])
    out["survey"] = {"wall": wall, "cpu": cpu, "exit": code}
    fcs = shutil.which("freecell-solver-range-parallel-solve")
    if fcs:
        wall, cpu, code = _process([fcs, str(first), str(last), "1", "-l", "lg"])
        out["fcs"] = {"wall": wall, "cpu": cpu, "exit": code}
        out["wall_ratio"] = out["survey"]["wall"] / out["fcs"]["wall"]
        out["cpu_ratio"] = out["survey"]["cpu"] / max(1e-9, out["fcs"]["cpu"])
    return out


def bench_speed(reps, survey=SURVEY_RANGE, prove=True):
    """Issue 35's figures in one run: `python -m solver explore --deal 11982` against `fc-solve` on the same board,
    each a whole process, FCS_RUNS of each alternating (medians; the machine may be shared, so processor time
    too); the C search alone on #11982 (best and median of `reps`); the store's bytes a position by the whole
    process's peak RSS, the difference between RSS_SMALL and RSS_BIG positions of deal 3 with 2 cells over their
    difference in positions; the survey of the deals `survey` against Freecell Solver's (bench_survey); with
    `prove`, the whole prove process (bench_prove_process: with coqc, minus coqc's time, and without a prover)."""
    from solver import board, deals, search
    out = {"load": os.getloadavg()}
    fcs = shutil.which("fc-solve")
    explore = [sys.executable, "-m", "solver", "explore", "--deal", str(DEAL)]
    _process(explore)                           # the bytecode written once
    with tempfile.NamedTemporaryFile("w", suffix=".board", delete=False) as f:
        f.write(board.format_position(deals.ms_deal(DEAL)) + "\n")
    try:
        rows = {"explore": [], "fc-solve": []}
        for _ in range(FCS_RUNS):
            rows["explore"].append(_process(explore))
            if fcs:
                rows["fc-solve"].append(_process([fcs, f.name]))
    finally:
        os.unlink(f.name)
    for name, got in rows.items():
        if got:
            out[name] = {"wall_median": statistics.median(w for w, _c, _e in got),
                         "cpu_median": statistics.median(c for _w, c, _e in got), "exit": sorted({e for *_x, e in got})}
    if fcs:
        out["wall_ratio"] = out["explore"]["wall_median"] / out["fc-solve"]["wall_median"]
        out["cpu_ratio"] = out["explore"]["cpu_median"] / max(1e-9, out["fc-solve"]["cpu_median"])
    seconds, cpu = [], []
    for _ in range(reps):
        c = time.process_time()
        r = search.explore(deals.ms_deal(DEAL), stop_on_win=False)
        cpu.append(time.process_time() - c)
        seconds.append(r.seconds)
        out["search_states"] = r.states
        r.close()
    out["search_ms_best"], out["search_ms_median"] = min(seconds) * 1e3, statistics.median(seconds) * 1e3
    out["search_cpu_ms_best"] = min(cpu) * 1e3       # processor time: what a shared machine leaves comparable
    rss = {}
    for n in (RSS_SMALL, RSS_BIG):
        rss[n] = _peak_rss([sys.executable, "-m", "solver", "explore", "--deal", str(RSS_DEAL), "--cells",
                            str(RSS_CELLS), "--max-states", str(n), "--no-progress"])
    if None not in rss.values():
        out["store_bytes_per_state"] = (rss[RSS_BIG] - rss[RSS_SMALL]) / (RSS_BIG - RSS_SMALL)
    out["rss"] = rss
    out["survey"] = bench_survey(survey)
    if prove:
        out["prove"] = bench_prove_process()
    return out


def report_speed(sp):
    print(f"  issue 35 (load average {' '.join(f'{x:.2f}' for x in sp['load'])}):")
    ex = sp["explore"]
    if "fc-solve" in sp:
        fc = sp["fc-solve"]
        print(f"    `python -m solver explore --deal {DEAL}` against `fc-solve` on its board, medians of {FCS_RUNS} "
              f"processes each: wall {ex['wall_median'] * 1e3:.0f} / {fc['wall_median'] * 1e3:.0f} ms = "
              f"{sp['wall_ratio']:.2f} (target <= 1: {'ok' if sp['wall_ratio'] <= 1 else 'MISSED'}); processor "
              f"{ex['cpu_median'] * 1e3:.0f} / {fc['cpu_median'] * 1e3:.0f} ms = {sp['cpu_ratio']:.2f}")
    else:
        print(f"    `python -m solver explore --deal {DEAL}`: wall {ex['wall_median'] * 1e3:.0f} ms (median of "
              f"{FCS_RUNS}); fc-solve not found (Debian: freecell-solver-bin)")
    print(f"    the C search of its {sp['search_states']:,} positions: best {sp['search_ms_best']:.1f} ms, median "
          f"{sp['search_ms_median']:.1f} (target <= {SEARCH_TARGET_MS}: "
          f"{'ok' if sp['search_ms_best'] <= SEARCH_TARGET_MS else 'MISSED'}); best processor time "
          f"{sp['search_cpu_ms_best']:.1f} ms")
    if "store_bytes_per_state" in sp:
        b = sp["store_bytes_per_state"]
        print(f"    the store by peak RSS, deal {RSS_DEAL} with {RSS_CELLS} cells, {RSS_SMALL:,} to {RSS_BIG:,} "
              f"positions: {sp['rss'][RSS_SMALL] / 2 ** 20:.1f} to {sp['rss'][RSS_BIG] / 2 ** 20:.1f} MiB = {b:.1f} "
              f"B/position (target <= {STORE_TARGET}: {'ok' if b <= STORE_TARGET else 'MISSED'})")
    else:
        print("    the store by peak RSS: not measured (no /usr/bin/time, or the search failed)")
    sv = sp["survey"]
    head = f"    `certgen survey {sv['first']}-{sv['last']} --jobs 1`"
    if "fcs" in sv:
        print(f"{head} against `freecell-solver-range-parallel-solve {sv['first']} {sv['last']} 1 -l lg` (load "
              f"{sv['load'][0]:.2f}): wall {sv['survey']['wall']:.2f} / {sv['fcs']['wall']:.2f} s = {sv['wall_ratio']:.2f} "
              f"(target <= {SURVEY_TARGET}: {'ok' if sv['wall_ratio'] <= SURVEY_TARGET else 'MISSED'}); processor "
              f"{sv['survey']['cpu']:.2f} / {sv['fcs']['cpu']:.2f} s = {sv['cpu_ratio']:.2f}"
              + ("" if sv["survey"]["exit"] == 0 else f"; the survey's exit status {sv['survey']['exit']}"))
    else:
        print(f"{head}: wall {sv['survey']['wall']:.2f} s; freecell-solver-range-parallel-solve not found "
              f"(Debian: freecell-solver-bin)")
    if "prove" in sp:
        report_prove_process(sp["prove"])


def bench_pipeline():
    from certgen import prove
    from solver.rules import STANDARD
    from solver.source import load
    from certgen import coq
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        p = prove.prepare(load(deal=DEAL), STANDARD, os.path.join(tmp, "out"), say=lambda text: None)
        prove.render_lean(p, os.path.join(tmp, "lean"), os.path.join(tmp, "out"), say=lambda text: None)
        c = time.perf_counter()
        coq.render_cert(p.cert, os.path.join(tmp, "coq"))
        p.phases["render_coq"] = time.perf_counter() - c
        wall = time.perf_counter() - t
    return {"phases": {k: p.phases.get(k, 0.0) for k in PHASES}, "wall": wall, "valid": p.check.ok}


PROVE_RUNS = 3
COQC_PRINTED = re.compile(r"\(coqc (\d+(?:\.\d+)?) s, peak ")       # prove's closing line: "(coqc 25.6 s, peak …"


COQC_SHIM = """#!/bin/sh
# coqc, its wall time appended to $FCP_COQC_LOG (bench item 5: the Coq step's time, every coqc run of it)
t0=$(date +%s.%N)
@COQC@ "$@"
rc=$?
echo "$t0 $(date +%s.%N)" >> "$FCP_COQC_LOG"
exit $rc
"""


def _coqc_shim(folder):
    """A folder with a `coqc` that runs the real one (by its absolute path: coqc runs in folders of its own) and
    logs each run's wall time (the Coq step's time)."""
    from certgen.paths import on_path
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "coqc")
    with open(path, "w") as f:
        f.write(COQC_SHIM.replace("@COQC@", shlex.quote(on_path("coqc"))))
    os.chmod(path, 0o755)
    return folder


def _prove_run(root, out, coq, shim=None):
    """One `python -m certgen prove --deal DEAL` process of the checkout ``root`` (its own .venv's Python) writing
    into the folder ``out``, as a user runs it: with ``coq`` coqc on PATH (through ``shim``, which logs every coqc
    run), else no prover on PATH (LEAN_BOOTSTRAP=0 either way). (wall seconds, coqc's wall seconds on the module
    as prove prints it or None, every coqc run's wall seconds summed, exit status, its check line.)"""
    python = sys.executable if root == ROOT else os.path.join(root, ".venv", "bin", "python")
    env = dict(_user_env(), LEAN_BOOTSTRAP="0")
    log = out + ".coqc-times"
    if not coq:
        env["PATH"] = os.path.dirname(python)
    elif shim:
        env.update(PATH=shim + os.pathsep + env.get("PATH", ""), FCP_COQC_LOG=log)
    if os.path.exists(log):
        os.remove(log)
    cmd = [python, "-m", "certgen", "prove", "--deal", str(DEAL), "--out-dir", out, "--lean-dir",
           os.path.join(out, "lean"), "--no-progress"]
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    wall = time.perf_counter() - t
    text = p.stdout.decode(errors="replace")
    m = COQC_PRINTED.search(text)
    every = 0.0
    if os.path.exists(log):
        with open(log) as f:
            every = sum(float(b) - float(a) for a, b in (line.split() for line in f if line.strip()))
    check = next((line for line in text.splitlines() if line.startswith("2/4 check")), None)
    return wall, (float(m.group(1)) if m else None), every, p.returncode, check


def bench_prove_process(other=None, runs=PROVE_RUNS):
    """Item 5: the whole prove process of #11982, ``runs`` times (with ``other``, another checkout's, alternating
    with this one's). With coqc on PATH, its Coq library built first in the run's folder (one run each, not
    counted): wall minus the Coq step's wall -- every coqc run of it (the module, the driver, Spec.v compiled
    again), logged by a coqc shim -- median and best: the target; beside it wall minus coqc's on the module alone
    (as prove prints it); then one run with no prover on PATH (the Python reference on every member)."""
    roots = [ROOT] + ([os.path.abspath(other)] if other else [])
    coq = shutil.which("coqc") is not None
    out = {"load": os.getloadavg(), "coqc": coq, "runs": runs, "roots": {}}
    with tempfile.TemporaryDirectory() as tmp:
        shim = _coqc_shim(os.path.join(tmp, "shim")) if coq else None
        folders = {root: os.path.join(tmp, str(i)) for i, root in enumerate(roots)}
        got = {root: [] for root in roots}
        if coq:
            for root in roots:
                _prove_run(root, folders[root], True, shim)         # the Coq library compiled into the folder
            for _ in range(runs):
                for root in roots:
                    got[root].append(_prove_run(root, folders[root], True, shim))
        for root in roots:
            r = out["roots"][root] = {}
            done = [(w, c, e) for w, c, e, code, _k in got[root] if c is not None and code == 0]
            if done:
                less = [w - e for w, _c, e in done]
                r.update(without_coq_median=statistics.median(less), without_coq_best=min(less),
                         without_coqc_median=statistics.median(w - c for w, c, _e in done),
                         wall_median=statistics.median(w for w, _c, _e in done),
                         coqc_median=statistics.median(c for _w, c, _e in done),
                         coq_step_median=statistics.median(e for _w, _c, e in done), proven=len(done),
                         check=got[root][-1][4])
            wall, _c, _e, code, check = _prove_run(root, os.path.join(tmp, f"none{len(out['roots'])}"), False)
            r.update(no_prover_wall=wall, no_prover_exit=code, no_prover_check=check)
    out["load_after"] = os.getloadavg()
    mine = out["roots"][ROOT]
    out["ok"] = mine.get("without_coq_median", float("inf")) <= PROVE_TARGET
    return out


def report_prove_process(pr):
    print(f"  the whole `python -m certgen prove --deal {DEAL}` process (load average {pr['load'][0]:.2f} before, "
          f"{pr['load_after'][0]:.2f} after):")
    for root, r in pr["roots"].items():
        print(f"    {root}:")
        if "without_coq_median" in r:
            print(f"      coqc on PATH, {r['proven']} proven of {pr['runs']}: wall minus the Coq step (every coqc run) median "
                  f"{r['without_coq_median']:.2f} s, best {r['without_coq_best']:.2f} s"
                  f"{' (target <= %.0f s: %s)' % (PROVE_TARGET, 'ok' if pr['ok'] else 'MISSED') if root == ROOT else ''}; "
                  f"wall {r['wall_median']:.2f}, the Coq step {r['coq_step_median']:.1f}, of it coqc on the module "
                  f"{r['coqc_median']:.1f} (wall minus that alone: {r['without_coqc_median']:.2f})")
            print(f"        {r['check']}")
        elif pr["coqc"]:
            print("      coqc on PATH: no run proved it")
        else:
            print("      coqc is not on PATH: the target's figure is not measured")
        print(f"      no prover on PATH: wall {r['no_prover_wall']:.2f} s, exit {r['no_prover_exit']}")
        print(f"        {r['no_prover_check']}")


def bench_big():
    from solver import deals, search
    from solver.rules import STANDARD
    from solver.lines import judge
    t = time.perf_counter()
    r = search.explore(deals.ms_deal(1), max_states=2_000_000, order="bfs")
    wall = time.perf_counter() - t
    row = {"deal": 1, "max_states": 2_000_000, "states": r.states, "status": r.status,
           "verdict": judge(deals.ms_deal(1), r, STANDARD)[0], "seconds": r.seconds, "wall": wall,
           "memory_mib": r.search.memory() / 2 ** 20,
           "self_max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    r.close()
    return row


STORE_TARGET = 24          # bytes per stored position, hash table included (issue 15)
STORE_RUNS = ((1474422072, None), (24795893, 100_000_000))   # 2,951,466 positions (all); 100 M (cut off)


def child_store(deal, cap, order):
    """The store's child process (bench_store): one enumeration, its figures as one JSON line."""
    from solver import deals, search
    t = time.perf_counter()
    r = search.explore(deals.ms_deal(int(deal)), max_states=int(cap) or None, stop_on_win=False, order=order)
    print(json.dumps({"states": r.states, "status": r.status, "seconds": r.seconds, "wall": time.perf_counter() - t,
                      "memory_bytes": r.search.memory(), "overflow": r.search.overflow()}))


def bench_store(big, order="dfs"):
    """Bytes per stored position in the C core's enumeration store (fc_search_memory: keys, hash table at its
    working load, parent bitmap, DFS stack) and states/s, each run in its own process (peak RSS by
    /usr/bin/time when present): deal 1474422072 enumerated whole (2,951,466 positions), and with
    `big` deal 24795893 cut off at 100,000,000 positions (about 2.3 GB, minutes)."""
    rows = []
    for deal, cap in STORE_RUNS if big else STORE_RUNS[:1]:
        cmd = _child_cmd("store", deal, cap or 0, order)
        timed = os.path.exists("/usr/bin/time")
        if timed:
            cmd = ["/usr/bin/time", "-f", "maxrss_kib %M"] + cmd
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        if p.returncode != 0:
            rows.append({"deal": deal, "error": (p.stderr.strip().splitlines() or ["failed"])[-1]})
            continue
        row = json.loads(p.stdout.strip().splitlines()[-1])
        rss = re.search(r"maxrss_kib (\d+)", p.stderr) if timed else None
        row.update(deal=deal, max_states=cap, order=order,
                   bytes_per_state=row["memory_bytes"] / row["states"],
                   states_per_s=row["states"] / row["seconds"],
                   max_rss_bytes_per_state=int(rss.group(1)) * 1024 / row["states"] if rss else None)
        row["ok"] = row["bytes_per_state"] <= STORE_TARGET
        rows.append(row)
    return rows


DDD_DEAL, DDD_MEMORY = 1474422072, "16M"     # 2,951,466 positions; the in-memory store needs about 70 MB


def _child(args):
    """`python ARGS` in its own process: (stdout, peak RSS in bytes or None, wall seconds, exit status)."""
    cmd = [sys.executable] + args
    timed = os.path.exists("/usr/bin/time")
    if timed:
        cmd = ["/usr/bin/time", "-f", "maxrss_kib %M"] + cmd
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t
    rss = re.search(r"maxrss_kib (\d+)", p.stderr) if timed else None
    return p.stdout, int(rss.group(1)) * 1024 if rss else None, wall, p.returncode


def bench_ddd(memory=DDD_MEMORY):
    """The enumeration past memory against the in-memory one, in one run, each in its own process: `explore
    --deal 1474422072` with and without `--memory 16M` (positions/s of the search, wall, peak RSS, disk at
    most), then `certgen build` both ways (wall, peak RSS, and the same certificate body)."""
    import msgpack
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, extra in (("memory", []), ("disk", ["--memory", memory, "--tmp", tmp])):
            out, rss, wall, code = _child(["-m", "solver", "explore", "--deal", str(DDD_DEAL), "--json"] + extra)
            if code != 0:
                rows[name] = {"error": f"exit {code}"}
                continue
            obj = json.loads(out)
            row = {"states": obj["states"], "verdict": obj["verdict"], "seconds": obj["seconds"], "wall": wall,
                   "states_per_s": obj["states"] / obj["seconds"], "max_rss_bytes": rss}
            if "disk" in obj:
                row.update(obj["disk"], disk_bytes_per_state=obj["disk"]["disk_peak_bytes"] / obj["states"])
            cert = os.path.join(tmp, f"{name}.cert")
            _out, brss, bwall, bcode = _child(["-m", "certgen", "build", "--deal", str(DDD_DEAL), "--out", cert]
                                              + extra)
            row["build"] = {"wall": bwall, "max_rss_bytes": brss, "exit": bcode,
                            "bytes": os.path.getsize(cert) if bcode == 0 else None}
            rows[name] = row
        bodies = [msgpack.unpackb(open(os.path.join(tmp, f"{n}.cert"), "rb").read())["body"]
                  for n in ("memory", "disk") if rows.get(n, {}).get("build", {}).get("exit") == 0]
        rows["same_body"] = len(bodies) == 2 and bodies[0] == bodies[1]
        rows["left_in_tmp"] = sorted(set(os.listdir(tmp)) - {"memory.cert", "disk.cert"})
    rows.update(deal=DDD_DEAL, memory_flag=memory, load=os.getloadavg())
    return rows


DDD_BIG = (24795893, 1 << 30, 100_000_000)    # deal, --memory (bytes), cut off at this many positions


def child_ddd_big(deal, memory, cap, step, folder):
    """The big disk search's child process (bench_ddd_big): the search, its time at every `step` positions, as one
    JSON line."""
    from solver import deals, disksearch, search
    from solver.rules import STANDARD
    deal, memory, cap, step = (int(a) for a in (deal, memory, cap, step))
    s = disksearch.DiskSearch(deals.ms_deal(deal), STANDARD, memory, folder, cap)
    t0, c0, marks, mark = time.perf_counter(), time.process_time(), [], step
    try:
        while True:
            status = search.lib.fc_ddd_run(s._d, 8192)
            x = s.stats()
            while x.states >= mark:
                marks.append({"states": mark, "seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                              "layer": x.layer, "disk": x.disk})
                mark += step
            if status != 0:
                break
        print(json.dumps({"status": status, "states": x.states, "layers": x.layer + 1, "runs": x.runs,
                          "disk_peak": x.disk_peak, "seconds": time.perf_counter() - t0,
                          "cpu": time.process_time() - c0, "marks": marks}))
    finally:
        s.close()


CHILDREN = {"store": child_store, "ddd-big": child_ddd_big}


def _child_cmd(name, *args):
    """The command of a child process of this module (run in ROOT): `python -m scripts.bench --child NAME ARGS`."""
    return [sys.executable, "-m", "scripts.bench", "--child", name] + [str(a) for a in args]


def bench_ddd_big(deal=DDD_BIG[0], memory=DDD_BIG[1], cap=DDD_BIG[2], step=10_000_000):
    """The disk search alone (no in-memory attempt) on a deal too big to finish, cut off at `cap` positions:
    the time at every `step` positions (the rate falls as the visited files every layer is merged against
    grow), disk at most, peak RSS; one process."""
    with tempfile.TemporaryDirectory() as tmp:
        out, rss, wall, code = _child(_child_cmd("ddd-big", deal, memory, cap, step, tmp)[1:])
        if code != 0:
            return {"error": f"exit {code}"}
        row = json.loads(out.strip().splitlines()[-1])
    row.update(deal=deal, memory=memory, cap=cap, max_rss_bytes=rss, wall=wall, load=os.getloadavg(),
               disk_peak_per_state=row["disk_peak"] / row["states"])
    prev = {"states": 0, "seconds": 0.0, "cpu": 0.0}
    for m in row["marks"]:      # positions a second of this step: wall, and processor time (the machine is shared)
        m["rate"] = (m["states"] - prev["states"]) / (m["seconds"] - prev["seconds"])
        m["cpu_rate"] = (m["states"] - prev["states"]) / max(1e-9, m["cpu"] - prev["cpu"])
        prev = m
    return row


def bench_checkers():
    """Both certificate checkers on one certificate file of deal 11982, in one run."""
    import tempfile
    from certgen import certificate, checker, fastcheck
    from solver import deals, search
    start = deals.ms_deal(DEAL)
    r = search.explore(start)
    cert = certificate.make({"kind": "ms", "deal": DEAL}, {"cells": 4, "foundation_return": False}, start,
                            r.records())
    row = {"states": cert.states}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"D{DEAL}.cert")
        certificate.write(path, cert)
        row["bytes"] = os.path.getsize(path)
        exe = fastcheck.binary()
        if exe is None or certificate.VERSION < 2:
            row["fast"] = {"available": False, "why": fastcheck.why_not() if exe is None else
                           f"certificates here are format version {certificate.VERSION}; fccheck reads versions 2 and 3"}
        else:
            t = time.perf_counter()
            res = fastcheck.check(path, exe=exe)
            wall = time.perf_counter() - t
            row["fast"] = {"available": True, "valid": res.ok, "message": res.message, "process_wall": wall,
                           "read_seconds": res.read_seconds, "check_seconds": res.check_seconds,
                           "check_cpu_seconds": res.check_cpu_seconds,
                           "states_per_s": cert.states / wall, "check_states_per_s": cert.states / res.check_seconds,
                           "check_cpu_states_per_s": cert.states / res.check_cpu_seconds}
        t = time.perf_counter()
        back = certificate.read(path)
        read = time.perf_counter() - t
        t = time.perf_counter()
        ref = checker.check(back)
        check = time.perf_counter() - t
    row["python"] = {"valid": ref.ok, "message": checker.report(ref), "read_seconds": read, "check_seconds": check,
                     "states_per_s": cert.states / (read + check), "check_states_per_s": cert.states / check}
    if row["fast"]["available"]:
        row["same_verdict"] = row["fast"]["valid"] == ref.ok and row["fast"]["message"] == ref.message
        row["ratio"] = row["fast"]["states_per_s"] / row["python"]["states_per_s"]
    return row


FCCHECK_DEALS = (11982, 1474422072)      # 84,767 and 2,951,466 positions
FCCHECK_HELD_TARGET = 16                 # bytes a position held for the records
FCCHECK_RATE_TARGET = 1_000_000          # positions a second, processor time


def _fccheck_run(exe, path):
    """One process of `exe --json path`: its JSON and the peak RSS (KiB; None without /usr/bin/time)."""
    cmd = [exe, "--json", path]
    timed = os.path.exists("/usr/bin/time")
    if timed:
        cmd = ["/usr/bin/time", "-f", "maxrss_kib %M"] + cmd
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode not in (0, 1):
        raise RuntimeError((p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[0])
    rss = re.search(r"maxrss_kib (\d+)", p.stderr) if timed else None
    return json.loads(p.stdout.strip().splitlines()[-1]), wall, int(rss.group(1)) if rss else None


def bench_fccheck(certs=(), other=None, runs=3):
    """The fast checker (and `other`, another build of it) on each certificate, each run its own process,
    the run of least processor time kept."""
    from certgen import fastcheck
    exes = [e for e in (fastcheck.binary(), other) if e]
    if not exes:
        return {"available": False, "why": fastcheck.why_not()}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = list(certs)
        for deal in FCCHECK_DEALS if not certs else ():
            path = os.path.join(tmp, f"D{deal}.cert")
            p = subprocess.run([sys.executable, "-m", "certgen", "build", "--deal", str(deal), "--out", path,
                                "--max-states", "5000000", "--no-progress"], cwd=ROOT, capture_output=True, text=True)
            if p.returncode != 0:
                return {"available": False, "why": f"certgen build --deal {deal}: " +
                        (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]}
            paths.append(path)
        load = os.getloadavg()
        for path in paths:
            for exe in exes:
                best = None
                for _ in range(runs):
                    obj, wall, rss = _fccheck_run(exe, path)
                    if best is None or obj["check_cpu_seconds"] < best[0]["check_cpu_seconds"]:
                        best = (obj, wall, rss)
                obj, wall, rss = best
                n = obj["states"]
                held = obj.get("held_bytes")   # None: a build before the compact records
                rows.append({"certificate": os.path.basename(path), "bytes": os.path.getsize(path), "exe": exe,
                             "states": n, "valid": obj["valid"], "process_wall": wall,
                             "read_seconds": obj["read_seconds"], "check_seconds": obj["check_seconds"],
                             "check_cpu_seconds": obj["check_cpu_seconds"],
                             "cpu_states_per_s": n / obj["check_cpu_seconds"] if obj["check_cpu_seconds"] else None,
                             "wall_states_per_s": n / wall,
                             "held_bytes_per_state": held / n if held is not None and n else None,
                             "max_rss_bytes_per_state": rss * 1024 / n if rss and n else None, "max_rss_kib": rss})
    return {"available": True, "load": load, "runs": runs, "rows": rows}


CERTIFY_FIRST = 2 ** 31                  # the deals above it: those the list run (1..2^31-1) does not reach
CERTIFY_LIMITS = (1_000_000, 80_000_000)  # max_states, canonical_max_states: the list run's
CERTIFY_SLICE = 10                       # deals a process, the two checkouts alternating slice by slice
CERTIFY_TARGET = 2.0                     # deals a processor second
# One process of a checkout: certify_deal on each deal given, one JSON row a deal on stdout (its own code: run by
# another checkout's Python in that checkout, it needs nothing of this script).
CERTIFY_CHILD = """import json, sys, tempfile
from certgen import certify
max_states, canonical = map(int, sys.argv[1:3])
with tempfile.TemporaryDirectory() as tmp:
    for n in map(int, sys.argv[3:]):
        row = certify.certify_deal({"deal": n, "max_states": max_states, "canonical_max_states": canonical,
                                    "memory": None, "tmp": tmp, "certs": None})
        print(json.dumps(row), flush=True)
"""


def bench_certify(list_path, count=300, other=None):
    """certify_deal on the first `count` listed deals above CERTIFY_FIRST, in this checkout and (``other``) in
    another, CERTIFY_SLICE deals a process, alternating: deals a processor second (the rows' `seconds`), by
    form, with the load average before and after."""
    from certgen import certify
    deals = [n for n in certify.read_list(list_path) if n > CERTIFY_FIRST][:count]
    roots = [ROOT] + ([os.path.abspath(other)] if other else [])
    rows = {r: [] for r in roots}
    load = os.getloadavg()
    for k, first in enumerate(range(0, len(deals), CERTIFY_SLICE)):
        part = deals[first:first + CERTIFY_SLICE]
        for root in roots if k % 2 == 0 else roots[::-1]:
            p = subprocess.run([os.path.join(root, ".venv", "bin", "python"), "-c", CERTIFY_CHILD,
                                *map(str, CERTIFY_LIMITS), *map(str, part)], cwd=root, capture_output=True, text=True)
            if p.returncode != 0:
                raise FreecellError(f"certify_deal in {root}: " + (p.stderr.strip().splitlines() or
                                                                    [f"exit status {p.returncode}"])[-1])
            rows[root] += [json.loads(line) for line in p.stdout.splitlines()]
    out = {"deals": len(deals), "first": deals[0] if deals else None, "last": deals[-1] if deals else None,
           "limits": CERTIFY_LIMITS, "load_before": load, "load_after": os.getloadavg(), "runs": []}
    for root in roots:
        forms = {}
        for r in rows[root]:
            f = forms.setdefault(r["form"], {"deals": 0, "seconds": 0.0})
            f["deals"] += 1
            f["seconds"] += r["seconds"]
        secs = sum(r["seconds"] for r in rows[root])
        out["runs"].append({"root": root, "seconds": secs, "deals_per_cpu_s": len(rows[root]) / secs if secs else None,
                            "forms": forms})
    if other:
        key = lambda r: (r["deal"], r["form"], r["positions"], r["records_sha256"])     # noqa: E731
        out["same_rows"] = [key(r) for r in rows[roots[0]]] == [key(r) for r in rows[roots[1]]]
        out["ratio"] = out["runs"][0]["deals_per_cpu_s"] / out["runs"][1]["deals_per_cpu_s"]
    return out


def report_certify(c):
    print(f"certify_deal on {c['deals']} listed deals above 2^31 ({c['first']} .. {c['last']}; max_states "
          f"{c['limits'][0]:,}, canonical {c['limits'][1]:,}; load average "
          f"{' '.join(f'{x:.2f}' for x in c['load_before'])} before, "
          f"{' '.join(f'{x:.2f}' for x in c['load_after'])} after):")
    for r in c["runs"]:
        forms = ", ".join(f"{f} {v['deals']} in {v['seconds']:.1f} s" for f, v in sorted(r["forms"].items()))
        rate = r["deals_per_cpu_s"] or 0
        print(f"  {r['root']}: {r['seconds']:.1f} processor s = {rate:.3f} deals a core-second "
              f"(target >= {CERTIFY_TARGET}: {'ok' if rate >= CERTIFY_TARGET else 'MISSED'}); {forms}")
    if "ratio" in c:
        print(f"  this checkout / the other: {c['ratio']:.2f}x; the same rows: {'yes' if c['same_rows'] else 'NO'}")


def bench_coq():
    """Deal 11982: the Python checker on its certificate, and the Coq check (render + coqc: Coq's own search)."""
    import tempfile
    from certgen import certificate, checker, coq, coqcheck
    from solver import deals, search
    coqc = coqcheck.find_coqc()
    if coqc is None:
        return {"available": False, "error": "no coqc (Debian: apt-get install coq)"}
    start = deals.ms_deal(DEAL)
    r = search.explore(start)
    cert = certificate.make({"kind": "ms", "deal": DEAL}, {"cells": 4, "foundation_return": False}, start,
                            r.records())
    r.close()
    t = time.perf_counter()
    res = checker.check(cert)
    py_s = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as out:
        err = coqcheck.build_library(coqc, out)
        if err:
            return {"available": False, "error": err}
        t = time.perf_counter()
        path, _ = coq.render_cert(cert, out)
        render_s = time.perf_counter() - t
        run = coqcheck.run_coqc(coqc, path, out)
    return {"available": True, "states": cert.states, "python_valid": res.ok, "python_seconds": py_s,
            "render_seconds": render_s, "coq_ok": run.ok, "coqc_seconds": run.seconds,
            "coqc_max_rss_mib": run.max_rss_kib / 1024, "ratio": run.seconds / py_s}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:                 # one of this script's child processes (CHILDREN)
        child = CHILDREN.get(argv[1] if len(argv) > 1 else None)
        if child is None or len(argv) - 2 != child.__code__.co_argcount:
            raise FreecellError(f"--child takes one of {', '.join(CHILDREN)} and its arguments (the processes this "
                                f"script starts itself)")
        child(*argv[2:])
        return 0
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument("--reps", type=whole_arg("--reps", 1, 1000), default=5, help="C runs (best is kept), default 5")
    ap.add_argument("--py-states", type=whole_arg("--py-states", 1, 10 ** 9), default=20000,
                    help="states the Python spec search expands (default 20000, ~1 s)")
    ap.add_argument("--py-full", action="store_true", help="let the Python search finish (~5 s)")
    ap.add_argument("--cli-runs", type=whole_arg("--cli-runs", 1, 1000), default=7, help="CLI process runs, default 7")
    ap.add_argument("--big", action="store_true", help="also deal 1 cut off at 2,000,000 states")
    ap.add_argument("--store", action="store_true",
                    help="also bytes per stored position and states/s at 2,951,466 positions (~10 s)")
    ap.add_argument("--store-big", action="store_true",
                    help="--store and also at 100,000,000 positions (~2.3 GB of memory, minutes)")
    ap.add_argument("--ddd", action="store_true",
                    help=f"also the enumeration on disk (--memory {DDD_MEMORY}) against the in-memory one on deal "
                         f"{DDD_DEAL} (2,951,466 positions): explore and certgen build, each way (~1 min)")
    ap.add_argument("--ddd-only", action="store_true", help="only the --ddd part")
    ap.add_argument("--ddd-big", action="store_true",
                    help=f"only the disk search on deal {DDD_BIG[0]} with a {DDD_BIG[1] >> 20} MiB buffer, cut off at "
                         f"{DDD_BIG[2]:,} positions: the rate every 10,000,000 (several minutes, ~1.1 GB of memory, "
                         f"~3 GB of disk)")
    ap.add_argument("--zlib", action="store_true",
                    help=f"only the certificate body's compression: zlib levels {ZLIB_LEVELS} on deal {ZLIB_DEAL}'s "
                         f"sorted records (time, size, extrapolated to 10^9 records; ~1 min)")
    ap.add_argument("--disk", action="store_true",
                    help="only the disk search's files: deal 219837216 to 30 M positions and 1474422072 whole "
                         "on disk, bytes a position, time (~2 min; with --disk-other twice that)")
    ap.add_argument("--disk-other", metavar="ROOT", help="with --disk: another checkout (built), run alike")
    ap.add_argument("--certify", metavar="LIST",
                    help="only certify-list's throughput: certify_deal on the first --certify-deals listed deals of "
                         "LIST above 2^31, deals a processor second (300 deals: about 10 processor minutes)")
    ap.add_argument("--certify-deals", type=whole_arg("--certify-deals", 1, 10 ** 6), default=300,
                    help="with --certify: how many deals (default 300)")
    ap.add_argument("--certify-other", metavar="ROOT",
                    help="with --certify: another checkout (set up, e.g. main's) run alike, alternating")
    ap.add_argument("--no-prove", action="store_true", help="leave out the prove pipeline (about 10 s, and the prove processes: with coqc 3 times its 25-40 s)")
    ap.add_argument("--no-checkers", action="store_true", help="skip the two certificate checkers (~30 s)")
    ap.add_argument("--fccheck", action="store_true",
                    help="also the fast checker alone: bytes a position and positions/s on #11982 and deal "
                         "1474422072 (builds its certificate, ~1 min)")
    ap.add_argument("--fccheck-cert", action="append", default=[], metavar="CERT",
                    help="with --fccheck: this certificate instead of building the two (may be repeated)")
    ap.add_argument("--fccheck-other", metavar="EXE", help="with --fccheck: another build of fccheck, run alike")
    ap.add_argument("--coq", action="store_true", help="also the Python checker against coqc on #11982 (~1 min)")
    ap.add_argument("--play", action="store_true", help="also the play page (scripts/bench_play.py)")
    ap.add_argument("--speed", action="store_true",
                    help="only issue 35's figures: explore against fc-solve (medians of 5), the C search's time, the "
                         "store's bytes a position by peak RSS, the survey against Freecell Solver (--survey-range), "
                         "the prove process (item 5; with coqc, minutes)")
    ap.add_argument("--prove-only", action="store_true",
                    help=f"only item 5, the whole prove process ({PROVE_RUNS} runs with coqc, each about coqc's 25-40 s, "
                         f"and one without a prover)")
    ap.add_argument("--prove-other", metavar="ROOT",
                    help="with --prove-only: another checkout (set up, e.g. main's) run alike, alternating")
    ap.add_argument("--survey-range", default=SURVEY_RANGE, metavar="A-B",
                    help=f"the deals of --speed's survey against Freecell Solver (default {SURVEY_RANGE}; the target "
                         f"is for 100,000 deals, e.g. 600001-700000)")
    from scripts import bench_play
    bench_play.add_arguments(ap)
    args = ap.parse_args(argv)

    if args.ddd_big:
        res = bench_ddd_big()
        print(json.dumps(res, indent=2, sort_keys=True)) if args.json else report_ddd_big(res)
        return 0
    if args.disk:
        res = {"disk": bench_disk(args.disk_other)}
        print(json.dumps(res, indent=2, sort_keys=True)) if args.json else report_disk(res["disk"])
        return 0
    if args.certify_other and not args.certify:
        raise FreecellError("--certify-other goes with --certify")
    if args.certify_other and not os.access(os.path.join(args.certify_other, ".venv", "bin", "python"), os.X_OK):
        raise FreecellError(f"--certify-other {args.certify_other}: no .venv/bin/python there (a checkout set up by "
                            f"`make setup`)")
    if args.certify:
        res = {"certify": bench_certify(args.certify, args.certify_deals, args.certify_other)}
        print(json.dumps(res, indent=2, sort_keys=True)) if args.json else report_certify(res["certify"])
        return 0
    if args.zlib:
        res = {"zlib": bench_zlib()}
        print(json.dumps(res, indent=2, sort_keys=True)) if args.json else report_zlib(res["zlib"])
        return 0
    if args.speed:
        res = {"speed": bench_speed(args.reps, args.survey_range)}
        print(json.dumps(res, indent=2, sort_keys=True)) if args.json else report_speed(res["speed"])
        return 0
    if args.prove_other and not os.access(os.path.join(args.prove_other, ".venv", "bin", "python"), os.X_OK):
        raise FreecellError(f"--prove-other {args.prove_other}: no .venv/bin/python there (a checkout set up by "
                            f"`make setup`)")
    if args.prove_other and not args.prove_only:
        raise FreecellError("--prove-other goes with --prove-only")
    if args.prove_only:
        res = {"prove": bench_prove_process(args.prove_other)}
        print(json.dumps(res, indent=2, sort_keys=True)) if args.json else report_prove_process(res["prove"])
        return 0
    if args.ddd_only:
        res = {"ddd": bench_ddd()}
        print(json.dumps(res, indent=2, sort_keys=True)) if args.json else report_ddd(res["ddd"])
        return 0
    res = {"deal": DEAL, "c": bench_c(args.reps)}
    res["python"] = bench_python(None if args.py_full else args.py_states)
    res["ratio"] = res["c"]["states_per_s"] / res["python"]["states_per_s"]
    res["ratio_ok"] = res["ratio"] >= RATIO_TARGET
    res["python_startup"] = bench_python_startup(5)
    res["cli"] = bench_cli(args.cli_runs)
    res["speed"] = bench_speed(args.reps, args.survey_range, prove=not args.no_prove)
    if not args.no_prove:
        res["pipeline"] = bench_pipeline()
    if args.big:
        res["big"] = bench_big()
    if args.store or args.store_big:
        res["store"] = bench_store(args.store_big)
    if args.ddd:
        res["ddd"] = bench_ddd()
    if not args.no_checkers:
        res["checkers"] = bench_checkers()
    if args.fccheck:
        res["fccheck"] = bench_fccheck(args.fccheck_cert, args.fccheck_other)
    if args.coq:
        res["coq"] = bench_coq()
    if args.play:
        res["play"] = bench_play.run(args)

    if args.json:
        print(json.dumps(res, indent=2, sort_keys=True))
        return 0
    c, py, cli = res["c"], res["python"], res["cli"]
    print(f"deal {DEAL}, spec rules, breadth first")
    print(f"  C core : {c['states']:,} states (max_home {c['max_home']}, complete {c['complete']}) "
          f"in {c['seconds'] * 1e3:.1f} ms: {c['states_per_s'] / 1e6:.2f} M states/s, "
          f"{c['successors_per_s'] / 1e6:.1f} M successors/s, {c['memory_bytes'] / 2 ** 20:.1f} MiB")
    print(f"  Python : {py['expanded']:,} states expanded{' (all)' if py['complete'] else ''} "
          f"in {py['seconds']:.2f} s: {py['states_per_s']:,.0f} states/s, "
          f"{py['successors_per_s']:,.0f} successors/s")
    print(f"  ratio  : C is {res['ratio']:,.0f}x the Python spec "
          f"(target >= {RATIO_TARGET}x: {'ok' if res['ratio_ok'] else 'MISSED'})")
    print(f"  python -c pass: {res['python_startup'] * 1e3:.1f} ms (median of 5)")
    if cli["available"]:
        print(f"  CLI `python -m solver explore --deal {DEAL}` x{cli['runs']}: wall min "
              f"{cli['wall_min'] * 1e3:.1f} / median {cli['wall_median'] * 1e3:.1f} / max "
              f"{cli['wall_max'] * 1e3:.1f} ms (target <= {WALL_TARGET * 1e3:.0f}: "
              f"{'ok' if cli['wall_ok'] else 'MISSED'}); max RSS {cli['max_rss_mib']:.1f} MiB "
              f"({cli['rss_method']}; target <= {RSS_TARGET_MIB}: {'ok' if cli['rss_ok'] else 'MISSED'})")
        print(f"    says: {cli['output']}")
    else:
        print(f"  CLI not available: {cli['error']}")
    report_speed(res["speed"])
    if "pipeline" in res:
        pl = res["pipeline"]
        print(f"  prove pipeline, deal {DEAL}, in this process: "
              + ", ".join(f"{k} {v:.2f} s" for k, v in pl["phases"].items())
              + f"; all {pl['wall']:.2f} s ({'valid' if pl['valid'] else 'INVALID'})")
    if "big" in res:
        b = res["big"]
        print(f"  deal 1, max_states 2,000,000: {b['states']:,} states, status {b['status']} "
              f"(verdict {b['verdict']}), {b['seconds']:.2f} s, core memory {b['memory_mib']:.0f} MiB, "
              f"process max RSS {b['self_max_rss_mib']:.0f} MiB")
    if "store" in res:
        print(f"  enumeration store (target <= {STORE_TARGET} bytes a position, hash table included):")
        for b in res["store"]:
            if "error" in b:
                print(f"    deal {b['deal']}: not measured: {b['error']}")
                continue
            rss = (f", process peak RSS {b['max_rss_bytes_per_state']:.1f} B/position"
                   if b["max_rss_bytes_per_state"] else "")
            print(f"    deal {b['deal']} ({b['order']}): {b['states']:,} positions ({b['status']}), "
                  f"{b['bytes_per_state']:.1f} B/position ({'ok' if b['ok'] else 'MISSED'}){rss}, "
                  f"{b['states_per_s'] / 1e6:.2f} M states/s, {b['overflow']:,} overflow keys")
    if "checkers" in res:
        k = res["checkers"]
        f, p = k["fast"], k["python"]
        print(f"  certificate checkers on #{DEAL} ({k['states']:,} positions, {k['bytes']:,} bytes):")
        if f["available"]:
            print(f"    fast (build/fccheck): whole process {f['process_wall']:.3f} s = {f['states_per_s'] / 1e6:.2f} M "
                  f"positions/s; its check {f['check_seconds']:.3f} s wall = {f['check_states_per_s'] / 1e6:.2f} M/s, "
                  f"{f['check_cpu_seconds']:.3f} s processor = {f['check_cpu_states_per_s'] / 1e6:.2f} M/s "
                  f"(target >= 1 M/s); read {f['read_seconds']:.3f} s")
        else:
            print(f"    fast (build/fccheck): not run: {f['why']}")
        print(f"    Python reference: read {p['read_seconds']:.2f} s + check {p['check_seconds']:.2f} s = "
              f"{p['states_per_s']:,.0f} positions/s (check alone {p['check_states_per_s']:,.0f}/s)")
        if f["available"]:
            print(f"    same verdict: {'yes' if k['same_verdict'] else 'NO'} ({p['message'][:40]}…); fast / Python = "
                  f"{k['ratio']:,.0f}x")
    if "fccheck" in res:
        fc = res["fccheck"]
        if not fc["available"]:
            print(f"  fast checker alone: not run: {fc['why']}")
        else:
            print(f"  fast checker alone (best of {fc['runs']} processes; load average "
                  f"{' '.join(f'{x:.2f}' for x in fc['load'])}):")
            for b in fc["rows"]:
                held = (f"{b['held_bytes_per_state']:.1f} B/position held "
                        f"({'ok' if b['held_bytes_per_state'] <= FCCHECK_HELD_TARGET else 'MISSED'}), "
                        if b["held_bytes_per_state"] is not None else "")
                rss = f"peak RSS {b['max_rss_kib'] / 1024:.1f} MiB = {b['max_rss_bytes_per_state']:.1f} B/position, " \
                    if b["max_rss_kib"] else ""
                rate = b["cpu_states_per_s"] or 0
                print(f"    {b['exe']} on {b['certificate']} ({b['states']:,} positions, {b['bytes']:,} bytes, "
                      f"{'valid' if b['valid'] else 'INVALID'}): {held}{rss}read {b['read_seconds']:.2f} s, check "
                      f"{b['check_cpu_seconds']:.2f} s processor = {rate / 1e6:.2f} M/s "
                      f"({'ok' if rate >= FCCHECK_RATE_TARGET else 'MISSED'}), {b['check_seconds']:.2f} s wall; "
                      f"whole process {b['process_wall']:.2f} s = {b['wall_states_per_s'] / 1e6:.2f} M/s")
    if "coq" in res:
        q = res["coq"]
        if not q["available"]:
            print(f"  Coq not available: {q['error']}")
        else:
            print(f"  certificate of #{DEAL} ({q['states']:,} positions): Python checker "
                  f"{'valid' if q['python_valid'] else 'INVALID'} in {q['python_seconds']:.1f} s; Coq: render "
                  f"{q['render_seconds']:.1f} s ({q['words']:,} integers), coqc {'proved it' if q['coq_ok'] else 'FAILED'} "
                  f"in {q['coqc_seconds']:.1f} s, peak {q['coqc_max_rss_mib']:.0f} MiB "
                  f"(coqc / Python = {q['ratio']:.1f})")
    if "ddd" in res:
        report_ddd(res["ddd"])
    if "play" in res:
        bench_play.report(res["play"])
    return 0


ZLIB_DEAL = 1474422072                   # 2,951,466 positions: 189 MB of P64 records
ZLIB_LEVELS = (9, 6, 1)
ZLIB_PIECE = 1 << 16                     # records compressed at a time, as certificate.write_sorted does


def bench_zlib(deal=ZLIB_DEAL, levels=ZLIB_LEVELS):
    """The certificate body's compression (certgen/certificate.py: zlib over the sorted P64 records) at each
    level on a real body (deal 1474422072 enumerated in memory, its records in P64 order): processor seconds
    to compress and to inflate, bytes a record, and the compression time extrapolated to 10^9 records."""
    import zlib
    from solver import deals, search
    r = search.explore(deals.ms_deal(deal))
    blob = b"".join(r.search.sorted_batches(ZLIB_PIECE))
    n = r.states
    r.close()
    rows = []
    for level in levels:
        z = zlib.compressobj(level)
        t = time.process_time()
        parts = [z.compress(blob[i:i + ZLIB_PIECE * 64]) for i in range(0, len(blob), ZLIB_PIECE * 64)]
        parts.append(z.flush())
        cpu = time.process_time() - t
        body = b"".join(parts)
        t = time.process_time()
        same = zlib.decompress(body) == blob
        inflate = time.process_time() - t
        rows.append({"level": level, "seconds": cpu, "inflate_seconds": inflate, "bytes": len(body),
                     "bytes_per_record": len(body) / n, "records_per_s": n / cpu, "round_trip": same,
                     "hours_per_billion": 1e9 / (n / cpu) / 3600,
                     "gib_per_billion": len(body) / n * 1e9 / 2 ** 30})
    front = _front_coded(blob)
    coded = []
    for level in levels:
        t = time.process_time()
        size = len(zlib.compress(front, level))
        coded.append({"level": level, "seconds": time.process_time() - t, "bytes_per_record": size / n})
    return {"deal": deal, "records": n, "raw_bytes": len(blob), "load": os.getloadavg(), "levels": rows,
            "front_coded": {"bytes_per_record": len(front) / n, "levels": coded}}


def _front_coded(blob):
    """The sorted records front-coded (not the format: an idea measured): per record the length of the prefix
    it shares with the one before, the length of the rest up to its last non-zero byte, that rest."""
    out, prev = bytearray(), bytes(64)
    for i in range(0, len(blob), 64):
        rec = blob[i:i + 64]
        same = 0
        while rec[same] == prev[same]:
            same += 1
        end = 64
        while end > same and rec[end - 1] == 0:
            end -= 1
        out += bytes((same, end - same)) + rec[same:end]
        prev = rec
    return bytes(out)


def report_zlib(z):
    print(f"  certificate body, zlib on deal {z['deal']}'s {z['records']:,} sorted records "
          f"({z['raw_bytes'] / 1e6:,.0f} MB; load {z['load'][0]:.1f}):")
    for r in z["levels"]:
        print(f"    level {r['level']}: {r['seconds']:.2f} s processor = {r['records_per_s'] / 1e6:.2f} M records/s "
              f"({r['hours_per_billion']:.2f} h for 10^9), {r['bytes_per_record']:.2f} B/record "
              f"({r['gib_per_billion']:.2f} GiB for 10^9), inflate {r['inflate_seconds']:.2f} s"
              f"{'' if r['round_trip'] else ', ROUND TRIP FAILED'}")
    f = z["front_coded"]
    print(f"    front-coded first (not the format; {f['bytes_per_record']:.1f} B/record before zlib): "
          + ", ".join(f"level {r['level']} {r['bytes_per_record']:.2f} B/record in {r['seconds']:.2f} s"
                      for r in f["levels"]))


def report_ddd(d):
    mib = lambda b: "?" if b is None else f"{b / 2 ** 20:,.0f} MiB"     # noqa: E731
    print(f"  past memory, deal {d['deal']} (load {d['load'][0]:.1f}): explore in memory vs on disk "
          f"(--memory {d['memory_flag']})")
    for name in ("memory", "disk"):
        r = d[name]
        if "error" in r:
            print(f"    {name}: {r['error']}")
            continue
        disk = (f", {r['layers']} layers, {r['runs']} runs, disk at most {mib(r['disk_peak_bytes'])} "
                f"({r['disk_bytes_per_state']:.1f} B/position)" if name == "disk" else "")
        b = r["build"]
        print(f"    {name:6}: {r['states']:,} positions, {r['verdict']}, {r['seconds']:.2f} s in the core = "
              f"{r['states_per_s'] / 1e6:.2f} M/s, wall {r['wall']:.2f} s, peak RSS {mib(r['max_rss_bytes'])}{disk}; "
              f"certgen build wall {b['wall']:.2f} s, peak RSS {mib(b['max_rss_bytes'])}")
    if "error" not in d["memory"] and "error" not in d["disk"]:
        print(f"    disk / memory: {d['disk']['seconds'] / d['memory']['seconds']:.1f}x the time, "
              f"{d['disk']['max_rss_bytes'] / d['memory']['max_rss_bytes']:.2f}x the peak RSS; same certificate "
              f"body: {'yes' if d['same_body'] else 'NO'}; files left: {d['left_in_tmp'] or 'none'}")



DISK_RUNS = (("219837216 at 30 M", ["-m", "solver", "explore", "--deal", "219837216", "--memory", "2G", "--on-disk",
                                     "--max-states", "30000000", "--json", "--no-progress"]),
             ("1474422072 whole", ["-m", "solver", "explore", "--deal", "1474422072", "--memory", "16M",
                                   "--on-disk", "--json", "--no-progress"]))


def _disk_runs(root, tmp):
    """DISK_RUNS in the checkout `root` (its own solver), then certgen build of deal 1474422072: the figures."""
    rows = {}
    for name, args in DISK_RUNS:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        p = subprocess.run([sys.executable] + args + ["--tmp", tmp], capture_output=True, text=True, cwd=root)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode not in (0, 1):
            rows[name] = {"error": f"exit {p.returncode}: {p.stderr.strip()[-200:]}"}
            continue
        obj = json.loads(p.stdout)
        rows[name] = {"states": obj["states"], "seconds": obj["seconds"], "wall": wall,
                      "cpu": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
                      "disk_peak": obj["disk"]["disk_peak_bytes"],
                      "bytes_per_state": obj["disk"]["disk_peak_bytes"] / obj["states"],
                      "against_raw_keys": obj["disk"]["disk_peak_bytes"] / (24 * obj["states"])}
    cert = os.path.join(tmp, "d.cert")
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "certgen", "build", "--deal", "1474422072", "--memory", "16M",
                        "--on-disk", "--no-progress", "--tmp", tmp, "--out", cert], capture_output=True, text=True,
                       cwd=root)
    rows["build"] = {"wall": time.perf_counter() - t, "exit": p.returncode}
    if p.returncode == 0:
        import msgpack
        with open(cert, "rb") as fh:
            rows["build"]["body_sha256"] = hashlib.sha256(msgpack.unpackb(fh.read())["body"]).hexdigest()
        os.remove(cert)
    return rows


def bench_disk(other=None):
    """The disk search's files here (and in the checkout `other`): see the module's item 12."""
    res = {"load": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        res["here"] = _disk_runs(ROOT, tmp)
        if other:
            res["other"] = _disk_runs(os.path.abspath(other), tmp)
        res["left_in_tmp"] = os.listdir(tmp)
    return res


def report_disk(d):
    print(f"  the disk search's files (load {d['load'][0]:.1f})")
    sides = [s for s in ("here", "other") if s in d]
    for name, _ in DISK_RUNS:
        for side in sides:
            r = d[side][name]
            if "error" in r:
                print(f"    {name}, {side}: {r['error']}")
                continue
            print(f"    {name}, {side:5}: {r['states']:,} positions, disk at most {r['disk_peak'] / 1e6:,.1f} MB = "
                  f"{r['bytes_per_state']:.2f} B/position ({r['against_raw_keys']:.3f}x raw 24-byte keys), "
                  f"{r['seconds']:.1f} s in the core, {r['cpu']:.1f} s of processor, wall {r['wall']:.1f} s")
        if len(sides) == 2 and "error" not in d["here"][name] and "error" not in d["other"][name]:
            h, o = d["here"][name], d["other"][name]
            print(f"      here / other: {h['disk_peak'] / o['disk_peak']:.3f}x the disk, "
                  f"{h['seconds'] / o['seconds']:.2f}x the core's time, {h['cpu'] / o['cpu']:.2f}x the processor")
    for side in sides:
        b = d[side]["build"]
        print(f"    certgen build of 1474422072 on disk, {side}: exit {b['exit']}, wall {b['wall']:.1f} s")
    if len(sides) == 2:
        here, other = (d[s]["build"].get("body_sha256") for s in sides)
        same = here is not None and here == other
        print(f"    the same certificate body: {'yes' if same else 'NO'}")
    print(f"    files left: {d['left_in_tmp'] or 'none'}")


def report_ddd_big(r):
    if "error" in r:
        print(f"  disk search: {r['error']}")
        return
    print(f"  disk search, deal {r['deal']}, buffer {r['memory'] >> 20} MiB, cut off at {r['cap']:,} (load "
          f"{r['load'][0]:.1f}): {r['states']:,} positions in {r['seconds']:.0f} s, {r['layers']} layers, "
          f"({r['cpu']:.0f} s of processor), "
          f"{r['runs']} runs, disk at most {r['disk_peak'] / 2 ** 30:.2f} GiB ({r['disk_peak_per_state']:.1f} "
          f"B/position), peak RSS {(r['max_rss_bytes'] or 0) / 2 ** 20:,.0f} MiB")
    for m in r["marks"]:
        print(f"    {m['states']:>13,} positions at {m['seconds']:7.1f} s (layer {m['layer']}): "
              f"{m['rate'] / 1e6:.2f} M/s over the last step ({m['cpu_rate'] / 1e6:.2f} M per processor second)")


if __name__ == "__main__":
    sys.exit(one_line_errors(main))
