"""The certified, resumable survey: ``python -m certgen survey A-B --dir DIR [--jobs J | --engine dask]``.

Every deal of A..B (1..8,589,934,591) is classified as solver/survey.py does (winnable: a line found and
replay-checked; unwinnable: the whole reachable set enumerated without a win; unknown: a limit stopped
it), chunk by chunk. The first pass solves the deals in C batches (solver.search.solve_deals: dealt in C,
the solver's memory kept from deal to deal, the same search and line as `solve`), and each line is
replayed to a won position by the independent checker's own dealer and rules (certgen.replay, the library
mode of checker/fccheck.c) before the deal counts as winnable; a deal the solver does not win goes
through :func:`classify` (the enumeration, then the certificate). The survey directory keeps what
matters:

    DIR/journal.sqlite         the journal (solver/journal.py: SQLite, one transaction a record, locked
                               against a second run, each record with its SHA-256): the settings (a rerun
                               with other settings is refused), the runs and their commands, one record
                               per finished chunk (counts, the histograms, the rare rows -- unwinnable,
                               unknown; every row with --rows -- and the SHA-256 of each certificate file)
                               and one per second-pass deal
    DIR/certs/Deal<N>.cert     the certificate of every unwinnable deal, checked by the fast checker (or
                               certgen/checker.py where it is not built) before the deal is counted
    DIR/rows.csv               the rows kept, in deal order (an export of the journal, at the end): deal,
                               verdict, searched_states (the solver's stored positions, not the reachable
                               set: 405,246 vs the certificate's 84,767 for #11982), length, seconds, pass
    DIR/summary.json           counts, histograms, still-unknown deals, this run's time and the total, the
                               first command and the latest

A chunk is counted only once its record exists, and its certificates are written before its record, so a
survey killed at any moment (SIGKILL included) and started again with the same command redoes at most the
chunks that were running and ends with the same summary. On a resume, a record that does not hold together
or fails its digest is done again, and so is one whose certificate is missing, or changed since the record
was written (its SHA-256 differs) and fails the fast checker. Memory stays flat: chunks are handed out from
a counter, at most a window of them in flight, and the records are read back one at a time. Only this
process writes the journal: workers (local or Dask) return their results to it.

Engines: local processes (``--jobs J``; one process when J is 1) or dask.distributed (the optional extra
``cluster``: ``--engine dask`` starts a LocalCluster, ``--scheduler tcp://HOST:8786`` or
DASK_SCHEDULER_ADDRESS uses a running cluster). A chunk is a pure function of its bounds and the settings,
so a worker lost mid-chunk costs a retry of that chunk, never a deal.
"""
import dataclasses
import hashlib
import json
import os
import tempfile
import time

from solver import packed, search, solve
from solver.atomic import reason, write_atomic
from solver.errors import FreecellError, WorkerLost
from solver.journal import JOURNAL, attach, open_journal
from solver.limits import EXPLORE_STATES, SOLVE_STATES
from solver.lines import LineError
from solver.progress import bar
from solver.report import plural, rules_words
from solver.rules import STANDARD, Rules
from solver.source import load
from solver.sigterm import restore_term, term_as_interrupt
from solver.workers import end_pool, orphan_watch, pool_windowed, start_pool, windowed

from . import certificate, fastcheck, replay

DEFAULT_CHUNK = 10_000          # deals per task (the 10^4 .. 10^5; smaller for small ranges)
MIN_CHUNKS = 50                 # a small range is still cut into about this many chunks
BATCH = 1000                    # deals per C call of the first pass (solver.search.solve_deals)
SECOND_FACTOR = 10              # the second pass: this many times the first state limit
# searched_states: the positions the solver stored for its answer (405,246 for #11982), not the size of the
# reachable set (84,767: that is the certificate's count, `certgen info`)
# seconds: the deal's processor time in the C batch (a deal the batch does not win: the wall time of classify)
ROW_FIELDS = ("deal", "verdict", "searched_states", "length", "seconds")
VERDICTS = ("winnable", "unwinnable", "unknown")
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
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, f"Deal{n}.cert")
        with open(path, "wb") as f:
            f.write(data)
        return data if _cert_ok(path, n, rules) else None


