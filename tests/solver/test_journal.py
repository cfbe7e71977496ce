"""solver/journal.py: the one journal of the resumable jobs (the surveys; certgen certify-list)."""
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from solver import journal
from solver.errors import FreecellError


def test_records_come_back_in_key_order_and_a_changed_one_is_dropped(tmp_path):
    d = str(tmp_path / "job")
    with journal.open_journal(d, "test job", "first command") as j:
        j.record("deal", 5, {"k": 2}, verdict="medium")
        j.record_many([("deal", 3, {"k": 1}, None, "easy"), ("chunk", 1, {"n": 10}, 10, None)])
        j.record("deal", 5, {"k": 3}, verdict="hard")          # the last record of a key counts
        assert list(j.rows("deal")) == [(3, None, "easy", {"k": 1}), (5, None, "hard", {"k": 3})]
        assert j.done("deal") == {3, 5} and j.done("deal", 4, 9) == {5} and j.done("chunk") == {1}
        assert j.query("SELECT verdict, count(*) FROM records WHERE tbl = 'deal' GROUP BY verdict") == \
            [("easy", 1), ("hard", 1)]
    con = sqlite3.connect(os.path.join(d, journal.JOURNAL))
    with con:       # an edit by hand: deal 3 said to need no cell
        con.execute("""UPDATE records SET body = '{"k": 0}' WHERE key = 3""")
    con.close()
    with journal.open_journal(d, "test job", "second command") as j:
        assert j.done("deal") == {5} and j.done("chunk") == {1}
        runs = j.runs()
        assert (runs["runs"], runs["first_command"], runs["latest_command"]) == (2, "first command", "second command")


def test_the_lock_names_the_other_process_and_is_free_after_close(tmp_path):
    d = str(tmp_path / "job")
    j = journal.open_journal(d, "test job")
    with pytest.raises(FreecellError) as e:
        journal.open_journal(d, "test job")
    assert str(e.value) == f"{d} is in use by another survey (process {os.getpid()}): wait for it to end, or give " \
                           "another folder"
    j.close()
    journal.open_journal(d, "test job").close()


@pytest.mark.parametrize("fork", ["os.fork()", "ctypes.CDLL(None).fork()"])
def test_a_killed_owner_frees_the_folder_while_its_forked_workers_live_on(tmp_path, fork):
    # a pool's worker forked by the owner outlives it for a moment (it notices the death by polling): the
    # same command started again at once must not be refused naming the dead owner. The lock is the owner's
    # alone however the child came to be: libc's fork runs none of Python's at-fork hooks, and os.fork's child
    # may run them late on a loaded machine.
    d = str(tmp_path / "job")
    owner_code = ("import ctypes, os, sys, time\nfrom solver import journal\n"
                  f"j = journal.open_journal({d!r}, 'test job')\n"
                  f"child = {fork}\n"
                  "if child == 0:\n    time.sleep(60)\n    os._exit(0)\n"
                  "print(child, flush=True)\ntime.sleep(60)\n")
    owner = subprocess.Popen([sys.executable, "-c", owner_code], stdout=subprocess.PIPE, text=True)
    child = int(owner.stdout.readline())
    try:
        owner.kill()
        owner.wait()
        os.kill(child, 0)                  # the worker is still there, the lock file open in it
        journal.open_journal(d, "test job").close()
    finally:
        os.kill(child, signal.SIGKILL)


def test_another_kind_a_dash_and_a_file_are_one_line(tmp_path):
    d = str(tmp_path / "job")
    journal.open_journal(d, "test job").close()
    with pytest.raises(FreecellError, match="is the journal of another job \\(test job, format 1\\), not of a other"):
        journal.open_journal(d, "other")
    with pytest.raises(FreecellError, match="is not a folder name"):
        journal.open_journal("-", "test job")
    (tmp_path / "f").write_text("x")
    with pytest.raises(FreecellError, match="is not a folder"):
        journal.open_journal(str(tmp_path / "f"), "test job")


def test_the_total_time_is_each_runs_own(tmp_path):
    d = str(tmp_path / "job")
    with journal.open_journal(d, "test job") as j:
        time.sleep(0.3)
        j.record("deal", 1, {})
    time.sleep(1.0)                 # between the runs: not counted
    with journal.open_journal(d, "test job") as j:
        r = j.runs()
        assert r["run_seconds"] < 0.3 and 0.3 <= r["total_seconds"] < 0.9, r


def test_export_csv(tmp_path):
    d = str(tmp_path / "job")
    with journal.open_journal(d, "test job") as j:
        j.record("deal", 2, {"v": None})
        j.export_csv(str(tmp_path / "x.csv"), ("deal", "v"), ([k, b["v"]] for k, _l, _v, b in j.rows("deal")))
    assert (tmp_path / "x.csv").read_text() == "deal,v\n2,\n"


def test_records_written_together_are_one_transaction(tmp_path):
    # In autocommit mode `with connection` began no transaction: each record was its own (and synced: 32,000
    # rows taken in from a CSV took 385 s instead of 5), and a stop half-way kept half of them.
    with journal.open_journal(str(tmp_path / "job"), "test job") as j:
        def items():
            yield ("deal", 1, {}, None, None)
            raise KeyboardInterrupt
        with pytest.raises(KeyboardInterrupt):
            j.record_many(items())
        assert j.done("deal") == set()
        j.record_many(("deal", n, {}, None, None) for n in range(3))
        assert j.done("deal") == {0, 1, 2}


def test_a_damaged_file_and_a_full_disk_are_one_line(tmp_path):
    d = str(tmp_path / "job")
    with journal.open_journal(d, "test job") as j:
        j.record_many(("deal", n, {"text": "x" * 100}, None, "easy") for n in range(300))
        j.con.execute("PRAGMA max_page_count = " + str(j.query("PRAGMA page_count")[0][0]))   # the disk full
        with pytest.raises(FreecellError) as e:
            j.record_many(("deal", n, {"text": "y" * 1000}, None, "easy") for n in range(300, 400))
        assert str(e.value).startswith(f"{j.path}: the disk is full (database or disk is full): every record "
                                       "already written stays")
        assert len(j.done("deal")) == 300
    with open(os.path.join(d, journal.JOURNAL), "r+b") as f:    # a page in the middle overwritten
        f.seek(3 * 4096)
        f.write(b"\xff" * 4096)
    with pytest.raises(FreecellError) as e:
        journal.open_journal(d, "test job")
    assert str(e.value).startswith(f"{os.path.join(d, journal.JOURNAL)} is not a journal this version reads, "
                                   "or is damaged (database disk image is malformed)")
