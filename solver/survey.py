"""Classify every Microsoft deal in a range: ``python -m solver survey 1-32000 [--jobs J] [--out F.csv]``.

Per deal (solver.solve.solve, the call of ``python -m solver solve``: the same limit and the same line): **winnable** when the C solver found a line and
its replay passed the fast check of solver.lines (every move legal under the spec rules -- the check is
written from spec.moves and tested against it -- and the last position won); **unwinnable** only when the solver's
own search ran out and then the exhaustive enumeration of the spec rules completed without a won
position; **unknown** otherwise (the --max-states limit). The strict ``spec.moves`` replay of ``solve``
is left out here to keep the check cheap; ``--strict`` restores it.

CSV columns: deal, verdict, searched_states (positions the solver's searches stored: not the size of the
reachable set, which only a certificate counts -- 405,246 here, 84,767 there, for #11982), length (single-card moves of the
line, empty unless winnable), seconds (wall time of that deal, solving and checking).

With ``--out FILE.csv`` the survey keeps a journal (solver/journal.py) in FILE.csv.work/: each deal is
recorded as it finishes, a second survey on the same file is refused while the first runs, and a survey
killed at any moment (SIGKILL included) and started again with the same command does only the deals the
journal does not hold; FILE.csv is exported at the end.
"""
import csv
import io
import os
import statistics
import time

from . import deals, solve
from .atomic import write_atomic
from .errors import FreecellError, WorkerLost
from .journal import open_journal
from .limits import SOLVE_STATES, SURVEY_MAX_DEALS
from .numbers import digits, quoted
from .progress import bar
from .rules import STANDARD
from .sigterm import restore_term, term_as_interrupt
from .workers import end_pool, orphan_watch, pool_results, start_pool

CSV_HEADER = ("deal", "verdict", "searched_states", "length", "seconds")   # certgen/survey.py ROW_FIELDS


def parse_range(text, max_range=SURVEY_MAX_DEALS):
    """"A-B" (or "N") -> (A, B), 1 <= A <= B <= 2**33-1, at most ``max_range`` deals (None: no cap; the
    streaming survey of certgen/survey.py keeps no rows in memory); a one-line error otherwise."""
    text = str(text)
    said = quoted(text)                         # a huge one cut short: one line, not one of 100 kB
    a, sep, b = text.partition("-")
    ends = (a, b if sep else a)
    if not all(end.isascii() and end.isdigit() for end in ends):
        raise FreecellError(f"range must be A-B with whole numbers written with digits only, e.g. 1-32000, "
                            f"got {said}")
    a, b = (digits(end) for end in ends)        # None: more digits than any number is read with, past every deal
    if a is None or b is None or not 1 <= a <= b <= deals.MAX_DEAL:
        raise FreecellError(f"range must satisfy 1 <= A <= B <= {deals.MAX_DEAL}, got {said}")
    if max_range is not None and b - a + 1 > max_range:
        raise FreecellError(f"at most {max_range:,} deals in one survey (its rows are kept in memory); "
                            f"split {text!r}, or stream it: python -m certgen survey {text} --dir DIR")
    return a, b


_SETTINGS = {}


def _init(settings):
    _SETTINGS.clear()
    _SETTINGS.update(settings)


def _worker_init(parent, settings):
    """A worker of the pool: solver.workers.orphan_watch (Ctrl-C is the parent's, SIGTERM the default, the
    worker gone when the parent is), then the settings."""
    orphan_watch(parent)
    _init(settings)