def classify(n, rules, max_states):
    """(row, certificate bytes or None) of deal ``n``; an unwinnable verdict whose certificate fails the
    check is reported as unknown (never counted as unwinnable)."""
    t = time.perf_counter()
    r = solve.solve(load(deal=n).position, rules, max_states=max_states, strict=False)   # solve's own line
    verdict, data = r.verdict, None
    if verdict == "unwinnable":
        data = certify(n, rules, max(max_states, int(r.enumerated or 0)) or EXPLORE_STATES)
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

def _local(tasks, jobs, fn=run_chunk):
    """``fn`` (default :func:`run_chunk`; certgen/certify.py passes its own) of each task, in ``jobs`` local
    processes (solver.workers.start_pool; in this one when 1), at most 2 * jobs in flight."""
    if jobs <= 1:
        yield from map(fn, tasks)
        return
    old_term = term_as_interrupt()      # SIGTERM: the Ctrl-C path (the workers stopped, one line)
    lost = False
    try:
        pool = start_pool(jobs, orphan_watch, (os.getpid(),))
        try:
            # Ctrl-C or an error: end_pool stops the running chunks now instead of waiting for them (redone)
            yield from pool_windowed(pool, fn, tasks, 2 * jobs)
        except WorkerLost:
            lost = True
            raise
        finally:
            end_pool(pool, lost)
    finally:
        restore_term(old_term)


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


def close_client(client):
    """Close a Client :func:`dask_client` made, and its LocalCluster if it has one (None: nothing)."""
    if client is not None:
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None:
            cluster.close()


def _dask(tasks, client, fn=run_chunk):
    from dask.distributed import wait

    def wait_first(fs):
        r = wait(list(fs), return_when="FIRST_COMPLETED")
        return r.done, set(r.not_done)
    window = 2 * max(1, sum(client.nthreads().values()))
    yield from windowed(tasks, lambda t: client.submit(fn, t, pure=False, retries=3), wait_first, window)


# -- the directory: its journal (solver/journal.py) and its certificates ----------------------------------

def _cert_path(out_dir, n, rules):
    return os.path.join(out_dir, "certs", load(deal=n).stem(rules) + ".cert")


