#!/usr/bin/env python3
"""Benchmark of the C search core: `make bench` (or `.venv/bin/python scripts/bench.py [--json]`).

In one run it measures
  1. the C core enumerating deal 11982 under the spec rules (solver.search.explore; best of --reps),
  2. the Python transliteration of the spec (solver.spec.moves) doing the same breadth-first search with
     a Python set -- over the first --py-states expanded states, or all of them with --py-full --
     and prints states/s of both and their ratio (target: C >= 100x),
  3. the whole command-line process `python -m solver explore --deal 11982`, --cli-runs times: wall time
     and max RSS (via /usr/bin/time -v when present, else getrusage of the children); targets 0.08 s
     and 40 MiB,
  4. with --big, deal 1 stopped at 2,000,000 states (time and memory of a large, cut-off search),
  5. with --play, the play page: first paint in headless Chromium and the hint times over deals of
     1..32000 (scripts/bench_play.py; its options --hint-step, --hint-full, --difficulty pass through).
Plain text by default, one JSON object with --json.
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

DEAL = 11982
WALL_TARGET = 0.08
RSS_TARGET_MIB = 40
RATIO_TARGET = 100


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
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    # measure the process as a user runs it: with the modules' cached bytecode (a session may export
    # PYTHONDONTWRITEBYTECODE, which makes every run recompile the package); one warm-up run writes it
    env.pop("PYTHONDONTWRITEBYTECODE", None)
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
    walls = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], cwd=ROOT)
        walls.append(time.perf_counter() - t)
    return statistics.median(walls)


def bench_big():
    from solver import deals, search
    t = time.perf_counter()
    r = search.explore(deals.ms_deal(1), max_states=2_000_000, order="bfs")
    wall = time.perf_counter() - t
    row = {"deal": 1, "max_states": 2_000_000, "states": r.states, "status": r.status,
           "verdict": r.verdict, "seconds": r.seconds, "wall": wall,
           "memory_mib": r.search.memory() / 2 ** 20,
           "self_max_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    r.close()
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    ap.add_argument("--reps", type=int, default=5, help="C runs (best is kept), default 5")
    ap.add_argument("--py-states", type=int, default=20000,
                    help="states the Python spec search expands (default 20000, ~1 s)")
    ap.add_argument("--py-full", action="store_true", help="let the Python search finish (~5 s)")
    ap.add_argument("--cli-runs", type=int, default=7, help="CLI process runs, default 7")
    ap.add_argument("--big", action="store_true", help="also deal 1 cut off at 2,000,000 states")
    ap.add_argument("--play", action="store_true", help="also the play page (scripts/bench_play.py)")
    import bench_play
    bench_play.add_arguments(ap)
    args = ap.parse_args(argv)

    res = {"deal": DEAL, "c": bench_c(args.reps)}
    res["python"] = bench_python(None if args.py_full else args.py_states)
    res["ratio"] = res["c"]["states_per_s"] / res["python"]["states_per_s"]
    res["ratio_ok"] = res["ratio"] >= RATIO_TARGET
    res["python_startup"] = bench_python_startup(5)
    res["cli"] = bench_cli(args.cli_runs)
    if args.big:
        res["big"] = bench_big()
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
    if "big" in res:
        b = res["big"]
        print(f"  deal 1, max_states 2,000,000: {b['states']:,} states, status {b['status']} "
              f"(verdict {b['verdict']}), {b['seconds']:.2f} s, core memory {b['memory_mib']:.0f} MiB, "
              f"process max RSS {b['self_max_rss_mib']:.0f} MiB")
    if "play" in res:
        bench_play.report(res["play"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
