#!/usr/bin/env python3
"""Benchmarks of the play page (`make bench` runs them with `scripts/bench.py --play`; alone:
`.venv/bin/python scripts/bench_play.py [--hint-step K | --hint-full] [--difficulty] [--json]`).

  1. page load to first paint: the server (uvicorn, in this process) and Debian's headless Chromium
     (Selenium); per run a fresh navigation with the browser cache off, read from the browser's own
     Paint Timing entries (first-paint, first-contentful-paint) and the User Timing mark the page sets
     when the board is first drawn (52 cards, after the /api/deal round trip). Target: first paint
     under 1 s.
  2. hints: the server's hint (play.hints.Hints.compute: the solver, then the replay of its line under
     spec.moves) from the start of every K-th deal of 1..32000 (--hint-step K, default 16: 2,000 deals;
     --hint-full: all 32,000, about 20 minutes on one core); median, 99th percentile and maximum.
     Target: 99th percentile under 1 s.
  3. --difficulty: the tertiles of the verified line length over deals 1..1000 (play/catalog.py's
     Easy / Medium / Hard thresholds).
"""
import json
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time

from solver.cliargs import Parser, one_line_errors, whole_arg

PAINT_TARGET = 1.0
HINT_TARGET = 1.0


def _percentile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def first_paint(runs=5):
    """Page load to first paint, in a real headless Chromium. {"available": False, "why"} without one."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        return {"available": False, "why": "no chromium / chromedriver on PATH"}
    try:
        import uvicorn
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from play.app import create_app
    except ImportError as exc:
        return {"available": False, "why": f"{exc.name} is not installed (pip install -e '.[test]')"}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cache = tempfile.mkdtemp(prefix="bench-play-")
    srv = uvicorn.Server(uvicorn.Config(create_app(cache_dir=cache, prerender_lean=False), host="127.0.0.1",
                                        port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.02)
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1440,980"):
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service(driver), options=opts)
    rows = []
    try:
        d.execute_cdp_cmd("Network.enable", {})
        d.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        d.get(f"http://127.0.0.1:{port}/static/favicon.svg")       # the browser is up before timing
        for _ in range(runs):
            d.get("about:blank")
            d.get(f"http://127.0.0.1:{port}/#deal=1")
            deadline = time.monotonic() + 20
            while True:
                got = d.execute_script(
                    "const p = {}; for (const e of performance.getEntriesByType('paint')) p[e.name] = e.startTime;"
                    "const b = performance.getEntriesByName('freecell:first-board');"
                    "p.board = b.length ? b[0].startTime : null;"
                    "p.dcl = performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd; return p;")
                if got.get("board") is not None and "first-paint" in got or time.monotonic() > deadline:
                    break
                time.sleep(0.02)
            rows.append({k: (v / 1000 if v is not None else None) for k, v in got.items()})
    finally:
        d.quit()
        srv.should_exit = True
        thread.join(10)
        shutil.rmtree(cache, ignore_errors=True)
    fp = [r["first-paint"] for r in rows]
    return {"available": True, "runs": runs, "chromium": chromium,
            "first_paint_median": statistics.median(fp), "first_paint_max": max(fp),
            "first_contentful_paint_median": statistics.median(r["first-contentful-paint"] for r in rows),
            "board_drawn_median": statistics.median(r["board"] for r in rows),
            "board_drawn_max": max(r["board"] for r in rows),
            "dom_content_loaded_median": statistics.median(r["dcl"] for r in rows),
            "ok": max(fp) < PAINT_TARGET}


def hint_times(first=1, last=32000, step=16, progress=True):
    """The server's hint from the start of deals first, first+step, ... last."""
    from play.hints import Hints
    from solver import deals
    numbers = list(range(first, last + 1, step))
    bar = None
    if progress and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=len(numbers), unit=" deals", desc="hints", leave=False)
    times, statuses, slowest = [], {}, (0.0, None)
    for n in numbers:
        start = deals.ms_deal(n)
        hints = Hints()                   # a fresh cache: every hint is a search
        t = time.perf_counter()
        h = hints.compute(start, 4)
        dt = time.perf_counter() - t
        times.append(dt)
        statuses[h["status"]] = statuses.get(h["status"], 0) + 1
        slowest = max(slowest, (dt, n))
        if bar:
            bar.update(1)
    if bar:
        bar.close()
    return {"first": first, "last": last, "step": step, "deals": len(numbers), "statuses": statuses,
            "median": statistics.median(times), "p99": _percentile(times, 0.99), "max": slowest[0],
            "slowest_deal": slowest[1], "total": sum(times), "ok": _percentile(times, 0.99) < HINT_TARGET}


