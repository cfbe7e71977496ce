"""The certified, resumable survey: ``python -m certgen survey A-B --dir DIR [--jobs J | --engine dask]``.

Every deal of A..B (1..8,589,934,591) is classified as solver/survey.py does (winnable: a line found and
replay-checked; unwinnable: the whole reachable set enumerated without a win; unknown: a limit stopped
it), chunk by chunk. The first pass solves the deals in C batches (solver.search.solve_deals: dealt in C,
the solver's memory kept from deal to deal, the same search and line as `solve`), and each line is
replayed to a won position by the independent checker's own dealer and rules (certgen.replay, the library
mode of checker/fccheck.c) before the deal counts as winnable; a deal the solver does not win goes
through :func:`classify` (the enumeration, then the certificate). The survey directory keeps what
matters:

    DIR/survey.json            the settings (a rerun with other settings is refused) and the first command
    DIR/chunks/A-B.json        one journal record per finished chunk (written atomically): counts, the
                               histograms, the rare rows (unwinnable, unknown; every row with --rows),
                               a SHA-256 of its content; a record that disagrees with itself is redone
    DIR/certs/Deal<N>.cert     the certificate of every unwinnable deal, checked by the independent
                               checker (certgen/checker.py) before the deal is counted as unwinnable
    DIR/second/<N>.json        the second pass of a deal unknown at the first limit (a bigger limit)
    DIR/rows.csv               the rows kept, in deal order (written at the end): deal, verdict,
                               searched_states (the solver's stored positions, not the reachable set:
                               405,246 vs the certificate's 84,767 for #11982), length, seconds, pass
    DIR/summary.json           counts, histograms, still-unknown deals, wall time, the command

A chunk is counted only once its record exists, and its certificates are written before its record, so a
survey killed at any moment (SIGKILL included) and started again with the same command redoes at most the
chunks that were running and ends with the same summary. Memory stays flat: chunks are handed out from a
counter, at most a window of them in flight, and the records are read back one at a time.

Engines: local processes (``--jobs J``; one process when J is 1) or dask.distributed (the optional extra
``cluster``: ``--engine dask`` starts a LocalCluster, ``--scheduler tcp://HOST:8786`` or
DASK_SCHEDULER_ADDRESS uses a running cluster). A chunk is a pure function of its bounds and the settings,
so a worker lost mid-chunk costs a retry of that chunk, never a deal.
"""
import concurrent.futures as cf
import csv
import hashlib
import json
import multiprocessing as mp
import os
import sys
import tempfile
import time

from solver import packed, search, solve
from solver.atomic import write_atomic
from solver.errors import FreecellError, WorkerLost
from solver.lines import LineError
from solver.progress import bar
from solver.report import plural, rules_words
from solver.rules import STANDARD, Rules
from solver.source import load
from solver.workers import LOST, orphan_watch, restore_term, signals_held, term_as_interrupt

from . import certificate, checker, fastcheck, replay

DEFAULT_CHUNK = 10_000          # deals per task (the 10^4 .. 10^5; smaller for small ranges)
MIN_CHUNKS = 50                 # a small range is still cut into about this many chunks
BATCH = 1000                    # deals per C call of the first pass (solver.search.solve_deals)
SECOND_FACTOR = 10              # the second pass: this many times the first state limit
# searched_states: the positions the solver stored for its answer (405,246 for #11982), not the size of the
# reachable set (84,767: that is the certificate's count, `certgen info`)
# seconds: the deal's processor time in the C batch (a deal the batch does not win: the wall time of classify)
ROW_FIELDS = ("deal", "verdict", "searched_states", "length", "seconds")
IDENTITY = ("first", "last", "chunk", "rules", "max_states", "second_max_states", "rows")


