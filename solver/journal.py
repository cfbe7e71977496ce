"""The journal of a resumable job (the surveys; ``certgen certify-list``): one SQLite database in the job's
folder, ``FOLDER/journal.sqlite``, written by one process.

- **Lock.** :func:`open_journal` takes an exclusive POSIX record lock (lockf) on ``FOLDER/journal.lock``
  (which holds the owner's pid) for the whole run: a second run on the same folder is refused in one line,
  "FOLDER is in use by another survey (process N)". Forked workers of the owner may write through
  :func:`attach`; the lock is the owner's alone (a record lock belongs to a process: a forked one never has
  it, so a killed owner frees the folder at once, whatever its workers still do); Dask workers never write:
  their results come back to the client, which records them.
- **Records.** ``record(table, key, body, last=None, verdict=None)`` is one transaction (WAL, synchronous
  FULL): a record is there whole or not at all, so a job killed at any moment (SIGKILL included) and started
  again redoes at most what was running. Each record keeps a SHA-256 (:func:`digest`) of its table, key,
  range end, verdict and body (canonical JSON); a record whose digest does not match (an edit by hand, a
  damaged file) is removed when the journal is opened (:meth:`Journal.verify`) and its work done again. The
  digest catches edits and damage, not someone who recomputes it: the proofs are the certificates and the
  replayed lines, which are checked again where they are used.
- **Signals.** While a journal is open, SIGTERM is taken as Ctrl-C (solver.workers.term_as_interrupt):
  the command stops with one line; every record already written stays, and the same command goes on.
- **Runs.** Each opening is a run (its command, pid, start, and the time of its last record): the summary
  says this run's time and the total, the first command and the latest (:meth:`Journal.runs`).
- **Exports.** The rows are read back with :meth:`Journal.rows` (key order) and :meth:`Journal.done`; a
  summary is a query (:meth:`Journal.query`); CSV is an export (:meth:`Journal.export_csv`), written
  atomically.
"""
import csv
import fcntl
import gzip
import hashlib
import io
import json
import os
import sqlite3
import stat
import sys
import time
from contextlib import contextmanager

from .atomic import write_atomic
from .errors import FreecellError
from .sigterm import restore_term, term_as_interrupt

JOURNAL = "journal.sqlite"
LOCK = "journal.lock"
FORMAT = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY, command TEXT NOT NULL, pid INTEGER NOT NULL,
                                 started REAL NOT NULL, last REAL NOT NULL);
CREATE TABLE IF NOT EXISTS records (tbl TEXT NOT NULL, key INTEGER NOT NULL, last INTEGER, verdict TEXT,
                                    body TEXT NOT NULL, sha256 TEXT NOT NULL, run INTEGER NOT NULL,
                                    PRIMARY KEY (tbl, key));