def file_sha256(path):
    """The SHA-256 (hex) of the file at ``path``, or None when it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def _cert_ok(path, n, rules):
    """Whether the certificate file at ``path`` is whole and valid for deal ``n`` under ``rules``
    (:func:`certified`)."""
    got = certified(path, n, rules)
    return got is not None and got.ok


def checked_for(path, n, rules, digest=False):
    """The check (fastcheck.Checked) of the certificate file at ``path`` for deal ``n`` under ``rules``, its ``ok``
    whether the file is valid for them: its start is deal n's, its rules ``rules``, and every state checked -- by
    the fast checker (build/fccheck) when it is built, else by certgen/checker.py (its ``fast`` or ``reference``
    says which ran). When neither gives a verdict (a damaged or unreadable file): FreecellError, the checker's
    own line. ``digest``: with the records' SHA-256 (fastcheck.checked). FCCHECK naming another program is
    refused here too: a dask worker's environment is not the client's."""
    fastcheck.refuse_another("this worker of a survey or certify-list")
    try:
        got = fastcheck.checked(path, jobs=1, digest=digest)
    except OSError as e:
        raise FreecellError(f"{e.filename or path}: {reason(e)}") from None
    ok = got.ok and got.start == packed.pack(load(deal=n).position) and got.rules == rules.header()
    return dataclasses.replace(got, ok=ok)


def certified(path, n, rules, digest=False):
    """:func:`checked_for`, or None when no checker gave a verdict (a damaged or unreadable file)."""
    fastcheck.refuse_another("this worker of a survey or certify-list")     # its own line, not a missing verdict
    try:
        return checked_for(path, n, rules, digest)
    except FreecellError:
        return None


def _consistent(start, last, rec):
    """A chunk record agrees with itself: the counts add up to the range's size, the rows kept are inside it,
    one a deal, every unwinnable and unknown deal has its row (the rows are what the second pass and the
    certificates go by) and every unwinnable one a certificate digest, the line-length histogram counts the
    winnable deals and the states histogram every deal. A record that does not is done again."""
    def whole(v):
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0

    if not isinstance(rec, dict) or not all(k in rec for k in ("counts", "rows", "lengths", "states", "certs")):
        return False
    counts, rows = rec["counts"], rec["rows"]
    if not (whole(start) and whole(last) and start <= last):
        return False
    if not isinstance(counts, dict) or set(counts) != {"winnable", "unwinnable", "unknown"} \
            or not all(whole(v) for v in counts.values()) or sum(counts.values()) != last - start + 1:
        return False
    if not isinstance(rows, list) or not all(isinstance(r, list) and len(r) == len(ROW_FIELDS) and whole(r[0])
                                             and start <= r[0] <= last and r[1] in counts for r in rows):
        return False
    if len({r[0] for r in rows}) != len(rows):
        return False
    for verdict in ("unwinnable", "unknown"):
        if sum(1 for r in rows if r[1] == verdict) != counts[verdict]:
            return False
    if not isinstance(rec["certs"], dict) or set(rec["certs"]) != {str(r[0]) for r in rows if r[1] == "unwinnable"}:
        return False
    for hist, total in ((rec["lengths"], counts["winnable"]), (rec["states"], last - start + 1)):
        if not isinstance(hist, dict) or not all(whole(v) for v in hist.values()) or sum(hist.values()) != total:
            return False
    return True


def _certs_hold(out_dir, certs, rules):
    """The certificates a record names ({deal: SHA-256 of its file when the record was written}): a file
    unchanged since is taken; a changed one is checked again (:func:`_cert_ok`) and, valid, its new digest
    returned. (ok, certs) -- not ok: a certificate is missing or fails; it is removed and its record done
    again."""
    now = {}
    for n, sha in certs.items():
        path = _cert_path(out_dir, int(n), rules)
        got = file_sha256(path)
        if got is not None and (got == sha or _cert_ok(path, int(n), rules)):
            now[n] = got
            continue
        if os.path.lexists(path):
            os.unlink(path)
        return False, certs
    return True, now


def _drop_damaged(j, out_dir, rules):
    """Remove the chunk and second-pass records that do not hold together, or whose certificates are missing
    or fail their check: that work is done again (never counted blindly). A record whose certificate file
    changed and still checks is kept with the file's new digest. (The records are read one at a time; the
    changes, rare, are made after.)"""
    drop, keep = [], []
    for table, key, last, rec in _records_to_check(j):
        ok = _consistent(key, last, rec) if table == "chunk" else _second_consistent(key, rec)
        if ok:
            ok, certs = _certs_hold(out_dir, rec["certs"], rules)
            if ok and certs != rec["certs"]:
                keep.append((table, key, dict(rec, certs=certs), last))
        if not ok:
            drop.append((table, key))
    j.record_many(keep)
    for table, key in drop:
        j.delete(table, key)


def _records_to_check(j):
    for table in ("chunk", "second"):
        for key, last, _v, rec in j.rows(table):
            yield table, key, last, rec


def _second_consistent(n, rec):
    """A second-pass record: the deal's row, and a certificate digest exactly when it is unwinnable."""
    row = rec.get("row") if isinstance(rec, dict) else None
    return (isinstance(row, list) and len(row) == len(ROW_FIELDS) and row[0] == n and row[1] in VERDICTS
            and isinstance(rec.get("certs"), dict)
            and set(rec["certs"]) == ({str(n)} if row[1] == "unwinnable" else set()))


def _setting(key, value):
    """A setting of the journal in words, for the refusal of other settings: the rules as the free cells and
    what else they allow, a number with its thousands."""
    try:
        if key == "rules":
            r = Rules.from_dict(value)
            return plural(r.cells, "free cell") + rules_words(r._replace(cells=4))
    except (FreecellError, TypeError, AttributeError):
        pass
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else repr(value)


OLD_FILES = ("survey.json", "chunks")       # a survey folder of the format before the journal


