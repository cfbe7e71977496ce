"""Classify every Microsoft deal in a range: ``python -m solver survey 1-32000 [--jobs J] [--out F.csv]``.

Per deal (solver.solve.solve with the survey's settings): **winnable** when the C solver found a line and
its replay passed ``solve.check_line`` (every move legal under the spec rules -- the check is written from
spec.moves and tested against it -- and the last position won); **unwinnable** only when the solver's
own search ran out and then the exhaustive enumeration of the spec rules completed without a won
position; **unknown** otherwise (the --max-states limit). The strict ``spec.moves`` replay of ``solve``
is replaced here by ``check_line`` to keep the check cheap; ``--strict`` restores it.

CSV columns: deal, verdict, states (positions stored by the searches), length (single-card moves of the
line, empty unless winnable), seconds (wall time of that deal, solving and checking).
"""
import sys
import time

from .errors import FreecellError

CSV_HEADER = ("deal", "verdict", "states", "length", "seconds")
MAX_RANGE = 10_000_000


def parse_range(text):
    """"A-B" (or "N") -> (A, B), 1 <= A <= B <= 2**31-1; a one-line error otherwise."""
    from .deals import MAX_DEAL
    t = str(text).strip()
    a, sep, b = t.partition("-")
    if not sep:
        b = a
    a, b = a.strip(), b.strip()
    if not (a.isascii() and a.isdigit() and b.isascii() and b.isdigit() and len(a) <= 12 and len(b) <= 12):
        raise FreecellError(f"range must be A-B with whole numbers written with digits only, e.g. 1-32000, "
                            f"got {text!r}")
    a, b = int(a), int(b)
    if not 1 <= a <= b <= MAX_DEAL:
        raise FreecellError(f"range must satisfy 1 <= A <= B <= {MAX_DEAL}, got {text!r}")
    if b - a + 1 > MAX_RANGE:
        raise FreecellError(f"at most {MAX_RANGE:,} deals in one survey (its rows are kept in memory); "
                            f"split {text!r} into smaller ranges")
    return a, b


_SETTINGS = {}


def _init(settings):
    _SETTINGS.clear()
    _SETTINGS.update(settings)


def _worker_init(settings):
    """A worker of the pool ignores Ctrl-C: the parent sees it, stops the pool and says so in one line
    (otherwise every worker prints its own KeyboardInterrupt traceback)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _init(settings)


def solve_deal(n):
    """One deal under the settings given to _init: (deal, verdict, states, length, seconds)."""
    from . import deals, solve
    st = _SETTINGS
    t = time.perf_counter()
    pos = deals.ms_deal(n)
    r = solve.solve(pos, cells=st["cells"], foundation_return=st["foundation_return"],
                    max_states=st["max_states"], shorten=st["shorten"], strict=st["strict"])
    return n, r.verdict, int(r.states), r.length, time.perf_counter() - t


def _solve_chunk(deals_):
    return [solve_deal(n) for n in deals_]


class Survey:
    """The outcome: ``rows`` (deal, verdict, states, length, seconds) in deal order, ``counts``,
    ``seconds`` (wall time of the whole survey)."""

    def __init__(self, first, last, rows, seconds, jobs, settings):
        self.first, self.last = first, last
        self.rows = rows
        self.seconds = seconds
        self.jobs = jobs
        self.settings = settings
        self.counts = {"winnable": 0, "unwinnable": 0, "unknown": 0}
        for r in rows:
            self.counts[r[1]] += 1

    def deals_with(self, verdict):
        return [r[0] for r in self.rows if r[1] == verdict]

    def lengths(self):
        return [r[3] for r in self.rows if r[3] is not None]

    def summary(self):
        import statistics
        c = self.counts
        parts = []
        for v in ("winnable", "unwinnable", "unknown"):
            ds = self.deals_with(v) if v != "winnable" else []
            shown = ""
            if ds and len(ds) <= 10:
                shown = " (" + ", ".join(str(d) for d in ds) + ")"
            elif ds:
                shown = " (" + ", ".join(str(d) for d in ds[:10]) + ", ...)"
            parts.append(f"{c[v]:,} {v}{shown}")
        n = self.last - self.first + 1
        line = (f"deals {self.first}-{self.last}: " + ", ".join(parts)
                + f" in {self.seconds:.1f} s ({n / max(self.seconds, 1e-9):,.0f} deals/s, jobs {self.jobs})")
        ls = self.lengths()
        if ls:
            line += (f"; lines: median {statistics.median(ls):g}, mean {statistics.mean(ls):.1f}, "
                     f"max {max(ls)} single-card moves")
        return line

    def write_csv(self, path):
        """Written atomically (solver.atomic): no half-written CSV and no temporary left behind."""
        import csv
        import io
        from .atomic import write_atomic
        buf = io.StringIO(newline="")
        w = csv.writer(buf)
        w.writerow(CSV_HEADER)
        for deal, verdict, states, length, sec in self.rows:
            w.writerow((deal, verdict, states, "" if length is None else length, f"{sec:.6f}"))
        return write_atomic(path, buf.getvalue())


def survey(first, last, jobs=1, cells=4, foundation_return=False, max_states=None, progress=False,
           strict=False, shorten=None):
    """Solve every deal first..last (see the module docstring). ``jobs`` > 1 uses that many processes."""
    from . import solve
    settings = {"cells": cells, "foundation_return": bool(foundation_return),
                "max_states": max_states or solve.DEFAULT_MAX_STATES,
                "shorten": solve.SURVEY_SHORTEN if shorten is None else shorten, "strict": bool(strict)}
    n = last - first + 1
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=n, unit=" deals", desc="survey", file=sys.stderr, mininterval=0.25, smoothing=0.05)
    rows = []
    t0 = time.perf_counter()
    try:
        if jobs <= 1:
            _init(settings)
            for d in range(first, last + 1):
                rows.append(solve_deal(d))
                if bar is not None:
                    bar.update(1)
        else:
            import multiprocessing as mp
            chunk = max(1, min(256, n // (jobs * 32) or 1))
            chunks = [range(a, min(a + chunk, last + 1)) for a in range(first, last + 1, chunk)]
            import signal
            ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
            # Forked workers inherit SIG_IGN for SIGINT from the start (no window before _worker_init).
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                pool = ctx.Pool(jobs, initializer=_worker_init, initargs=(settings,))
            finally:
                signal.signal(signal.SIGINT, previous)
            with pool:
                for part in pool.imap(_solve_chunk, chunks):
                    rows.extend(part)
                    if bar is not None:
                        bar.update(len(part))
    finally:
        if bar is not None:
            bar.close()
    return Survey(first, last, rows, time.perf_counter() - t0, jobs, settings)
