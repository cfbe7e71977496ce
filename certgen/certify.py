"""Certify a list of unwinnable deals: ``python -m certgen certify-list LIST --dir D [--range A-B] [--jobs J]
[--engine dask | --scheduler ADDR] [--keep-certs] [--from-ledger FILE]`` (docs/CERTIFY.md).

For each listed deal the first form that completes is taken:

  fixed                 the spec rules, fixed columns, in memory, up to ``max_states`` positions (default
                        20,000,000): Lean- and Coq-renderable;
  canonical-safe        up to column order with the safe automatic moves (header rules ``column_order``,
                        ``"autoplay": "safe"``; Coq's CertAuto.v), in memory, up to ``canonical_max_states``;
  disk-canonical-safe   the same on disk (solver/disksearch.py), only with ``memory`` (--memory);

each certificate written to a temporary file at zlib level :data:`LEVEL` and checked by the fast checker
(build/fccheck; certgen.survey._cert_ok: valid, its start the deal's, its rules the form's) before the deal
counts; the file is removed unless ``keep_certs``. A deal none of them completes is a row ``unknown`` with
the most positions reached; a deal found winnable (the list would be wrong) is a row ``winnable``, its line
found by the solver and replayed under the spec rules, and is said on stderr at once. A row's ``seconds`` is
the deal's processor time (:func:`cpu_seconds`).

One row a deal goes into the folder's journal (solver/journal.py, ``D/journal.sqlite``: locked against a
second run, one transaction a deal, resumed after any stop by the same command); the ledger
``D/ledger.csv.gz`` (:data:`LEDGER_FIELDS`) is its export, written every :data:`EXPORT_EVERY` seconds and at
the end. ``from_ledger`` imports a ledger's rows into the journal first (a new machine goes on from a
committed ledger). Engines: certgen/survey.py's (local processes, or dask.distributed); a task is one deal.
"""
import gzip
import math
import os
import shutil
import stat
import sys
import tempfile
import time

from solver import deals, search
from solver.errors import FreecellError
from solver.journal import csv_lines, open_journal
from solver.limits import CERTIFY_CANONICAL_STATES, CERTIFY_STATES
from solver.lines import standard_notation
from solver.numbers import digits
from solver.progress import bar
from solver.rules import STANDARD, Rules
from solver.solve import solve
from solver.source import load

from . import certificate, fastcheck, prove, survey
from .usertext import user_text

FORMS = ("fixed", "canonical-safe", "disk-canonical-safe", "unknown", "winnable")
CERTIFIED = FORMS[:3]
LEDGER_FIELDS = ("deal", "form", "positions", "max_home", "records_sha256", "seconds")
LEDGER = "ledger.csv.gz"
KIND = "certgen certify-list"
# The certificate's zlib level: the file is a temporary one, read once by the checker. Level 1 writes about
# 17 times as fast as level 9 (docs/CERTIFY.md; certificate.py's measures), 1.4 times the bytes.
LEVEL = 1
EXPORT_EVERY = 300                  # seconds between two exports of the ledger during a run
SAFE = Rules(canonical=True, autoplay="safe")
IDENTITY = ("max_states", "canonical_max_states", "disk")


# -- the list ---------------------------------------------------------------------------------------------