def open_dir(out_dir, settings, command=None):
    """Lock ``out_dir`` and open its journal (created with ``settings``, or checked to hold a survey with the
    same settings); returns (journal, settings). A folder of the older format is refused in one line."""
    if out_dir in ("-", ""):
        raise FreecellError(f"--dir {out_dir!r}: a survey needs a folder (`-` is standard output elsewhere); "
                            f"give a folder name")
    old_files = [f for f in OLD_FILES if os.path.lexists(os.path.join(out_dir, f))]
    if old_files and not os.path.exists(os.path.join(out_dir, JOURNAL)):
        raise FreecellError(f"{out_dir} holds a survey of the older format ({' and '.join(old_files)}, no "
                            f"{JOURNAL}): this version does not go on with it; give a new --dir")
    j = open_journal(out_dir, "certgen survey", command)
    try:
        old, diff = j.settings(settings, IDENTITY)
        if diff:
            words = "; ".join(f"{k}: {_setting(k, old.get(k))} there, {_setting(k, settings.get(k))} asked"
                              for k in diff)
            raise FreecellError(f"{out_dir} holds a survey with other settings ({words}): "
                                f"use the same command, or another --dir")
        for sub in ("certs",):
            os.makedirs(os.path.join(out_dir, sub), exist_ok=True)
    except BaseException:
        j.close()
        raise
    return j, old


def _store(j, out_dir, result, rules):
    """Certificates first (each written atomically), then the record with their digests, in one transaction
    (the chunk counts only once its record exists)."""
    certs = {}
    for n, data in sorted(result.pop("certs").items()):
        write_atomic(_cert_path(out_dir, int(n), rules), data)
        certs[str(n)] = hashlib.sha256(data).hexdigest()
    first, last = result.pop("first"), result.pop("last")
    j.record("chunk", first, dict(result, certs=certs), last)


def _second_pass(j, out_dir, settings, rules, unknown, progress):
    """Retry the first pass's unknown deals with the bigger limit; each answer journalled."""
    done = {n: rec["row"] for n, _l, _v, rec in j.rows("second")}
    with bar(progress and bool(unknown), total=len(unknown), unit=" deals", desc="second pass") as b:
        for n in unknown:
            if n not in done:
                row, data = classify(n, rules, settings["second_max_states"])
                certs = {}
                if data is not None:
                    write_atomic(_cert_path(out_dir, n, rules), data)
                    certs[str(n)] = hashlib.sha256(data).hexdigest()
                j.record("second", n, {"row": row, "certs": certs})
                done[n] = row
            b.update(1)
    return {n: done[n] for n in unknown}


def _add(into, hist):
    for k, v in hist.items():
        into[k] = into.get(k, 0) + v


def run(first, last, out_dir, rules=STANDARD, max_states=None, second_max_states=None, chunk=None, jobs=1,
        rows=False, engine="local", scheduler=None, progress=False, command=None, client=None):
    """Survey first..last into ``out_dir`` (see the module docstring); returns the summary dict. ``client``:
    a dask.distributed Client to run on (left open)."""
    fastcheck.refuse_another("the survey")
    max_states = max_states or SOLVE_STATES
    settings = {"first": first, "last": last, "chunk": chunk or default_chunk(first, last),
                "rules": rules.to_dict(), "max_states": max_states,
                "second_max_states": second_max_states or SECOND_FACTOR * max_states, "rows": bool(rows)}
    j, settings = open_dir(out_dir, settings, command)
    with j:
        step = settings["chunk"]
        _drop_damaged(j, out_dir, rules)
        done = j.done("chunk")
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
                    size = res["last"] - res["first"] + 1
                    _store(j, out_dir, res, rules)
                    for k, v in res["counts"].items():
                        counts[k] += v
                    b.update(size)
                    if hasattr(b, "set_postfix"):
                        b.set_postfix(counts, refresh=False)
        finally:
            close_client(own)
        return finish(j, out_dir, settings, rules, progress)