"""


def digest(table, key, body, last=None, verdict=None):
    """The SHA-256 (hex) of a record: its table, key, range end, verdict and body as canonical JSON."""
    text = json.dumps([table, key, last, verdict, body], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


_HELD = {}          # (device, inode) of each lock file a process holds -> (its pid, the descriptor)


def release_lock(fd):
    """Let go of a lock taken by :func:`lock_file`."""
    for key, (_pid, held) in list(_HELD.items()):
        if held == fd:
            del _HELD[key]
    os.close(fd)


def lock_file(path, name, busy):
    """An exclusive record lock (lockf: a process's own, never a forked child's) on the regular file at
    ``path`` (made if need be; a link there is refused), which then holds this process's pid: its file
    descriptor. Held by another process, or already by this one: ``busy(owner)`` is raised (``owner``: the
    pid written there, or None); ``name`` heads the other errors' line."""
    try:
        st = os.lstat(path)
    except OSError:
        st = None
    if st is not None and _HELD.get((st.st_dev, st.st_ino), (None,))[0] == os.getpid():
        # a record lock is granted again to its holder, and closing any descriptor of the file lets it go
        raise busy(os.getpid())
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)   # a link there: refused (ELOOP)
    except OSError as e:
        raise FreecellError(f"{name}: {e.strerror or e}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise FreecellError(f"{name} is not a regular file")
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.stat(path).st_ino != os.fstat(fd).st_ino:     # removed by its last owner meanwhile
            raise BlockingIOError
    except OSError:
        try:
            owner = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        except OSError:
            owner = ""
        os.close(fd)
        raise busy(int(owner) if owner.isdigit() else None) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _HELD[(st.st_dev, st.st_ino)] = (os.getpid(), fd)
    return fd


def _take_lock(folder, what, other):
    """The folder's lock (journal.lock): one FreecellError line naming the process that holds it and what the
    user may give instead (``other``: "folder", or "--out file" where the folder is FILE.csv.work)."""
    def busy(owner):
        return FreecellError(f"{folder} is in use by another {what}" + (f" (process {owner})" if owner else "")
                             + f": wait for it to end, or give another {other}")
    return lock_file(os.path.join(folder, LOCK), os.path.join(folder, LOCK), busy)


@contextmanager
def _sql_errors(path):
    """SQLite's errors as one FreecellError line naming the journal: a full disk, a file that cannot be written,
    a damaged file."""
    try:
        yield
    except sqlite3.Error as e:
        text = str(e)
        if "full" in text:
            why = f"{path}: the disk is full ({text}): every record already written stays; the same command " \
                  f"goes on once there is room"
        elif "readonly" in text or "unable to open" in text:
            why = f"{path}: cannot write the journal ({text}): give a folder this process can write"
        else:
            why = f"{path} is not a journal this version reads, or is damaged ({text}): give another folder"
        raise FreecellError(why) from None


class _Cursor:
    """A cursor whose SQLite errors are one line (:func:`_sql_errors`), rows read one at a time."""

    def __init__(self, cur, path):
        self.cur, self.path = cur, path

    @property
    def lastrowid(self):
        return self.cur.lastrowid

    def __iter__(self):
        return self

    def __next__(self):
        with _sql_errors(self.path):
            return next(self.cur)

    def fetchone(self):
        with _sql_errors(self.path):
            return self.cur.fetchone()

    def fetchall(self):
        with _sql_errors(self.path):
            return self.cur.fetchall()


class _Connection:
    """A SQLite connection whose errors are one line (:func:`_sql_errors`)."""

    def __init__(self, con, path):
        self.con, self.path = con, path

    def execute(self, sql, args=()):
        with _sql_errors(self.path):
            return _Cursor(self.con.execute(sql, args), self.path)

    def executemany(self, sql, rows):
        with _sql_errors(self.path):
            return _Cursor(self.con.executemany(sql, rows), self.path)

    def close(self):
        self.con.close()


def _connect(path):
    with _sql_errors(path):
        con = _Connection(sqlite3.connect(path, timeout=60, isolation_level=None), path)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=FULL")
        con.con.executescript(_SCHEMA)
        return con


class Journal:
    """An open journal (see the module docstring). Use :func:`open_journal`, or :func:`attach` in a forked
    worker."""

    def __init__(self, folder, con, lock_fd=None, run=None):
        self.folder, self.path = folder, os.path.join(folder, JOURNAL)
        self.con, self.lock_fd, self.run = con, lock_fd, run
        self.t0 = time.time()
        self.old_term = None

    @contextmanager
    def transaction(self):
        """One transaction (BEGIN IMMEDIATE .. COMMIT; ROLLBACK on an exception): the connection is in
        autocommit mode, where ``with connection`` would begin none."""
        self.con.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self.con.con.in_transaction:     # SQLite ends it itself on some errors (a full disk)
                self.con.execute("ROLLBACK")
            raise
        self.con.execute("COMMIT")

    # -- meta ----------------------------------------------------------------------------------------
    def meta(self, name, default=None):
        row = self.con.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return default if row is None else json.loads(row[0])

    def set_meta(self, name, value):
        self.con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (name, json.dumps(value, sort_keys=True)))

    def settings(self, settings, identity):
        """(the job's settings, the keys of ``identity`` whose values differ from ``settings``'): ``settings``
        are stored on the first run; a run with other values is for the caller to refuse."""
        old = self.meta("settings")
        if old is None:
            with self.transaction():
                self.set_meta("settings", settings)
            old = settings
        return old, [k for k in identity if old.get(k) != settings.get(k)]

    # -- records -------------------------------------------------------------------------------------
    def record(self, table, key, body, last=None, verdict=None):
        """One record (replacing the table's record of that key), in one transaction."""
        with self.transaction():
            self._put(table, key, body, last, verdict)

    def record_many(self, items):
        """Several records (table, key, body, last, verdict) in one transaction."""
        with self.transaction():
            for item in items:
                self._put(*item)

    def _put(self, table, key, body, last=None, verdict=None):
        self.con.execute("INSERT OR REPLACE INTO records VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (table, key, last, verdict, json.dumps(body, sort_keys=True),
                          digest(table, key, body, last, verdict), self.run or 0))
        if self.run is not None:
            self.con.execute("UPDATE runs SET last = ? WHERE id = ?", (time.time(), self.run))

    def delete(self, table, key):
        with self.transaction():
            self.con.execute("DELETE FROM records WHERE tbl = ? AND key = ?", (table, key))

    def verify(self):
        """Remove every record whose SHA-256 does not match its content; returns how many."""
        bad = []
        for table, key, last, verdict, body, sha in self.con.execute(
                "SELECT tbl, key, last, verdict, body, sha256 FROM records"):
            try:
                ok = sha == digest(table, key, json.loads(body), last, verdict)
            except ValueError:
                ok = False
            if not ok:
                bad.append((table, key))
        if bad:
            with self.transaction():
                self.con.executemany("DELETE FROM records WHERE tbl = ? AND key = ?", bad)
        return len(bad)

    def rows(self, table, first=None, last=None):
        """(key, last, verdict, body) of the table's records in key order (keys first..last when given)."""
        lo = -(1 << 62) if first is None else first
        hi = (1 << 62) if last is None else last
        for key, end, verdict, body in self.con.execute(
                "SELECT key, last, verdict, body FROM records WHERE tbl = ? AND key BETWEEN ? AND ? ORDER BY key",
                (table, lo, hi)):
            yield key, end, verdict, json.loads(body)

    def done(self, table, first=None, last=None):
        """The keys of the table's records (a set)."""
        return {r[0] for r in self.rows(table, first, last)}

    def query(self, sql, args=()):
        return self.con.execute(sql, args).fetchall()

    # -- runs ----------------------------------------------------------------------------------------
    def runs(self):
        """{"first_command", "latest_command", "runs", "run_seconds" (this run's), "total_seconds" (every
        run's, each from its start to its last record or its end)}."""
        rows = self.con.execute("SELECT id, command, started, last FROM runs ORDER BY id").fetchall()
        now = time.time()
        total = sum((now if r[0] == self.run else r[3]) - r[2] for r in rows)
        return {"first_command": rows[0][1] if rows else None, "latest_command": rows[-1][1] if rows else None,
                "runs": len(rows), "run_seconds": round(now - self.t0, 3), "total_seconds": round(total, 3)}

    # -- exports -------------------------------------------------------------------------------------
    def export_csv(self, path, header, rows):
        """``rows`` (lists of cells) under ``header`` to ``path`` as CSV, atomically."""
        export_csv(path, header, rows)

    # -- the end -------------------------------------------------------------------------------------
    def close(self):
        if self.con is not None:
            if self.run is not None:
                try:
                    with self.transaction():
                        self.con.execute("UPDATE runs SET last = ? WHERE id = ?", (time.time(), self.run))
                except FreecellError:       # a full disk or a damaged file: said already, or said next
                    pass
            self.con.close()
            self.con = None
        if self.lock_fd is not None:
            release_lock(self.lock_fd)
            self.lock_fd = None
            restore_term(self.old_term)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def export_csv(path, header, rows):
    """CSV at ``path``, atomically; gzip-compressed when ``path`` ends in ``.gz`` (no name or time stored in
    it: the same rows give the same bytes)."""
    buf = io.StringIO(newline="")
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(["" if v is None else v for v in r])
    data = buf.getvalue().encode("utf-8")
    if path.endswith(".gz"):
        data = gzip.compress(data, 9, mtime=0)
    return write_atomic(path, data)