def difficulty_tertiles(last=1000):
    from play import engine
    from solver import deals
    lengths = []
    for n in range(1, last + 1):
        line = engine.find_line(deals.ms_deal(n), 4, engine.PLAY_VERDICT_STATES)
        if line.verdict == "winnable":
            lengths.append(len(line.moves))
    lengths.sort()
    return {"deals": last, "winnable": len(lengths), "median": statistics.median(lengths),
            "tertile_1": lengths[len(lengths) // 3], "tertile_2": lengths[2 * len(lengths) // 3],
            "min": lengths[0], "max": lengths[-1]}


def report(res):
    fp = res.get("first_paint")
    if fp is not None:
        if fp["available"]:
            print(f"play page, {fp['runs']} loads of /#deal=1 in headless Chromium (cache off): first paint median "
                  f"{fp['first_paint_median'] * 1e3:.0f} ms, max {fp['first_paint_max'] * 1e3:.0f} ms "
                  f"(target < {PAINT_TARGET * 1e3:.0f} ms: {'ok' if fp['ok'] else 'MISSED'}); first contentful "
                  f"paint {fp['first_contentful_paint_median'] * 1e3:.0f} ms; board with the 52 cards drawn "
                  f"{fp['board_drawn_median'] * 1e3:.0f} ms (max {fp['board_drawn_max'] * 1e3:.0f} ms)")
        else:
            print(f"play page: not measured ({fp['why']})")
    h = res.get("hints")
    if h is not None:
        which = "every deal" if h["step"] == 1 else f"one deal in {h['step']}"
        print(f"hints from the start of {which} of {h['first']}..{h['last']} ({h['deals']:,} deals; "
              f"{', '.join(f'{v:,} {k}' for k, v in sorted(h['statuses'].items()))}): median "
              f"{h['median'] * 1e3:.1f} ms, 99th percentile {h['p99'] * 1e3:.1f} ms (target < "
              f"{HINT_TARGET * 1e3:.0f} ms: {'ok' if h['ok'] else 'MISSED'}), max {h['max'] * 1e3:.1f} ms "
              f"(deal {h['slowest_deal']}), {h['total']:.0f} s in all")
    t = res.get("difficulty")
    if t is not None:
        print(f"verified line lengths over deals 1..{t['deals']}: median {t['median']}, tertiles "
              f"{t['tertile_1']} / {t['tertile_2']}, range {t['min']}..{t['max']}")


def run(args):
    res = {"first_paint": first_paint(args.paint_runs)}
    step = 1 if args.hint_full else args.hint_step
    if step:
        res["hints"] = hint_times(1, 32000, step)
    if args.difficulty:
        res["difficulty"] = difficulty_tertiles()
    return res


def add_arguments(ap):
    ap.add_argument("--paint-runs", type=whole_arg("--paint-runs", 1, 1000), default=5, help="page loads in Chromium (default 5)")
    ap.add_argument("--hint-step", type=whole_arg("--hint-step", 0, 32000), default=16,
                    help="hints from every K-th deal of 1..32000 (default 16: 2,000 deals; 0: none)")
    ap.add_argument("--hint-full", action="store_true", help="hints from all 32,000 deals (~20 min)")
    ap.add_argument("--difficulty", action="store_true", help="line-length tertiles over deals 1..1000")


def main(argv=None):
    ap = Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    add_arguments(ap)
    args = ap.parse_args(argv)
    res = run(args)
    if args.json:
        print(json.dumps(res, indent=2, sort_keys=True))
    else:
        report(res)
    return 0


if __name__ == "__main__":
    sys.exit(one_line_errors(main))