def solve_deal(n):
    """One deal under the settings given to _init: (deal, verdict, states, length, seconds)."""
    st = _SETTINGS
    t = time.perf_counter()
    r = solve.solve(deals.ms_deal(n), st["rules"], max_states=st["max_states"], strict=st["strict"])
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

    def length_stats(self):
        """{"median", "mean", "max"} of the winning lines' lengths (None when there is none)."""
        ls = self.lengths()
        if not ls:
            return None
        return {"median": statistics.median(ls), "mean": round(statistics.mean(ls), 2), "max": max(ls)}

    def write_csv(self, path):
        """Written atomically (solver/atomic.py)."""
        buf = io.StringIO(newline="")
        w = csv.writer(buf)
        w.writerow(CSV_HEADER)
        for deal, verdict, states, length, sec in self.rows:
            w.writerow((deal, verdict, states, "" if length is None else length, f"{sec:.6f}"))
        return write_atomic(path, buf.getvalue())


def survey(first, last, jobs=1, rules=STANDARD, max_states=None, progress=False, strict=False, folder=None):
    """Solve every deal first..last (see the module docstring). ``jobs`` > 1 uses that many processes.
    ``folder``: the survey's job folder (its journal, solver/journal.py): every finished deal is recorded
    there at once, and a survey started again with the same settings does only the deals it does not hold."""
    settings = {"rules": rules, "max_states": max_states or SOLVE_STATES,
                "strict": bool(strict)}
    t0 = time.perf_counter()
    j = _open(folder, settings) if folder is not None else None
    old_term = term_as_interrupt()          # SIGTERM: the Ctrl-C path (the workers stopped, one line)
    try:
        done = {} if j is None else {d: row for d, _l, v, b in j.rows("deal", first, last)
                                     for row in [_journal_row(d, v, b)] if row is not None}
        rows = sorted(list(done.values()) + _solve_all([d for d in range(first, last + 1) if d not in done],
                                                       jobs, settings, progress, j))
    finally:
        restore_term(old_term)
        if j is not None:
            j.close()
    return Survey(first, last, rows, time.perf_counter() - t0, jobs, settings)


def _open(folder, settings):
    """The journal of the survey in ``folder`` (locked), holding a survey with these settings (other
    settings: one line)."""
    j = open_journal(folder, "solver survey", other="--out file")
    mine = {"rules": settings["rules"].to_dict(), "max_states": settings["max_states"], "strict": settings["strict"]}
    old = j.meta("settings")
    if old is None:
        with j.transaction():
            j.set_meta("settings", mine)
    elif old != mine:
        j.close()
        diff = ", ".join(k for k in mine if old.get(k) != mine[k])
        raise FreecellError(f"{folder} holds a survey with other settings ({diff}): use the same command, or "
                            f"another --out")
    return j


def _journal_row(d, verdict, body):
    """The row (deal, verdict, states, length, seconds) a journal record holds, or None when it holds none (a
    record written by hand with its digest: that deal is done again)."""
    def whole(v):
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    if not isinstance(body, dict) or verdict not in ("winnable", "unwinnable", "unknown"):
        return None
    states, length, seconds = body.get("states"), body.get("length"), body.get("seconds")
    if not whole(states) or not (length is None if verdict != "winnable" else whole(length)) \
            or not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        return None
    return d, verdict, states, length, seconds


def _record(j, part):
    if j is not None:
        j.record_many(("deal", r[0], {"states": r[2], "length": r[3], "seconds": r[4]}, None, r[1]) for r in part)


def _solve_all(todo, jobs, settings, progress, j=None):
    n = len(todo)
    rows = []
    with bar(progress, total=n, unit=" deals", desc="survey", smoothing=0.05) as b:
        if jobs <= 1:
            _init(settings)
            for d in todo:
                rows.append(solve_deal(d))
                _record(j, rows[-1:])
                b.update(1)
        elif todo:
            chunk = max(1, min(256, n // (jobs * 32) or 1))
            chunks = [todo[a:a + chunk] for a in range(0, n, chunk)]
            pool = start_pool(jobs, _worker_init, (os.getpid(), settings))
            lost = False
            try:
                for part in pool_results(pool, pool.imap(_solve_chunk, chunks)):
                    _record(j, part)
                    rows.extend(part)
                    b.update(len(part))
            except WorkerLost:
                lost = True
                raise
            finally:
                end_pool(pool, lost)
    return rows