def open_journal(folder, kind, command=None, what="survey", other="folder"):
    """Create ``folder`` if need be, lock it (one line when another process holds it) and open its journal
    of kind ``kind`` (a journal of another kind is refused in one line); a run is recorded with ``command``
    (default: this process's arguments) and the records whose digest fails are removed."""
    if folder == "-" or folder == "":
        raise FreecellError(f"{folder!r} is not a folder name: a {what} keeps its journal in a folder (`-` "
                            f"means standard output elsewhere)")
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise FreecellError(f"{folder} is not a folder")
    os.makedirs(folder, exist_ok=True)      # an OSError names the path (the commands' one line)
    fd = _take_lock(folder, what, other)
    j = None
    try:
        j = Journal(folder, _connect(os.path.join(folder, JOURNAL)), fd)
        con = j.con
        old = j.meta("kind")
        if old is None:
            with j.transaction():
                j.set_meta("kind", kind)
                j.set_meta("format", FORMAT)
        elif old != kind or j.meta("format") != FORMAT:
            raise FreecellError(f"{j.path} is the journal of another job ({old}, format {j.meta('format')}), "
                                f"not of a {kind}: give another folder")
        with j.transaction():
            cur = con.execute("INSERT INTO runs (command, pid, started, last) VALUES (?, ?, ?, ?)",
                              (command or " ".join(sys.argv), os.getpid(), j.t0, j.t0))
        j.run = cur.lastrowid
        j.verify()
        j.old_term = term_as_interrupt()    # SIGTERM: the Ctrl-C path (one line), until the journal is closed
        return j
    except BaseException:
        if j is not None:
            j.run = None
            j.close()
        else:
            release_lock(fd)
        raise


def attach(folder):
    """A connection to the journal of ``folder`` for a worker forked by its owner (no lock, no run)."""
    return Journal(folder, _connect(os.path.join(folder, JOURNAL)))


def csv_lines(path, text):
    """The lines of the CSV ``text`` (the file at ``path``: a ledger, a difficulty CSV) as csv.reader reads them;
    one it cannot read (lines ended by a carriage return alone, a field past its limit) is one line of error."""
    reader = csv.reader(io.StringIO(text))
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as e:      # (its words for a lone carriage return speak of Python's open())
            why = "a carriage return not followed by a line feed" if "new-line character" in str(e) else e
            raise FreecellError(f"{path} line {reader.line_num}: not read as CSV ({why})") from None
        yield cells