def default_chunk(first, last):
    return max(1, min(DEFAULT_CHUNK, -(-(last - first + 1) // MIN_CHUNKS)))


def states_bucket(states):
    """The histogram bucket of a state count: the largest power of two not above it (0 for 0)."""
    return 0 if states <= 0 else 1 << (int(states).bit_length() - 1)


# -- one chunk (runs in a worker: a pure function of its arguments) -------------------------------------

def certify(n, rules, max_states):
    """The checked certificate bytes of deal ``n`` when its whole reachable set has no won position, else
    None. The bytes are checked before they are returned: by the fast checker (build/fccheck, the file
    read as it will be stored) when it is built, else decoded again and checked by certgen/checker.py --
    both independent of the search core, as `certgen check` uses them."""
    src = load(deal=n)
    res = search.explore(src.position, rules, max_states=max_states)
    try:
        if res.won or not res.complete:
            return None
        cert = certificate.make(src.to_header(), rules.to_dict(), src.position, res.records(),
                                {"verdict": "unwinnable", "max_home": res.max_home, "survey": True})
    finally:
        res.close()
    data = certificate.encode(cert)
    if fastcheck.binary():
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, f"Deal{n}.cert")
            with open(path, "wb") as f:
                f.write(data)
            fast = fastcheck.check(path)
        ok = fast.ok and fast.start == packed.pack(src.position) and fast.rules == rules.to_dict()
    else:
        ok = checker.check(certificate.decode(data, f"Deal{n}.cert"), jobs=1).ok
    return data if ok else None


def classify(n, rules, max_states):
    """(row, certificate bytes or None) of deal ``n``; an unwinnable verdict whose certificate fails the
    check is reported as unknown (never counted as unwinnable)."""
    t = time.perf_counter()
    r = solve.solve(load(deal=n).position, rules, max_states=max_states, strict=False)   # solve's own line
    verdict, data = r.verdict, None
    if verdict == "unwinnable":
        data = certify(n, rules, max(max_states, int(r.enumerated or 0)) or search.EXPLORE_LIMIT)
        if data is None:
            verdict = "unknown"
    return [n, verdict, int(r.states), r.length, round(time.perf_counter() - t, 6)], data


def classify_range(first, last, rules, max_states):
    """(row, certificate bytes or None) of each deal first..last, in order: the deals solved in C batches
    (solver.search.solve_deals: the same search and line as :func:`classify`'s), every line replayed to
    a won position by the independent checker (certgen.replay) before the deal counts as winnable; a deal
    the solver does not win goes through :func:`classify` (the enumeration, the certificate)."""
    speedups = solve.speedups(rules)
    n = first
    while n <= last:
        batch = search.solve_deals(n, min(last - n + 1, BATCH), speedups, max_states, solve.DEFAULT_SHORTEN)
        checked = replay.batch(batch, rules.cells, rules.foundation_return)
        for i in range(batch.count):
            if batch.status[i] != search.lib.FC_WON:
                yield classify(n + i, rules, max_states)
            elif checked[i] != 0:
                what = (f"move {checked[i]} is not legal" if checked[i] <= batch.length[i]
                        else "it does not end in a won position")
                raise LineError(f"internal error: the solver's line for deal {n + i} failed the checker's "
                                f"replay ({what})")
            else:
                yield [n + i, "winnable", int(batch.states[i]), int(batch.length[i]),
                       round(batch.seconds[i], 6)], None
        n += batch.count


def run_chunk(task):
    """Classify deals ``task["first"]..task["last"]``: a dict of counts, histograms, rows, certificates."""
    rules = Rules.from_dict(task["rules"])
    counts = {"winnable": 0, "unwinnable": 0, "unknown": 0}
    lengths, states, rows, certs = {}, {}, [], {}
    seconds = 0.0
    for row, data in classify_range(task["first"], task["last"], rules, task["max_states"]):
        n = row[0]
        counts[row[1]] += 1
        seconds += row[4]
        if row[3] is not None:
            lengths[str(row[3])] = lengths.get(str(row[3]), 0) + 1
        b = str(states_bucket(row[2]))
        states[b] = states.get(b, 0) + 1
        if task["rows"] or row[1] != "winnable":
            rows.append(row)
        if data is not None:
            certs[n] = data
    return {"first": task["first"], "last": task["last"], "counts": counts, "lengths": lengths,
            "states": states, "rows": rows, "seconds": round(seconds, 6), "certs": certs}


# -- engines: each maps chunk tasks to results, at most ``window`` in flight ----------------------------

def _windowed(tasks, submit, wait_first, window):
    inflight = set()
    for t in tasks:
        while len(inflight) >= window:
            done, inflight = wait_first(inflight)
            for f in done:
                yield f.result()
        inflight.add(submit(t))
    while inflight:
        done, inflight = wait_first(inflight)
        for f in done:
            yield f.result()


def _submit_held(ex, task):
    """ex.submit with SIGINT and SIGTERM held: the first one forks the pool's processes (solver.workers.
    signals_held; orphan_watch lets them through in each)."""
    with signals_held():
        return ex.submit(run_chunk, task)


def _local(tasks, jobs):
    if jobs <= 1:
        yield from map(run_chunk, tasks)
        return
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    ex = cf.ProcessPoolExecutor(jobs, mp_context=ctx, initializer=orphan_watch, initargs=(os.getpid(),))
    old_term = term_as_interrupt()      # SIGTERM: the Ctrl-C path (the workers stopped, one line)
    try:
        try:
            yield from _windowed(tasks, lambda t: _submit_held(ex, t),
                                 lambda fs: cf.wait(fs, return_when=cf.FIRST_COMPLETED), 2 * jobs)
        except cf.process.BrokenProcessPool:
            raise WorkerLost(LOST) from None
    except BaseException:
        # Ctrl-C (or an error): stop the running chunks now instead of waiting for them; they are redone.
        for proc in list((getattr(ex, "_processes", None) or {}).values()):
            proc.terminate()
        ex.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        restore_term(old_term)
    ex.shutdown(wait=True)


def dask_client(scheduler=None, jobs=None):
    """A dask.distributed Client: the scheduler at ``scheduler`` (or DASK_SCHEDULER_ADDRESS), else a
    LocalCluster of ``jobs`` single-threaded workers. One line of error when the extra is missing."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise FreecellError("--engine dask needs dask.distributed: pip install -e '.[cluster]'") from None
    address = scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS")
    if address:
        return Client(address)
    cluster = LocalCluster(n_workers=max(1, jobs or 1), threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return Client(cluster)


def _dask(tasks, client):
    from dask.distributed import wait

    def wait_first(fs):
        r = wait(list(fs), return_when="FIRST_COMPLETED")
        return r.done, set(r.not_done)
    window = 2 * max(1, sum(client.nthreads().values()))
    yield from _windowed(tasks, lambda t: client.submit(run_chunk, t, pure=False, retries=3), wait_first, window)


# -- the directory -------------------------------------------------------------------------------------

def _json_write(path, obj):
    write_atomic(path, json.dumps(obj, sort_keys=True) + "\n")


def _json_read(path):
    """The JSON object at ``path``; a damaged file is one error line naming it."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except ValueError as exc:
        raise FreecellError(f"{path} is damaged (not valid JSON: {exc})") from None


def _cert_path(out_dir, n, rules):
    return os.path.join(out_dir, "certs", load(deal=n).stem(rules) + ".cert")


def _certs_intact(out_dir, rows, rules):
    """True when every unwinnable row's certificate is in certs/ and reads: format, version, the SHA-256
    over header and body, its start deal n's, its rules the survey's (the cheap check: the body is not
    inflated; prove-survey checks the whole set). A missing or damaged one is removed."""
    for row in rows:
        if row[1] != "unwinnable":
            continue
        path = _cert_path(out_dir, row[0], rules)
        try:
            h = certificate.read_header(path)
            ok = h["start"] == packed.pack(load(deal=row[0]).position) and h["rules"] == rules.to_dict()
        except FreecellError:
            ok = False
        if not ok:
            if os.path.lexists(path):
                os.unlink(path)
            return False
    return True


def _record_digest(rec):
    """The SHA-256 of a chunk record's content (every key but ``sha256``, as canonical JSON)."""
    body = {k: v for k, v in rec.items() if k != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _consistent(rec, name):
    """A chunk record agrees with itself: its file name is its range, the counts add up to the range's size,
    the rows kept are inside it, one a deal, and every unwinnable and unknown deal has its row (the rows are
    what the second pass and the certificates go by), the line-length histogram counts the winnable deals
    and the states histogram every deal, and its ``sha256`` is its content's. A record that does not is done
    again. (This catches damage and edits by hand; it is no defence against someone who recomputes the
    checksum: the journal is the survey's working state; the proofs are the certificates, checked again by
    prove-survey, and the lines, replayed when they were found.)"""
    def whole(v):
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    if not isinstance(rec, dict) or not all(k in rec for k in ("first", "last", "counts", "rows", "lengths",
                                                               "states", "sha256")):
        return False
    if rec["sha256"] != _record_digest(rec):
        return False
    a, b, counts, rows = rec["first"], rec["last"], rec["counts"], rec["rows"]
    if not (whole(a) and whole(b) and a <= b and name == _chunk_name(a, b)):
        return False
    if not isinstance(counts, dict) or set(counts) != {"winnable", "unwinnable", "unknown"} \
            or not all(whole(v) for v in counts.values()) or sum(counts.values()) != b - a + 1:
        return False
    if not isinstance(rows, list) or not all(isinstance(r, list) and len(r) == len(ROW_FIELDS) and whole(r[0])
                                             and a <= r[0] <= b and r[1] in counts for r in rows):
        return False
    if len({r[0] for r in rows}) != len(rows):
        return False
    for verdict in ("unwinnable", "unknown"):
        if sum(1 for r in rows if r[1] == verdict) != counts[verdict]:
            return False
    for hist, total in ((rec["lengths"], counts["winnable"]), (rec["states"], b - a + 1)):
        if not isinstance(hist, dict) or not all(whole(v) for v in hist.values()) or sum(hist.values()) != total:
            return False
    return True


def _drop_damaged(out_dir, rules):
    """Remove the chunk records that cannot be read, and those naming an unwinnable deal whose certificate
    is missing or damaged: those chunks are done again (never counted blindly)."""
    folder = os.path.join(out_dir, "chunks")
    for name in os.listdir(folder):
        if name.endswith(".json"):
            try:
                rec = _json_read(os.path.join(folder, name))
                ok = _consistent(rec, name)
            except FreecellError:
                ok = False
            if not ok or not _certs_intact(out_dir, rec["rows"], rules):
                os.unlink(os.path.join(folder, name))


def _chunk_name(a, b):
    return f"{a:010d}-{b:010d}.json"


def _setting(key, value):
    """A setting of survey.json in words, for the refusal of other settings: the rules as the free cells and
    what else they allow, a number with its thousands."""
    try:
        if key == "rules":
            r = Rules.from_dict(value)
            return plural(r.cells, "free cell") + rules_words(r._replace(cells=4))
    except (FreecellError, TypeError, AttributeError):
        pass                    # a survey.json written by hand: shown as it is
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else repr(value)


def open_dir(out_dir, settings):
    """Create the survey directory, or check that it holds a survey with the same settings."""
    path = os.path.join(out_dir, "survey.json")
    for sub in ("chunks", "certs", "second"):
        os.makedirs(os.path.join(out_dir, sub), exist_ok=True)
    if os.path.exists(path):
        old = _json_read(path)
        diff = [k for k in IDENTITY if old.get(k) != settings.get(k)]
        if diff:
            words = "; ".join(f"{k}: {_setting(k, old.get(k))} there, {_setting(k, settings.get(k))} asked"
                              for k in diff)
            raise FreecellError(f"{out_dir} holds a survey with other settings ({words}): "
                                f"use the same command, or another --dir")
        return old
    _json_write(path, settings)
    return settings


def _records(out_dir):
    """The chunk records in deal order, read one at a time."""
    folder = os.path.join(out_dir, "chunks")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            yield _json_read(os.path.join(folder, name))


def _store(out_dir, result, rules):
    """Certificates first, then the journal record (the chunk counts only once the record exists)."""
    for n, data in sorted(result.pop("certs").items()):
        write_atomic(_cert_path(out_dir, int(n), rules), data)
    result["sha256"] = _record_digest(result)
    _json_write(os.path.join(out_dir, "chunks", _chunk_name(result["first"], result["last"])), result)


def _second_pass(out_dir, settings, rules, unknown, progress):
    """Retry the first pass's unknown deals with the bigger limit; each answer journalled."""
    out = {}
    with bar(progress and bool(unknown), total=len(unknown), unit=" deals", desc="second pass") as b:
        for n in unknown:
            path = os.path.join(out_dir, "second", f"{n}.json")
            if os.path.exists(path) and not _certs_intact(out_dir, [_json_read(path)["row"]], rules):
                os.unlink(path)             # its certificate is missing or damaged: the deal is done again
            if not os.path.exists(path):
                row, data = classify(n, rules, settings["second_max_states"])
                if data is not None:
                    write_atomic(_cert_path(out_dir, n, rules), data)
                _json_write(path, {"row": row})
            out[n] = _json_read(path)["row"]
            b.update(1)
    return out


def _add(into, hist):
    for k, v in hist.items():
        into[k] = into.get(k, 0) + v


def run(first, last, out_dir, rules=STANDARD, max_states=None, second_max_states=None, chunk=None, jobs=1,
        rows=False, engine="local", scheduler=None, progress=False, command=None, client=None):
    """Survey first..last into ``out_dir`` (see the module docstring); returns the summary dict. ``client``:
    a dask.distributed Client to run on (left open)."""
    max_states = max_states or solve.DEFAULT_MAX_STATES
    settings = {"first": first, "last": last, "chunk": chunk or default_chunk(first, last),
                "rules": rules.to_dict(), "max_states": max_states,
                "second_max_states": second_max_states or SECOND_FACTOR * max_states, "rows": bool(rows),
                "command": command or " ".join(sys.argv), "started": time.time()}
    settings = open_dir(out_dir, settings)
    step = settings["chunk"]
    _drop_damaged(out_dir, rules)
    done = {int(name.split("-")[0]) for name in os.listdir(os.path.join(out_dir, "chunks"))
            if name.endswith(".json")}
    todo_deals = sum(min(a + step - 1, last) - a + 1 for a in range(first, last + 1, step) if a not in done)
    base = {"rules": settings["rules"], "max_states": max_states, "rows": settings["rows"]}
    tasks = (dict(base, first=a, last=min(a + step - 1, last)) for a in range(first, last + 1, step)
             if a not in done)
    own = None
    if client is None and (engine == "dask" or scheduler):
        client = own = dask_client(scheduler, jobs)
    if client is not None:
        results = _dask(tasks, client)
    else:
        results = _local(tasks, jobs)
    counts = {"winnable": 0, "unwinnable": 0, "unknown": 0}
    try:
        with bar(progress, total=todo_deals, unit=" deals", desc="survey", smoothing=0.05) as b:
            for res in results:
                _store(out_dir, res, rules)
                for k, v in res["counts"].items():
                    counts[k] += v
                b.update(res["last"] - res["first"] + 1)
                if hasattr(b, "set_postfix"):
                    b.set_postfix(counts, refresh=False)
    finally:
        if own is not None:
            cluster = getattr(own, "cluster", None)
            own.close()
            if cluster is not None:
                cluster.close()
    return finish(out_dir, settings, rules, progress)


def finish(out_dir, settings, rules, progress=False):
    """Add the chunk records up, run the second pass, write rows.csv and summary.json."""
    first_counts = {"winnable": 0, "unwinnable": 0, "unknown": 0}
    lengths, states, unknown, unwinnable = {}, {}, [], []
    seconds, chunks, deals = 0.0, 0, 0
    for rec in _records(out_dir):
        chunks += 1
        deals += rec["last"] - rec["first"] + 1
        _add(first_counts, rec["counts"])
        _add(lengths, rec["lengths"])
        _add(states, rec["states"])
        seconds += rec["seconds"]
        for row in rec["rows"]:
            if row[1] == "unknown":
                unknown.append(row[0])
            elif row[1] == "unwinnable":
                unwinnable.append(row[0])
    if deals != settings["last"] - settings["first"] + 1:
        raise FreecellError(f"{out_dir}: the chunk records cover {deals:,} deals, not the range's "
                            f"{settings['last'] - settings['first'] + 1:,}")
    second = _second_pass(out_dir, settings, rules, unknown, progress)
    counts = dict(first_counts)
    for n, row in second.items():
        counts["unknown"] -= 1
        counts[row[1]] += 1
        if row[1] == "unwinnable":
            unwinnable.append(n)
        if row[3] is not None:
            _add(lengths, {str(row[3]): 1})
    unwinnable.sort()
    still = sorted(n for n, row in second.items() if row[1] == "unknown")
    _write_rows(out_dir, second)
    summary = {
        "first": settings["first"], "last": settings["last"], "deals": deals, "chunks": chunks,
        "rules": settings["rules"], "max_states": settings["max_states"],
        "second_max_states": settings["second_max_states"], "counts": counts, "first_pass": first_counts,
        "unwinnable": unwinnable, "unknown": still, "second_pass": {str(n): row[1] for n, row in sorted(second.items())},
        "certificates": [load(deal=n).stem(rules) + ".cert" for n in unwinnable],
        "length_histogram": dict(sorted(lengths.items(), key=lambda kv: int(kv[0]))),
        "states_histogram": dict(sorted(states.items(), key=lambda kv: int(kv[0]))),
        "deal_seconds": round(seconds, 3), "wall_seconds": round(time.time() - settings["started"], 3),
        "command": settings["command"],
    }
    _json_write(os.path.join(out_dir, "summary.json"), summary)
    return summary


def _write_rows(out_dir, second):
    """rows.csv: every kept row in deal order (a second-pass answer replaces the first), streamed to a
    temporary file and renamed."""
    path = os.path.join(out_dir, "rows.csv")
    tmp = path + ".tmp"
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(ROW_FIELDS + ("pass",))
        for rec in _records(out_dir):
            for row in rec["rows"]:
                again = second.get(row[0])
                row, which = (again, 2) if again is not None else (row, 1)
                w.writerow([row[0], row[1], row[2], "" if row[3] is None else row[3], row[4], which])
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def comparable(summary):
    """The summary without what differs between runs (times, the command)."""
    return {k: v for k, v in summary.items() if k not in ("deal_seconds", "wall_seconds", "command")}