def finish(j, out_dir, settings, rules, progress=False):
    """Add the chunk records up (the counts: a query of the journal), run the second pass, export rows.csv
    and write summary.json."""
    chunks, deals, *sums = j.query(
        "SELECT count(*), coalesce(sum(last - key + 1), 0), " + ", ".join(
            f"coalesce(sum(json_extract(body, '$.counts.{v}')), 0)" for v in VERDICTS) +
        ", coalesce(sum(json_extract(body, '$.seconds')), 0) FROM records WHERE tbl = 'chunk'")[0]
    first_counts = dict(zip(VERDICTS, sums[:3]))
    seconds = sums[3]
    if deals != settings["last"] - settings["first"] + 1:
        raise FreecellError(f"{out_dir}: the chunk records cover {deals:,} deals, not the range's "
                            f"{settings['last'] - settings['first'] + 1:,}")
    lengths, states, unknown, unwinnable = {}, {}, [], []
    for _k, _l, _v, rec in j.rows("chunk"):
        _add(lengths, rec["lengths"])
        _add(states, rec["states"])
        for row in rec["rows"]:
            if row[1] == "unknown":
                unknown.append(row[0])
            elif row[1] == "unwinnable":
                unwinnable.append(row[0])
    second = _second_pass(j, out_dir, settings, rules, unknown, progress)
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
    _write_rows(j, out_dir, second)
    runs = j.runs()
    summary = {
        "first": settings["first"], "last": settings["last"], "deals": deals, "chunks": chunks,
        "rules": settings["rules"], "max_states": settings["max_states"],
        "second_max_states": settings["second_max_states"], "counts": counts, "first_pass": first_counts,
        "unwinnable": unwinnable, "unknown": still, "second_pass": {str(n): row[1] for n, row in sorted(second.items())},
        "certificates": [load(deal=n).stem(rules) + ".cert" for n in unwinnable],
        "length_histogram": dict(sorted(lengths.items(), key=lambda kv: int(kv[0]))),
        "states_histogram": dict(sorted(states.items(), key=lambda kv: int(kv[0]))),
        "deal_seconds": round(seconds, 3), "wall_seconds": runs["run_seconds"],
        "total_seconds": runs["total_seconds"], "runs": runs["runs"],
        "first_command": runs["first_command"], "latest_command": runs["latest_command"],
    }
    write_atomic(os.path.join(out_dir, "summary.json"), json.dumps(summary, sort_keys=True) + "\n")
    return summary


def _write_rows(j, out_dir, second):
    """rows.csv: every kept row in deal order (a second-pass answer replaces the first), exported from the
    journal."""
    def rows():
        for _k, _l, _v, rec in j.rows("chunk"):
            for row in rec["rows"]:
                again = second.get(row[0])
                row, which = (again, 2) if again is not None else (row, 1)
                yield [row[0], row[1], row[2], row[3], row[4], which]
    j.export_csv(os.path.join(out_dir, "rows.csv"), ROW_FIELDS + ("pass",), rows())


def comparable(summary):
    """The summary without what differs between runs (times, the commands, the number of runs)."""
    return {k: v for k, v in summary.items() if k not in ("deal_seconds", "wall_seconds", "total_seconds", "runs",
                                                          "first_command", "latest_command")}


def certificates(out_dir):
    """(the survey's rules, [(deal, certificate path)] of its unwinnable deals as its journal records them (both
    passes), in deal order); one FreecellError line when ``out_dir`` is not a finished survey of this format."""
    if not os.path.isdir(os.path.join(out_dir, "certs")):
        raise FreecellError(f"{out_dir} is not a survey directory (no certs/ folder)")
    if not os.path.exists(os.path.join(out_dir, "summary.json")):
        raise FreecellError(f"{out_dir} holds an unfinished survey (no summary.json): finish it first by "
                            f"running its `certgen survey` command again")
    if not os.path.exists(os.path.join(out_dir, JOURNAL)):
        raise FreecellError(f"{out_dir} holds a survey of the older format (no {JOURNAL}): run the survey "
                            f"again with a new --dir")
    with attach(out_dir) as j:
        settings = j.meta("settings")
        if not isinstance(settings, dict) or "rules" not in settings:
            raise FreecellError(f"{j.path} holds no survey settings: run the survey again with a new --dir")
        rules = Rules.from_dict(settings["rules"])
        deals = set()
        for table in ("chunk", "second"):
            for _k, _l, _v, rec in j.rows(table):
                deals.update(int(n) for n in rec.get("certs", {}))
    return rules, [(n, _cert_path(out_dir, n, rules)) for n in sorted(deals)]
