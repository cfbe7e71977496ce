"""The certified, resumable survey (certgen/survey.py): journal, checked certificates, second pass, the
same summary after SIGKILL and a restart, and the dask engine (where the `cluster` extra is installed)."""
import csv
import json
import os
import random
import shutil
import signal
import sqlite3
import sys
import time

import pytest

from certgen import certificate, checker, survey
from solver import deals, packed
from solver.journal import JOURNAL, digest, open_journal
from solver.rules import Rules

from helpers import ROOT, journal_records
from helpers.survey import cli, run_cli


def summary_of(d):
    with open(os.path.join(d, "summary.json"), encoding="utf-8") as f:
        return json.load(f)


def records(d, table="chunk"):
    """How many records of ``table`` the journal of survey folder ``d`` holds (0 before it exists)."""
    return journal_records(d, table)


def sql(d, statement, *args):
    con = sqlite3.connect(os.path.join(d, JOURNAL))
    with con:
        rows = con.execute(statement, args).fetchall()
    con.close()
    return rows


def killed_and_resumed(d, args, kills, min_records=1):
    """Start the survey, SIGKILL it once ``min_records`` more chunk records appeared, ``kills`` times; then
    run it to the end. Returns the final summary."""
    rng = random.Random(12)
    for _ in range(kills):
        before = records(d)
        p = cli(*args, "--dir", d)
        deadline = time.time() + 600
        while time.time() < deadline and p.poll() is None:
            if records(d) >= before + min_records:
                time.sleep(rng.uniform(0, 0.05))
                break
            time.sleep(0.01)
        assert p.poll() is None, "the survey ended before it could be killed: use a bigger range"
        p.send_signal(signal.SIGKILL)
        p.wait()
        assert not os.path.exists(os.path.join(d, "summary.json"))
    code, out, err = run_cli(*args, "--dir", d, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.e2e
def test_sigkill_and_restart_give_the_same_summary(tmp_path):
    args = ("survey", "1-600", "--chunk", "6", "--max-states", "20000")
    code, out, err = run_cli(*args, "--dir", str(tmp_path / "whole"), "--json")
    assert code == 0, err
    whole = json.loads(out)
    assert whole["deals"] == 600 and whole["chunks"] == 100
    assert sum(whole["counts"].values()) == 600
    assert sum(whole["length_histogram"].values()) == whole["counts"]["winnable"]
    assert sum(whole["states_histogram"].values()) == 600
    resumed = killed_and_resumed(str(tmp_path / "killed"), args, kills=2)
    assert survey.comparable(resumed) == survey.comparable(whole)
    assert resumed == summary_of(str(tmp_path / "killed"))


@pytest.mark.e2e
def test_pool_workers_die_with_a_killed_survey(tmp_path):
    d = str(tmp_path / "s")
    p = cli("survey", "1-3000", "--jobs", "2", "--chunk", "10", "--max-states", "20000", "--dir", d)
    deadline = time.time() + 300
    while time.time() < deadline and not records(d):
        time.sleep(0.01)
    workers = [int(pid) for pid in os.listdir("/proc") if pid.isdigit() and _parent(int(pid)) == p.pid]
    assert p.poll() is None and len(workers) == 2, workers
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(os.path.exists(f"/proc/{w}") and _parent(w) is not None for w in workers):
        time.sleep(0.1)
    assert [w for w in workers if os.path.exists(f"/proc/{w}") and _parent(w) is not None] == []


def _parent(pid):
    """The parent pid of a live (not zombie) process, else None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else int(fields[1])


def test_other_settings_are_refused(tmp_path):
    d = str(tmp_path / "s")
    assert run_cli("survey", "1-4", "--dir", d)[0] == 0
    code, out, err = run_cli("survey", "1-5", "--dir", d)
    assert code == 2 and err == f"error: {d} holds a survey with other settings (last: 4 there, 5 asked): use " \
                                "the same command, or another --dir\n"
    # which rules the survey has and which were asked (it said "other settings (rules)")
    code, out, err = run_cli("survey", "1-4", "--dir", d, "--cells", "3", "--foundation-return")
    assert code == 2 and err == f"error: {d} holds a survey with other settings (rules: 4 free cells there, 3 free " \
                                "cells (foundation returns allowed) asked): use the same command, or another --dir\n"


def test_unknown_gets_a_second_pass(tmp_path):
    # a limit of 200 positions leaves most deals unknown; the second pass (a bigger limit) settles them
    s = survey.run(1, 6, str(tmp_path / "a"), max_states=200, second_max_states=3_000_000, chunk=2)
    assert s["first_pass"]["unknown"] >= 3
    assert s["counts"] == {"winnable": 6, "unwinnable": 0, "unknown": 0}
    assert set(s["second_pass"].values()) == {"winnable"}
    # too small a second limit: the deals are listed, never dropped
    t = survey.run(1, 6, str(tmp_path / "b"), max_states=200, second_max_states=300, chunk=2)
    assert t["counts"]["unknown"] == len(t["unknown"]) >= 3
    with open(tmp_path / "b" / "rows.csv", encoding="utf-8") as f:
        rows = f.read().splitlines()
    assert rows[0] == "deal,verdict,searched_states,length,seconds,pass"
    assert {int(r.split(",")[0]) for r in rows[1:] if r.split(",")[1] == "unknown"} == set(t["unknown"])


@pytest.fixture(scope="module")
def survey11982(tmp_path_factory):
    """A survey of deals 11981..11983: its folder and its summary."""
    d = str(tmp_path_factory.mktemp("survey11982") / "s")
    return d, survey.run(11981, 11983, d, chunk=3)


def test_unwinnable_deals_come_with_checked_certificates(survey11982, cert11982, reference11982):
    d, s = survey11982
    assert s["counts"] == {"winnable": 2, "unwinnable": 1, "unknown": 0}
    assert s["unwinnable"] == [11982] and s["certificates"] == ["Deal11982.cert"]
    cert = certificate.read(os.path.join(d, "certs", "Deal11982.cert"))
    assert cert.states == 84_767 and cert.source == {"kind": "ms", "deal": 11982}
    # rows.csv's count is the solver's (the positions it stored), named so that no one reads it as the
    # reachable set the certificate holds
    with open(os.path.join(d, "rows.csv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [(r["deal"], r["verdict"], r["searched_states"]) for r in rows] == [("11982", "unwinnable", "405246")]
    assert "states" not in rows[0]
    assert cert.records == cert11982.records and cert.start == cert11982.start and reference11982.ok


@pytest.mark.slow
def test_prove_survey_checks_and_renders_the_certificates(survey11982, tmp_path):
    d = survey11982[0]
    # prove-survey renders the module (and says plainly that Lean did not run where lake is absent)
    # (no prover on PATH: the two runs' outputs are then the same, timings aside)
    quiet = dict(env=dict(os.environ, LEAN_BOOTSTRAP="0", PATH=os.path.dirname(sys.executable)))
    p = cli("prove-survey", d, "--lean-dir", str(tmp_path / "lean"), "--out-dir", str(tmp_path / "o"),
            "--no-progress", **quiet)
    out, err = p.communicate(timeout=900)
    assert "Deal11982.cert: valid for deal 11982 under the standard rules (4 free cells, nothing back from the foundations): 84,767" in out
    assert os.path.exists(tmp_path / "lean" / "Deal11982.lean") and os.path.exists(tmp_path / "o" / "coq" / "Deal11982.v")
    assert p.returncode == 3, out + err
    # `prove --from-survey DIR` is the same command
    lean2 = str(tmp_path / "lean2")
    p = cli("prove", "--from-survey", d, "--lean-dir", lean2, "--out-dir", str(tmp_path / "o"), "--no-progress", **quiet)
    again = p.communicate(timeout=900)
    assert p.returncode == 3 and again == tuple(t.replace(str(tmp_path / "lean"), lean2) for t in (out, err))


@pytest.mark.slow
def test_three_kills_on_200000_deals(tmp_path):
    args = ("survey", "1-200000", "--jobs", "2")
    code, out, err = run_cli(*args, "--dir", str(tmp_path / "whole"), "--json")
    assert code == 0, err
    whole = json.loads(out)
    assert whole["counts"]["unwinnable"] == 3 and whole["unwinnable"] == [11982, 146692, 186216]  # the list's
    resumed = killed_and_resumed(str(tmp_path / "killed"), args, kills=3, min_records=3)
    assert survey.comparable(resumed) == survey.comparable(whole)


@pytest.mark.e2e
def test_dask_local_cluster_with_a_worker_killed(tmp_path):
    pytest.importorskip("dask.distributed", reason="dask not installed: pip install -e '.[cluster]'")
    import threading
    from dask.distributed import Client, LocalCluster
    whole = survey.run(1, 300, str(tmp_path / "local"), max_states=20000, chunk=5)
    killed = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            address = next(iter(client.scheduler_info()["workers"]))
            pid = client.run(os.getpid, workers=[address])[address]

            def kill_one():          # once two chunks are journalled: SIGKILL one worker, mid-run
                deadline = time.time() + 300
                while time.time() < deadline and records(str(tmp_path / "dask")) < 2:
                    time.sleep(0.005)
                os.kill(pid, signal.SIGKILL)
                killed.append(records(str(tmp_path / "dask")))
            t = threading.Thread(target=kill_one, daemon=True)
            t.start()
            s = survey.run(1, 300, str(tmp_path / "dask"), max_states=20000, chunk=5, client=client)
            t.join()
    assert killed and killed[0] < 60, killed          # the worker died before the last of the 60 chunks
    assert survey.comparable(s) == survey.comparable(whole)


@pytest.mark.parametrize("args,message", [
    (("0-5",), "range must satisfy 1 <= A <= B <= 8589934591, got '0-5'"),
    (("1-8589934592",), "range must satisfy 1 <= A <= B <= 8589934591, got '1-8589934592'"),
    (("1-5", "--chunk", "0"), "--chunk must be a whole number from 1 to 8589934591, got '0'"),
    (("1-5", "--second-max-states", "x"), "--second-max-states must be a whole number from 1 to 2147483647, got 'x'"),
])
def test_bad_survey_arguments_are_one_line(tmp_path, args, message):
    code, out, err = run_cli("survey", *args, "--dir", str(tmp_path / "s"))
    assert code == 2 and err == f"error: {message}\n"
    assert not (tmp_path / "s").exists()


def test_prove_survey_needs_a_survey_directory(tmp_path):
    code, out, err = run_cli("prove-survey", str(tmp_path))
    assert code == 2 and err == f"error: {tmp_path} is not a survey directory (no certs/ folder)\n"


def test_prove_from_survey_is_prove_survey(tmp_path):
    code, out, err = run_cli("prove", "--from-survey", str(tmp_path))
    assert code == 2 and err == f"error: {tmp_path} is not a survey directory (no certs/ folder)\n"
    code, out, err = run_cli("prove", "--deal", "1", "--from-survey", str(tmp_path))
    assert code == 2 and err == "error: give either a position or --from-survey DIR, not both\n"


def test_prove_survey_refuses_an_unfinished_survey(tmp_path):
    os.makedirs(tmp_path / "certs")
    code, out, err = run_cli("prove-survey", str(tmp_path))
    assert code == 2 and err == f"error: {tmp_path} holds an unfinished survey (no summary.json): finish it " \
                                "first by running its `certgen survey` command again\n", err


def test_damaged_journal_records(tmp_path):
    # A record edited by hand (its digest no longer matches) is done again; a journal that is not a database
    # is one error line naming it.
    d = str(tmp_path / "s")
    assert run_cli("survey", "1-4", "--dir", d, "--chunk", "2", "--no-progress")[0] == 0
    before = summary_of(d)
    sql(d, "UPDATE records SET body = replace(body, '\"winnable\": 2', '\"winnable\": 1') WHERE key = 1")
    assert records(d) == 2
    code, out, err = run_cli("survey", "1-4", "--dir", d, "--chunk", "2", "--no-progress")
    assert code == 0 and "Traceback" not in err, err
    assert survey.comparable(summary_of(d)) == survey.comparable(before)
    for name in os.listdir(d):
        if name.startswith(JOURNAL):
            os.unlink(os.path.join(d, name))
    with open(os.path.join(d, JOURNAL), "w") as f:
        f.write("{not a database" * 100)
    code, out, err = run_cli("survey", "1-4", "--dir", d, "--chunk", "2", "--no-progress")
    assert code == 2 and err.startswith(f"error: {os.path.join(d, JOURNAL)} is not a journal this version reads") \
        and err.count("\n") == 1, err


@pytest.mark.parametrize("damage", ["missing", "one byte", "another deal's"])
@pytest.mark.parametrize("which_pass", [1, 2])
def test_a_resumed_survey_checks_the_certificates_it_names(tmp_path, monkeypatch, damage, which_pass):
    # The first pass (a chunk record) or the second (its record) names deal 7 (no free cell: small and
    # unwinnable) unwinnable; its certificate is then lost or damaged: the resumed survey does that work
    # again instead of counting it.
    d, rules = str(tmp_path / "s"), Rules(cells=0)
    limits = {"max_states": 10, "second_max_states": 3_000_000} if which_pass == 2 else {}
    first = survey.run(7, 7, d, rules=rules, chunk=1, **limits)
    assert first["unwinnable"] == [7] and first["second_pass"] == ({"7": "unwinnable"} if which_pass == 2 else {})
    path = os.path.join(d, "certs", "Deal7Cells0.cert")
    with open(path, "rb") as f:
        good = f.read()
    if damage == "missing":
        os.unlink(path)
    elif damage == "one byte":
        data = bytearray(good)
        data[len(data) // 2] ^= 0x01
        with open(path, "wb") as f:
            f.write(bytes(data))
    else:   # a sound certificate, of another start
        pos = deals.ms_deal(8)
        certificate.write(path, certificate.make({"kind": "ms", "deal": 7}, rules.to_dict(), pos,
                                                 [packed.pack(pos)], {}))
    redone = []     # the first pass's deals come through classify_range, the second pass's through classify
    real_range, real = survey.classify_range, survey.classify
    monkeypatch.setattr(survey, "classify_range", lambda a, b, *r: redone.extend(range(a, b + 1)) or real_range(a, b, *r))
    monkeypatch.setattr(survey, "classify", lambda n, *a: redone.append(n) or real(n, *a))
    again = survey.run(7, 7, d, rules=rules, chunk=1, **limits)
    assert set(redone) == {7}
    assert survey.comparable(again) == survey.comparable(first)
    with open(path, "rb") as f:
        assert f.read() == good
    redone.clear()          # an intact survey is not redone
    survey.run(7, 7, d, rules=rules, chunk=1, **limits)
    assert redone == []


@pytest.mark.parametrize("edit", ["all winnable", "unknown without rows", "counts short", "row outside",
                                  "lengths", "renamed"])
def test_a_chunk_record_that_disagrees_with_itself_is_done_again(tmp_path, monkeypatch, edit):
    # A well-formed record edited to say deal 3 (one free cell: unwinnable, 448 positions) was winnable, or
    # with counts its rows and histograms do not bear out: the resumed survey does that chunk again. Deal 2 is
    # winnable with one cell.
    d, rules = str(tmp_path / "s"), Rules(cells=1)
    first = survey.run(2, 3, d, rules=rules, chunk=2)
    assert first["unwinnable"] == [3] and first["counts"] == {"winnable": 1, "unwinnable": 1, "unknown": 0}
    [(key, last, body)] = sql(d, "SELECT key, last, body FROM records WHERE tbl = 'chunk'")
    rec = json.loads(body)
    c = rec["counts"]
    if edit == "all winnable":
        rec["counts"] = {"winnable": 2, "unwinnable": 0, "unknown": 0}
        rec["rows"] = []
        rec["certs"] = {}
        rec["lengths"] = {"100": 2}          # even the histogram made to agree
    elif edit == "unknown without rows":
        rec["counts"] = {"winnable": c["winnable"], "unwinnable": 0, "unknown": c["unwinnable"]}
        rec["rows"] = []
        rec["certs"] = {}
    elif edit == "counts short":
        rec["counts"]["winnable"] -= 1
    elif edit == "row outside":
        rec["rows"][0][0] = 9
    elif edit == "lengths":
        rec["lengths"] = {}
    else:                                   # the record moved to another range
        last = 1
    # An edit by hand leaves the digest as it was: caught by it. The edits that break the record's own
    # arithmetic are caught with the digest recomputed too (one that keeps it whole is not: the digest is no
    # signature, docs/TRUST.md; the certificates are the proofs).
    sha = digest("chunk", key, rec, last) if edit not in ("all winnable", "unknown without rows") else "0" * 64
    sql(d, "UPDATE records SET last = ?, body = ?, sha256 = ? WHERE tbl = 'chunk'", last, json.dumps(rec), sha)
    os.unlink(os.path.join(d, "summary.json"))
    redone = []
    real = survey.classify_range
    monkeypatch.setattr(survey, "classify_range", lambda a, b, *r: redone.extend(range(a, b + 1)) or real(a, b, *r))
    again = survey.run(2, 3, d, rules=rules, chunk=2)
    assert redone == [2, 3]
    assert survey.comparable(again) == survey.comparable(first) and again["unwinnable"] == [3]


def test_two_surveys_on_one_folder_are_refused(tmp_path):
    # Two runs at once ended with a folder of mixed limits: the second is refused, naming the first's process.
    d = str(tmp_path / "s")
    with open_journal(d, "certgen survey", "held by the test"):
        code, out, err = run_cli("survey", "1-4", "--dir", d, "--max-states", "1000")
        assert code == 2 and err == f"error: {d} is in use by another survey (process {os.getpid()}): wait for it " \
                                    "to end, or give another folder\n", err
    assert run_cli("survey", "1-4", "--dir", d)[0] == 0       # free again once the first has ended


def test_dir_dash_and_old_folders_are_one_line(tmp_path):
    code, out, err = run_cli("survey", "1-10", "--dir", "-")
    assert code == 2 and err == "error: the survey directory: '-' is not a folder (write ./- for a folder of " \
                                "that name)\n", err
    assert not os.path.exists(os.path.join(ROOT, "-"))
    old = tmp_path / "old"
    (old / "chunks").mkdir(parents=True)
    (old / "survey.json").write_text("{}")
    code, out, err = run_cli("survey", "1-10", "--dir", str(old))
    assert code == 2 and err == f"error: {old} holds a survey of the older format (survey.json and chunks, no " \
                                f"{JOURNAL}): this version does not go on with it; give a new --dir\n", err
    (old / "certs").mkdir()
    (old / "summary.json").write_text("{}")
    code, out, err = run_cli("prove-survey", str(old))
    assert code == 2 and err == f"error: {old} holds a survey of the older format (no {JOURNAL}): run the survey " \
                                "again with a new --dir\n", err


def test_the_summary_says_this_runs_time_the_total_and_both_commands(tmp_path):
    d = str(tmp_path / "s")
    code, out, err = run_cli("survey", "1-4", "--dir", d, "--json")
    one = json.loads(out)
    assert one["runs"] == 1 and one["first_command"] == one["latest_command"] == f"python -m certgen survey 1-4 --dir {d} --json"
    time.sleep(1)
    code, out, err = run_cli("survey", "1-4", "--dir", d, "--no-progress")
    assert code == 0 and "; this run " in out and " s in 2 runs\n" in out, out
    two = summary_of(d)
    assert two["runs"] == 2 and two["first_command"] == one["first_command"]
    assert two["latest_command"] == f"python -m certgen survey 1-4 --dir {d} --no-progress"
    # this run only took a moment; the total is both runs' (not the time since the folder was made)
    assert two["wall_seconds"] < 1 and one["wall_seconds"] <= two["total_seconds"] < one["wall_seconds"] + 1.5


def _forged(path):
    """The certificate at ``path`` with one state deleted and written again: its SHA-256 is right, its set
    not closed."""
    cert = certificate.read(path)
    cert.records = cert.records[:-1]
    certificate.write(path, cert)


def test_a_resumed_survey_checks_a_certificate_that_changed(tmp_path):
    # A forged certificate (one state deleted, its checksum recomputed) over the survey's: the same command
    # again re-checks the changed file, finds it invalid and redoes the chunk; the file is the survey's again.
    d = str(tmp_path / "s")
    args = ("survey", "7-8", "--cells", "0", "--chunk", "1", "--dir", d, "--json")
    code, out, err = run_cli(*args)
    assert code == 0 and json.loads(out)["unwinnable"] == [7, 8], err
    path = os.path.join(d, "certs", "Deal7Cells0.cert")
    with open(path, "rb") as f:
        good = f.read()
    _forged(path)
    assert not checker.check(certificate.read(path), jobs=1).ok
    code, out, err = run_cli(*args)
    assert code == 0 and json.loads(out)["unwinnable"] == [7, 8], err
    with open(path, "rb") as f:
        assert f.read() == good
    assert records(d) == 2


def test_prove_survey_checks_each_certificate_is_its_deals(tmp_path, coq_library):
    # Deal 8's certificate under deal 7's name: refused by number, the other proven as far as this machine
    # goes (Lean is not run outside its library's folder), and the last line lists both.
    d = str(tmp_path / "s")
    assert run_cli("survey", "7-8", "--cells", "0", "--chunk", "1", "--dir", d)[0] == 0
    certs = os.path.join(d, "certs")
    with open(os.path.join(certs, "Deal8Cells0.cert"), "rb") as f:
        eight = f.read()
    with open(os.path.join(certs, "Deal7Cells0.cert"), "wb") as f:
        f.write(eight)
    with open(os.path.join(certs, "Extra.cert"), "wb") as f:
        f.write(eight)
    code, out, err = run_cli("prove-survey", d, "--lean-dir", str(tmp_path / "lean"), "--out-dir",
                             coq_library(tmp_path / "out"), "--no-progress")
    if shutil.which("coqc") is None:
        assert code == 3, (out, err)            # no prover ran: nothing is said proven
        return
    assert code == 1, (out, err)
    assert "Deal7Cells0.cert: not deal 7's certificate (its start is not deal 7's, which its name and the " \
           "survey's journal say)\n" in out
    assert "Extra.cert: not a certificate the survey's journal names: left out\n" in out
    assert out.count("wrote ") == 2 and out.endswith("proven: 8; could not prove: 7\n"), out


def test_sigterm_stops_a_survey_in_one_line_and_the_same_command_goes_on(tmp_path):
    # One process (no pool): SIGTERM ended it without a word (killed by the signal). The journal takes it as
    # Ctrl-C: one line, the records kept, and the same command goes on to the summary a straight run gives.
    d = str(tmp_path / "s")
    args = ("survey", "1-3000", "--chunk", "30", "--max-states", "20000", "--no-progress")
    p = cli(*args, "--dir", d)
    deadline = time.time() + 300
    while time.time() < deadline and records(d) < 2:
        time.sleep(0.01)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and err == "stopped (SIGTERM) before an answer, nothing is claimed\n", (p.returncode, err)
    kept = records(d)
    assert 2 <= kept < 100
    assert run_cli(*args, "--dir", d)[0] == 0 and records(d) == 100


def test_prove_survey_refuses_a_certificate_of_other_rules(tmp_path, monkeypatch):
    """A valid certificate of the same deal under other rules put in place of the survey's (and its digest in
    the journal's record matching or not): prove-survey names it and does not count the deal as proven."""
    from certgen import prove
    d, rules = str(tmp_path / "s"), Rules(cells=0)
    assert survey.run(7, 7, d, rules=rules, chunk=1)["unwinnable"] == [7]
    other = survey.certify(7, Rules(cells=0, foundation_return=True), 100_000)
    with open(os.path.join(d, "certs", "Deal7Cells0.cert"), "wb") as f:
        f.write(other)
    monkeypatch.setattr(prove, "find_provers", lambda wanted, say: [])
    monkeypatch.setattr(prove, "prove_prepared", lambda *a: prove.PROVED)
    said = []
    assert prove.prove_survey(d, str(tmp_path / "o"), None, say=said.append) == prove.REFUSED
    assert "Deal7Cells0.cert: a certificate under other rules than the survey's (0 free cells): it proves nothing " \
           "about deal 7 here" in said
    assert said[-1] == "proven: none; could not prove: 7"