def read_list(path):
    """The deal numbers of a list (one a line, digits only; blank lines skipped), sorted and distinct; one
    line of error naming the file and line otherwise."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise FreecellError(f"{path}: {e.strerror or e}") from None
    out = set()
    for i, line in enumerate(text.splitlines(), 1):
        word = line.strip()
        if not word:
            continue
        n = digits(word, max_digits=12)
        if n is None or not 1 <= n <= deals.MAX_DEAL:
            raise FreecellError(f"{path} line {i}: {word[:40]!r} is not a deal number (1..{deals.MAX_DEAL:,})")
        out.add(n)
    return sorted(out)


# -- one deal (runs in a worker) --------------------------------------------------------------------------

def _attempt(n, rules, max_states, tmp, keep, memory=None, done=None):
    """(form's verdict, positions, max_home, records_sha256) of one form on deal ``n``: the certificate
    written (to ``keep`` or a temporary file in ``tmp``) and checked by the fast checker when unwinnable.
    ``done``: the form's in-memory search already made (closed here), used instead of searching again."""
    src = load(deal=n)
    folder = tempfile.mkdtemp(prefix=f"deal{n}-", dir=tmp)
    try:
        path = keep or os.path.join(folder, f"Deal{n}.cert")
        b = prove.build(src, rules, path, max_states, memory=memory, tmp=folder if memory else None,
                        on_disk=memory is not None, level=LEVEL, done=done)
        if b.cert is None:
            return b.verdict, int(b.states), None, None
        if not survey._cert_ok(path, n, rules):
            raise FreecellError(f"internal error: the certificate of deal {n} ({rules.header()}) fails the fast "
                                f"checker")
        return "unwinnable", int(b.cert.states), b.cert.info.get("max_home"), b.cert.records_sha256
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cpu_seconds():
    """Processor time so far of this process and of its children waited for (the fast checker): a deal's
    ``seconds`` is the difference, which a busy machine does not inflate as it does wall time."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def fixed_cannot_complete(safe, max_states):
    """Whether a complete search up to column order with the safe automatic moves (``safe``, in memory) shows,
    without a search with fixed columns, that the latter stops at ``max_states`` without a verdict: the
    deal is unwinnable (no won position, which the fixed search would otherwise have found) and its set up to
    column order is bigger than ``max_states``.

    The fixed set is at least as big: each member of the set up to column order is the class of a position
    reachable with fixed columns (the start's class is the start's, after its automatic moves; a successor of
    the class of p is the class of a successor of p with its columns put in that order, after its automatic
    moves, which are moves of the rules), so that set is the image of the fixed set. The fixed search then
    finds a new position while ``max_states`` are stored, and is "unknown"; the deal's row is the same
    whether it ran or not (certify_deal)."""
    return safe.complete and not safe.won and SAFE.proves_unwinnable() and safe.states > max_states


def certify_deal(task):
    """A task {"deal", "max_states", "canonical_max_states", "memory", "tmp", "certs"}: the deal's ledger row
    as a dict (LEDGER_FIELDS; a winnable deal's "line" too).

    The forms are tried in order (fixed, canonical-safe, disk-canonical-safe), the first that completes
    giving the row, but the search up to column order in memory is made first: its set is never bigger
    than the fixed one (often several times smaller), and when it shows that the fixed search cannot complete
    (:func:`fixed_cannot_complete`) that one is not run (about half a processor second at the list run's
    1,000,000 positions). Else it is kept for its turn, so that each search runs once and the row is the one
    the forms in order give."""
    n, t0 = task["deal"], cpu_seconds()
    safe = search.explore(load(deal=n).position, SAFE, max_states=task["canonical_max_states"])
    tries = [("canonical-safe", SAFE, task["canonical_max_states"], None)]
    if not fixed_cannot_complete(safe, task["max_states"]):
        tries.insert(0, ("fixed", STANDARD, task["max_states"], None))
    if task.get("memory"):
        tries.append(("disk-canonical-safe", SAFE, None, task["memory"]))
    try:
        row = _first_form(n, task, tries, safe)
    finally:
        safe.close()
    row.update(deal=n, seconds=round(cpu_seconds() - t0, 3))
    return row


def _first_form(n, task, tries, safe):
    """The row (without deal and seconds) of the first of ``tries`` that completes; ``safe``: the search up
    to column order in memory, handed to its form's attempt."""
    reached = 0
    row = None
    for form, rules, limit, memory in tries:
        keep = os.path.join(task["certs"], f"Deal{n}" + ("" if form == "fixed" else ".canonical-safe") + ".cert") \
            if task.get("certs") else None
        verdict, positions, max_home, sha = _attempt(n, rules, limit, task.get("tmp"), keep, memory,
                                                     done=safe if form == "canonical-safe" else None)
        reached = max(reached, positions)
        if verdict == "unwinnable":
            row = {"form": form, "positions": positions, "max_home": max_home, "records_sha256": sha}
            break
        if verdict == "winnable":
            r = solve(load(deal=n).position, STANDARD)        # its line replayed under the spec rules
            if r.verdict == "winnable":
                row = {"form": "winnable", "positions": positions, "max_home": 52, "records_sha256": None,
                       "line": " ".join(standard_notation(r.start, r.moves))}
                break
    if row is None:
        row = {"form": "unknown", "positions": reached, "max_home": None, "records_sha256": None}
    return row


# -- the ledger -------------------------------------------------------------------------------------------

MAX_SECONDS = 2 ** 53 / 1e6      # a row's seconds at most (285 years; a disk search's state file holds as many
#                                  microseconds at most): the sum of every deal's stays finite


def _seconds_ok(v):
    """Whether ``v`` is a row's seconds: a number (not a bool), finite, from 0 to MAX_SECONDS."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v <= MAX_SECONDS


def ledger_row(n, form, body):
    return [n, form, body["positions"], body["max_home"], body["records_sha256"], body["seconds"]]


def export(j, path):
    j.export_csv(path, LEDGER_FIELDS, (ledger_row(n, form, body) for n, _l, form, body in j.rows("deal")))


def read_ledger(path, listed):
    """The rows of a ledger (CSV, or gzip-compressed CSV; blank lines at its end are skipped): {deal: (form,
    body)}; one line of error for a row that is not one (a blank line before a row is one), or whose deal is
    not in ``listed`` (a set; None: any deal)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        # utf-8-sig: a byte order mark (a spreadsheet may write one) is not part of the first line
        text = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8-sig")
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as e:
        raise FreecellError(f"{path}: {getattr(e, 'strerror', None) or e}") from None
    reader = csv_lines(path, text)
    if next(reader, None) != list(LEDGER_FIELDS):
        raise FreecellError(f"{path}: not a ledger (its first line is not {','.join(LEDGER_FIELDS)})")
    rows, blank = {}, None
    for i, cells in enumerate(reader, 2):
        def bad(why, line=i):
            return FreecellError(f"{path} line {line}: {why}")
        if not cells:                   # a blank line: taken at the end only (an editor's last newline)
            blank = blank or i
            continue
        if blank is not None:
            raise bad(f"0 fields, not {len(LEDGER_FIELDS)}", blank)
        if len(cells) != len(LEDGER_FIELDS):
            raise bad(f"{len(cells)} fields, not {len(LEDGER_FIELDS)}")
        deal, form, positions, max_home, sha, seconds = cells
        n, k = digits(deal, max_digits=12), digits(positions, max_digits=15)
        if n is None or k is None or form not in FORMS:
            raise bad("not a ledger row (deal, form, positions)")
        if listed is not None and n not in listed:
            raise bad(f"deal {n} is not in the list")
        if n in rows:
            raise bad(f"deal {n} twice")
        home = digits(max_home, max_digits=2) if max_home else None
        certified = form in CERTIFIED
        if certified != fastcheck.is_sha256(sha) or (sha and not certified) \
                or (certified and (home is None or home > 52)):
            raise bad(f"{form} row with records_sha256 {sha!r} and max_home {max_home!r}")
        try:
            secs = float(seconds)
        except ValueError:
            secs = None
        if not _seconds_ok(secs):
            raise bad(f"seconds {seconds!r}")
        rows[n] = (form, {"positions": k, "max_home": home, "records_sha256": sha or None, "seconds": secs})
    return rows


def import_ledger(j, path, listed):
    """Take a ledger's rows into the journal, but its ``unknown`` ones (this run, with its own limits, does
    them again): a row the journal holds already must be the same, but an ``unknown`` one, which a certified
    row replaces (as ``--add-cert`` does: a ledger of one deal's certificate built apart); every row is read
    back after (nothing lost). Returns the number of rows new to the journal."""
    rows = {n: r for n, r in read_ledger(path, listed).items() if r[0] != "unknown"}
    have = {n: (form, body) for n, _l, form, body in j.rows("deal")
            if form != "unknown" or rows.get(n, ("unknown",))[0] not in CERTIFIED}
    for n, (form, body) in rows.items():
        if n in have and ledger_row(n, *have[n]) != ledger_row(n, form, body):
            raise FreecellError(f"{path}: deal {n}'s row differs from the one in {j.path}: "
                                f"{ledger_row(n, form, body)} there, {ledger_row(n, *have[n])} here")
    new = [("deal", n, body, None, form) for n, (form, body) in sorted(rows.items()) if n not in have]
    j.record_many(new)
    back = {n: (form, body) for n, _l, form, body in j.rows("deal")}
    lost = [n for n, (form, body) in rows.items() if n not in back
            or ledger_row(n, *back[n]) != ledger_row(n, form, body)]
    if lost:
        raise FreecellError(f"{path}: {len(lost)} rows not in {j.path} after the import (first: deal {lost[0]})")
    return len(new)


# -- a certificate built apart ------------------------------------------------------------------------------

def _file_identity(path):
    """The regular file at ``path`` as (device, inode, size, modification time): what :func:`add_certificate`
    compares before and after its reads. Anything else (a FIFO, a device: a second open would wait for a
    writer for ever) is one line."""
    certificate.not_a_directory(path)
    try:
        st = os.stat(path)
    except OSError as e:
        raise FreecellError(f"cannot read certificate {path}: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise FreecellError(f"{path}: not a regular file (a certificate built apart is one)")
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def add_certificate(j, path, listed, canonical_max_states, say):
    """The row of a listed deal from a certificate built apart (``certgen build --deal N [--canonical --autoplay
    safe] --memory M --work-dir W``: a resumable disk search), once the fast checker accepts it for that deal
    under its rules, as a run's rows are; its form is the one a run gives such a set (``fixed`` under the spec
    rules; up to column order with safe automatic moves, ``canonical-safe`` within ``canonical_max_states``
    positions, else ``disk-canonical-safe``), its seconds the certificate's search's and this check's. A
    certified row of that deal with other records is refused, and so is a ``winnable`` one (they contradict each
    other); an ``unknown`` one is replaced."""
    t0 = cpu_seconds()
    before = _file_identity(path)
    summary = certificate.summarize(path, records=False)    # the header: the records are read once, checked
    src = summary.source
    n = src.get("deal") if src.get("kind") == "ms" else None
    if not isinstance(n, int) or n not in listed:
        raise FreecellError(f"{path}: the certificate of {user_text(summary.label())}, which is not a deal of the list")
    rules = next((r for r in (STANDARD, SAFE) if r.header() == summary.rules), None)
    if rules is None:
        raise FreecellError(f"{path}: its rules are neither the fixed form's nor the canonical-safe form's")
    searched = summary.info.get("search_seconds", 0)
    if not _seconds_ok(searched):
        raise FreecellError(f"{path}: its info's search_seconds is {searched!r}, not a number of seconds: not a "
                            f"certificate certgen build wrote")
    try:
        got = survey.checked_for(path, n, rules, digest=True)
    except FreecellError as e:
        named = FreecellError(f"{path}:").message + " "     # the path as a one-line message writes it
        why = str(e)[len(named):] if str(e).startswith(named) else str(e)
        raise FreecellError(f"{path}: no checker gave a verdict on it (a damaged or unreadable file): {why}; no row "
                            f"added") from None
    checker = "the fast checker" if got.fast is not None else f"the reference checker ({fastcheck.why_not()})"
    if not got.ok:
        raise FreecellError(f"{path}: {checker} does not accept it as deal {n}'s certificate: no row added")
    if _file_identity(path) != before:
        raise FreecellError(f"{path}: the file changed while it was read and checked: no row added")
    form = "fixed" if rules is STANDARD else "canonical-safe" if got.states <= canonical_max_states \
        else "disk-canonical-safe"
    body = {"positions": got.states, "max_home": got.max_home,
            "records_sha256": got.records_sha256, "seconds": round(searched + cpu_seconds() - t0, 3)}
    have = {m: (f, b) for m, _l, f, b in j.rows("deal", n, n)}.get(n)
    if have is not None and have[0] == "winnable":
        raise FreecellError(f"{path}: deal {n} has a winnable row in {j.path} (a winning line replayed), which a "
                            f"certificate of its unwinnability contradicts: no row added")
    if have is not None and have[0] in CERTIFIED:
        if have[1].get("records_sha256") != body["records_sha256"]:
            raise FreecellError(f"{path}: deal {n} has a {have[0]} row with other records in {j.path} "
                                f"({have[1].get('records_sha256')}): no row added")
        say(f"{path}: deal {n}'s row is in {j.path} already")
        return n
    j.record("deal", n, body, verdict=form)
    say(f"{path}: deal {n} added as {form}, {body['positions']:,} positions, checked by {checker}")
    return n


# -- the run ----------------------------------------------------------------------------------------------

def _open(folder, settings, command):
    j = open_journal(folder, KIND, command, what="certify-list")
    try:
        old, diff = j.settings(settings, IDENTITY)
        if diff:
            raise FreecellError(f"{folder} holds a run with other limits (" + "; ".join(
                f"{k}: {old.get(k)!r} there, {settings.get(k)!r} asked" for k in diff) + "): use the same ones, "
                "or another --dir")
    except BaseException:
        j.close()
        raise
    return j


def loud(row, say):
    say(f"WINNABLE: deal {row['deal']} is in the list but has a winning line, replayed under the spec rules "
        f"({len(row['line'].split())} moves): {row['line']}")


def run(list_path, folder, first=1, last=deals.MAX_DEAL, max_states=CERTIFY_STATES,
        canonical_max_states=CERTIFY_CANONICAL_STATES, memory=None, jobs=1, engine="local", scheduler=None,
        keep_certs=False, from_ledger=None, progress=False, command=None, say=None, client=None, add_certs=()):
    """Certify the listed deals of first..last into ``folder``; returns {form: count} of the range's rows.
    With ``add_certs`` (certificates' paths): only those rows added (:func:`add_certificate`), nothing searched."""
    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    fastcheck.refuse_another("certify-list")
    listed = read_list(list_path)
    todo_all = [n for n in listed if first <= n <= last]
    settings = {"max_states": max_states, "canonical_max_states": canonical_max_states, "disk": memory is not None}
    with _open(folder, settings, command) as j:
        if from_ledger is not None:
            added = import_ledger(j, from_ledger, set(listed))
            say(f"{from_ledger}: {added:,} rows taken into {j.path}")
        if add_certs:
            for path in add_certs:
                add_certificate(j, path, set(listed), canonical_max_states, say)
        tmp = os.path.join(folder, "tmp")
        shutil.rmtree(tmp, ignore_errors=True)      # a killed run's temporary files (the lock is ours)
        os.makedirs(tmp)
        certs = os.path.join(folder, "certs") if keep_certs else None
        if certs:
            os.makedirs(certs, exist_ok=True)
        done = j.done("deal")
        todo = [] if add_certs else [n for n in todo_all if n not in done]
        dask = client is not None or engine == "dask" or scheduler
        base = {"max_states": max_states, "canonical_max_states": canonical_max_states, "memory": memory,
                "tmp": None if dask else tmp, "certs": certs}
        tasks = (dict(base, deal=n) for n in todo)
        own = None
        if client is None and dask:
            client = own = survey.dask_client(scheduler, jobs)
        results = survey._dask(tasks, client, certify_deal) if client is not None else \
            survey._local(tasks, jobs, certify_deal)
        ledger = os.path.join(folder, LEDGER)
        last_export = time.time()
        try:
            with bar(progress, total=len(todo), unit=" deals", desc="certify") as b:
                for row in results:
                    body = {k: row[k] for k in row if k not in ("deal", "form")}
                    j.record("deal", row["deal"], body, verdict=row["form"])
                    if row["form"] == "winnable":
                        loud(row, say)
                    b.update(1)
                    if time.time() - last_export >= EXPORT_EVERY:
                        export(j, ledger)
                        last_export = time.time()
        finally:
            survey.close_client(own)
            export(j, ledger)
        shutil.rmtree(tmp, ignore_errors=True)
        counts = dict.fromkeys(FORMS, 0)
        for n, _l, form, _b in j.rows("deal", first, last):
            counts[form] += 1
        return counts, len(todo_all)
