"""certgen certify-list (certgen/certify.py): ledger rows rebuilt by `certgen build` with the same
records_sha256, the same ledger after SIGKILL and a restart, a second run on the folder refused, bad input
in one line, the import of a committed ledger, winnable and unknown rows."""
import csv
import gzip
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from certgen import certify
from solver.journal import open_journal

from helpers import ROOT, journal_records, one_line_error as _one_line_error
from helpers.survey import cli, run_cli as survey_run_cli

LEDGER = os.path.join(ROOT, "docs", "data", "freecell-pro-impossible-ledger.csv.gz")
SMALL = [146692, 186216, 455889, 781948, 1155215, 1495908, 1631319, 1662054, 2070322]   # listed, < 40,000 positions


def run_cli(*args):
    return survey_run_cli(*args, timeout=600)


def ledger_rows(path):
    with gzip.open(path, "rt") as f:
        return list(csv.reader(f))


def without_seconds(rows):
    return [r[:-1] for r in rows]


def write_list(tmp_path, deals, name="list.txt"):
    path = tmp_path / name
    path.write_text("".join(f"{n}\n" for n in deals))
    return str(path)


def rows_in(d):
    return journal_records(d, "deal")


def test_three_random_small_ledger_rows_rebuilt_give_their_records_sha256(tmp_path):
    rows = ledger_rows(LEDGER)
    assert rows[0] == list(certify.LEDGER_FIELDS)
    small = [r for r in rows[1:] if r[1] in ("fixed", "canonical-safe") and int(r[2]) <= 60_000]
    assert len(small) >= 3
    for deal, form, positions, max_home, sha, _s in random.Random().sample(small, 3):
        cert = str(tmp_path / f"{deal}.cert")
        extra = ("--canonical", "--autoplay", "safe") if form == "canonical-safe" else ()
        code, out, err = run_cli("build", "--deal", deal, *extra, "--out", cert, "--no-progress")
        assert code == 0, err
        code, out, err = run_cli("info", "--json", cert)
        info = json.loads(out)
        assert (info["records_sha256"], info["states"], info["info"]["max_home"]) == (sha, int(positions),
                                                                                      int(max_home)), deal


@pytest.mark.e2e
def test_sigkill_and_restart_give_the_same_ledger(tmp_path):
    lst = write_list(tmp_path, SMALL)
    whole = str(tmp_path / "whole")
    code, out, err = run_cli("certify-list", lst, "--dir", whole)
    assert code == 0, err
    expected = ledger_rows(os.path.join(whole, certify.LEDGER))
    assert [int(r[0]) for r in expected[1:]] == SMALL and {r[1] for r in expected[1:]} == {"fixed"}
    d = str(tmp_path / "killed")
    p = cli("certify-list", lst, "--dir", d)
    deadline = time.time() + 300
    while time.time() < deadline and p.poll() is None and rows_in(d) < 2:
        time.sleep(0.01)
    assert p.poll() is None, "the run ended before it could be killed"
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert 2 <= rows_in(d) < len(SMALL)
    code, out, err = run_cli("certify-list", lst, "--dir", d)
    assert code == 0, err
    assert without_seconds(ledger_rows(os.path.join(d, certify.LEDGER))) == without_seconds(expected)
    assert not os.path.exists(os.path.join(d, "tmp")) and not os.path.exists(os.path.join(d, "certs"))


def test_a_second_run_on_the_same_folder_is_refused(tmp_path):
    lst = write_list(tmp_path, SMALL[:1])
    d = str(tmp_path / "d")
    with open_journal(d, certify.KIND, "held by the test", what="certify-list"):
        p = subprocess.run([sys.executable, "-m", "certgen", "certify-list", lst, "--dir", d], cwd=ROOT,
                           capture_output=True, text=True)
    _one_line_error(p, f"{d} is in use by another certify-list (process {os.getpid()}): wait for it to end, "
                       f"or give another folder")


def test_bad_input_is_one_line(tmp_path):
    lst = write_list(tmp_path, SMALL[:1])
    d = str(tmp_path / "d")
    run = lambda *a: subprocess.run([sys.executable, "-m", "certgen", "certify-list", *a], cwd=ROOT,  # noqa: E731
                                    capture_output=True, text=True)
    missing = str(tmp_path / "nope.txt")
    _one_line_error(run(missing, "--dir", d), f"{missing}: No such file or directory")
    assert "range must satisfy" in _one_line_error(run(lst, "--dir", d, "--range", "9-3"))
    assert "range must be A-B" in _one_line_error(run(lst, "--dir", d, "--range", "x-3"))
    bad = tmp_path / "bad.txt"
    bad.write_text("11982\n12x\n")
    _one_line_error(run(str(bad), "--dir", d), f"{bad} line 2: '12x' is not a deal number (1..8,589,934,591)")
    bad.write_text("0\n")
    _one_line_error(run(str(bad), "--dir", d), f"{bad} line 1: '0' is not a deal number (1..8,589,934,591)")


def test_a_new_folder_goes_on_from_a_ledger_and_refuses_a_deal_not_listed(tmp_path):
    lst = write_list(tmp_path, SMALL[:4])
    first = str(tmp_path / "first")
    code, out, err = run_cli("certify-list", lst, "--dir", first, "--range", f"1-{SMALL[2]}")
    assert code == 0, err
    ledger = os.path.join(first, certify.LEDGER)
    assert len(ledger_rows(ledger)) == 4
    d = str(tmp_path / "next")
    code, out, err = run_cli("certify-list", lst, "--dir", d, "--from-ledger", ledger)
    assert code == 0, err
    assert "3 rows taken" in err and "4 of 4 in the ledger: 4 fixed" in out
    rows = ledger_rows(os.path.join(d, certify.LEDGER))
    assert rows[:4] == ledger_rows(ledger)                   # the imported rows as they were, seconds too
    assert int(rows[4][0]) == SMALL[3]
    code, out, err = run_cli("certify-list", lst, "--dir", d, "--from-ledger", ledger)   # again: the same rows
    assert code == 0 and "0 rows taken" in err, err
    shorter = write_list(tmp_path, SMALL[1:4], "shorter.txt")
    p = subprocess.run([sys.executable, "-m", "certgen", "certify-list", shorter, "--dir", str(tmp_path / "x"),
                        "--from-ledger", ledger], cwd=ROOT, capture_output=True, text=True)
    _one_line_error(p, f"{ledger} line 2: deal {SMALL[0]} is not in the list")
    edited = tmp_path / "edited.csv"
    text = gzip.decompress(open(ledger, "rb").read()).decode().replace(f"{SMALL[1]},fixed,", f"{SMALL[1]},unknown,")
    edited.write_text(text)
    p = subprocess.run([sys.executable, "-m", "certgen", "certify-list", lst, "--dir", d, "--from-ledger",
                        str(edited)], cwd=ROOT, capture_output=True, text=True)
    assert "line 3: unknown row with records_sha256" in _one_line_error(p)


def test_a_winnable_listed_deal_is_said_with_its_line_and_a_limit_gives_unknown(tmp_path):
    lst = write_list(tmp_path, [1, 11982])
    d = str(tmp_path / "d")
    code, out, err = run_cli("certify-list", lst, "--dir", d, "--range", "1-1")
    assert code == 1
    line = [x for x in err.splitlines() if x.startswith("WINNABLE: deal 1 ")]
    assert len(line) == 1 and "replayed under the spec rules" in line[0], err
    assert ledger_rows(os.path.join(d, certify.LEDGER))[1][:5] == ["1", "winnable", "21063", "52", ""]
    d = str(tmp_path / "u")
    code, out, err = run_cli("certify-list", lst, "--dir", d, "--range", "2-20000", "--max-states", "1000",
                             "--canonical-max-states", "5000")
    assert code == 0, err
    assert without_seconds(ledger_rows(os.path.join(d, certify.LEDGER))) == [
        list(certify.LEDGER_FIELDS[:-1]), ["11982", "unknown", "5000", "", ""]]
    code, out, err = run_cli("certify-list", lst, "--dir", d, "--max-states", "2000")
    assert code == 2 and "other limits" in err
    again = str(tmp_path / "again")             # an unknown row of a ledger is done again, with this run's limits
    code, out, err = run_cli("certify-list", lst, "--dir", again, "--range", "2-20000", "--from-ledger",
                             os.path.join(d, certify.LEDGER))
    assert code == 0 and "0 rows taken" in err, err
    assert ledger_rows(os.path.join(again, certify.LEDGER))[1][:3] == ["11982", "fixed", "84767"]
    # a certified row of a ledger replaces the journal's unknown one (a certificate built apart, added elsewhere)
    code, out, err = run_cli("certify-list", lst, "--dir", d, "--range", "2-20000", "--max-states", "1000",
                             "--canonical-max-states", "5000", "--from-ledger", os.path.join(again, certify.LEDGER))
    assert code == 0 and "1 rows taken" in err, err
    assert ledger_rows(os.path.join(d, certify.LEDGER))[1:] == ledger_rows(os.path.join(again, certify.LEDGER))[1:]


def test_the_dask_engine_gives_the_local_ledger(tmp_path):
    pytest.importorskip("dask.distributed")
    lst = write_list(tmp_path, SMALL[:3])
    ledgers = []
    for name, extra in (("local", ()), ("dask", ("--engine", "dask"))):
        d = str(tmp_path / name)
        code, out, err = run_cli("certify-list", lst, "--dir", d, *extra)
        assert code == 0, err
        ledgers.append(without_seconds(ledger_rows(os.path.join(d, certify.LEDGER))))
    assert ledgers[0] == ledgers[1] and len(ledgers[0]) == 4


def test_keep_certs_keeps_the_checked_certificate_of_the_row(tmp_path):
    lst = write_list(tmp_path, SMALL[:1])
    d = str(tmp_path / "d")
    code, out, err = run_cli("certify-list", lst, "--dir", d, "--keep-certs")
    assert code == 0, err
    cert = os.path.join(d, "certs", f"Deal{SMALL[0]}.cert")
    assert os.listdir(os.path.join(d, "certs")) == [f"Deal{SMALL[0]}.cert"]
    code, out, err = run_cli("info", "--json", cert)
    assert json.loads(out)["records_sha256"] == ledger_rows(os.path.join(d, certify.LEDGER))[1][4]
    code, out, err = run_cli("check", cert)
    assert code == 0 and out.startswith("valid"), out


def test_a_certificate_built_apart_is_added_once_the_fast_checker_accepts_it(tmp_path):
    # #219837216's certificate comes from a resumable disk build (certgen build --memory --work-dir), not a run
    deal = 966934022                                        # canonical-safe, 16,855 positions in the ledger
    want = {int(r[0]): r for r in ledger_rows(LEDGER)[1:]}[deal]
    lst = write_list(tmp_path, [SMALL[0], deal])
    disk = str(tmp_path / "disk.cert")
    code, out, err = run_cli("build", "--deal", str(deal), "--canonical", "--autoplay", "safe", "--memory", "64M",
                             "--on-disk", "--out", disk, "--no-progress")
    assert code == 0, err
    d = str(tmp_path / "d")                                 # an unknown row at small limits, then the certificate
    limits = ("--max-states", "1000", "--canonical-max-states", "5000")
    code, out, err = run_cli("certify-list", lst, "--dir", d, "--range", f"{deal}-{deal}", *limits)
    assert code == 0 and ledger_rows(os.path.join(d, certify.LEDGER))[1][:2] == [str(deal), "unknown"], err
    code, out, err = run_cli("certify-list", lst, "--dir", d, *limits, "--add-cert", disk)
    assert code == 0 and f"deal {deal} added as disk-canonical-safe, 16,855 positions" in err, err
    assert "1 of 2 in the ledger" in out, out               # nothing searched: SMALL[0] has no row
    row = ledger_rows(os.path.join(d, certify.LEDGER))[1]
    assert row[:5] == [str(deal), "disk-canonical-safe", "16855", want[3], want[4]]
    code, out, err = run_cli("certify-list", lst, "--dir", d, *limits, "--add-cert", disk)   # again: the same row
    assert code == 0 and "is in" in err and ledger_rows(os.path.join(d, certify.LEDGER))[1] == row, err
    e = str(tmp_path / "e")                                 # default limits: within them, the in-memory form's name
    code, out, err = run_cli("certify-list", lst, "--dir", e, "--add-cert", disk)
    assert code == 0 and ledger_rows(os.path.join(e, certify.LEDGER))[1][:2] == [str(deal), "canonical-safe"], err


def test_a_certificate_added_apart_is_refused_in_one_line(tmp_path):
    deal = SMALL[0]
    lst = write_list(tmp_path, [deal])
    certs = {}
    for name, extra in (("fixed", ()), ("safe", ("--canonical", "--autoplay", "safe")), ("canon", ("--canonical",))):
        certs[name] = str(tmp_path / f"{name}.cert")
        code, out, err = run_cli("build", "--deal", str(deal), *extra, "--out", certs[name], "--no-progress")
        assert code == 0, err
    other = str(tmp_path / "other.cert")
    code, out, err = run_cli("build", "--deal", "11982", "--out", other, "--no-progress")
    assert code == 0, err
    data = bytearray(open(certs["fixed"], "rb").read())
    data[len(data) // 2] ^= 1
    damaged = tmp_path / "damaged.cert"
    damaged.write_bytes(bytes(data))
    d = str(tmp_path / "d")
    add = lambda cert: subprocess.run([sys.executable, "-m", "certgen", "certify-list", lst, "--dir", d,  # noqa: E731
                                       "--add-cert", cert], cwd=ROOT, capture_output=True, text=True)
    assert "the certificate of deal 11982, which is not a deal of the list" in _one_line_error(add(other))
    p = subprocess.run([sys.executable, "-m", "certgen", "certify-list", lst, "--dir", d, "--range", "1-9",
                        "--add-cert", certs["fixed"]], cwd=ROOT, capture_output=True, text=True)
    assert "--add-cert adds the rows of its certificates' deals and searches nothing: give it without --range" \
        in _one_line_error(p)
    assert "neither the fixed form's nor the canonical-safe form's" in _one_line_error(add(certs["canon"]))
    assert str(damaged) in _one_line_error(add(str(damaged)))
    mutant = str(tmp_path / "mutant.cert")                  # whole, its digest right, a successor deleted
    code, out, err = run_cli("mutate", certs["fixed"], "--delete", "first-successor", "--out", mutant)
    assert code == 0, err
    assert f"the fast checker does not accept it as deal {deal}'s certificate" in _one_line_error(add(mutant))
    p = add(certs["fixed"])
    assert p.returncode == 0 and f"deal {deal} added as fixed" in p.stderr, p.stderr
    assert f"deal {deal} has a fixed row with other records" in _one_line_error(add(certs["safe"]))
    assert [r[:2] for r in ledger_rows(os.path.join(d, certify.LEDGER))[1:]] == [[str(deal), "fixed"]]


CERTIFY_ROWS = [     # certify_deal's rows (but seconds) with the forms searched one after the other (commit 44f15ac)
    ((146692, 5_000, 80_000_000), ("canonical-safe", 8603, 9, "5aab5adc"), ["safe"]),
    ((146692, 10_000, 80_000_000), ("canonical-safe", 8603, 9, "5aab5adc"), ["safe", "fixed"]),
    ((146692, 20_000, 80_000_000), ("fixed", 19527, 9, "0b3c6cb4"), ["safe", "fixed"]),
    ((146692, 5_000, 8_000), ("unknown", 8000, None, None), ["safe", "fixed"]),
    ((11982, 1_000, 5_000), ("unknown", 5000, None, None), ["safe", "fixed"]),
    ((1, 1_000, 100_000), ("winnable", 25199, 52, None), ["safe", "fixed"]),
]


@pytest.mark.parametrize("task, row, searched", CERTIFY_ROWS)
def test_the_fixed_search_is_skipped_only_when_the_set_up_to_column_order_is_past_its_limit(tmp_path, monkeypatch,
                                                                                        task, row, searched):
    """Deal 146692: 19,527 positions with fixed columns, 8,603 up to column order with the safe automatic
    moves. Its search up to column order runs first, once; the fixed one is skipped when that set is
    complete and bigger than max_states (it could not complete), and the row is the one the forms give
    in order."""
    from solver import search
    runs, explore = [], search.explore

    def spy(start, rules=None, *a, **k):
        runs.append("safe" if rules == certify.SAFE else "fixed")
        return explore(start, rules, *a, **k)
    monkeypatch.setattr(search, "explore", spy)
    n, max_states, canonical = task
    got = certify.certify_deal({"deal": n, "max_states": max_states, "canonical_max_states": canonical,
                                "memory": None, "tmp": str(tmp_path), "certs": None})
    sha = got["records_sha256"]
    assert (got["form"], got["positions"], got["max_home"], sha and sha[:8]) == row
    assert runs == searched
    assert os.listdir(tmp_path) == []


def test_a_certificate_added_apart_with_odd_info_a_damaged_body_or_not_a_file_is_refused_in_one_line(tmp_path):
    # the info is the builder's word, not checked by the fast checker: a row takes only what a row can hold,
    # and its max_home from the records the checker read, not from the info. A body damaged under a right
    # SHA-256 (a record twice, two records swapped: written so) is the checker's to find: its reason is said
    from certgen import certificate
    deal = SMALL[0]
    lst = write_list(tmp_path, [deal])
    good = str(tmp_path / "good.cert")
    code, out, err = run_cli("build", "--deal", str(deal), "--out", good, "--no-progress")
    assert code == 0, err
    cert = certificate.read(good)
    d = str(tmp_path / "d")
    add = lambda path: subprocess.run([sys.executable, "-m", "certgen", "certify-list", lst, "--dir", d,  # noqa: E731
                                       "--add-cert", path], cwd=ROOT, capture_output=True, text=True, timeout=120)
    for name, info in (("inf", {"search_seconds": float("inf")}), ("nan", {"search_seconds": float("nan")}),
                       ("negative", {"search_seconds": -5}), ("text", {"search_seconds": "12"})):
        path = str(tmp_path / f"{name}.cert")
        certificate.write(path, certificate.Certificate(source=cert.source, rules=cert.rules, start=cert.start,
                                                        records=cert.records, info={**cert.info, **info}))
        assert "not a certificate certgen build wrote" in _one_line_error(add(path)), name
    recs = list(cert.records)
    for name, records, at in (("twice", recs + recs[-1:], len(recs) + 1),
                              ("swapped", recs[:5] + [recs[6], recs[5]] + recs[7:], 7),
                              ("two\nlines", recs + recs[-1:], len(recs) + 1)):    # named once, a newline a space
        path = str(tmp_path / f"{name}.cert")
        certificate.write(path, certificate.Certificate(cert.source, cert.rules, cert.start, records, cert.info))
        said = path.replace("\n", " ")
        assert _one_line_error(add(path)) == (f"error: {said}: no checker gave a verdict on it (a damaged or "
                                              f"unreadable file): records are not sorted and distinct (record {at}); "
                                              f"no row added")
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)                     # with a writer: read once, then opened again by the checker (for ever)
    writer = subprocess.Popen(["sh", "-c", f"cat {good} > {fifo}"])
    try:
        assert "not a regular file" in _one_line_error(add(fifo))
    finally:
        writer.kill()
        writer.wait()
    assert not os.path.exists(os.path.join(d, certify.LEDGER)) or len(ledger_rows(os.path.join(d, certify.LEDGER))) == 1
    assert cert.info["max_home"] == 9
    wrong = str(tmp_path / "wrong.cert")        # the info's max_home wrong (50, then absent): the row's is the records'
    unsaid = {key: v for key, v in cert.info.items() if key != "max_home"}
    for k, info in enumerate(({**cert.info, "max_home": 50}, unsaid)):
        certificate.write(wrong, certificate.Certificate(source=cert.source, rules=cert.rules, start=cert.start,
                                                         records=cert.records, info=info))
        p = subprocess.run([sys.executable, "-m", "certgen", "certify-list", lst, "--dir", d + str(k), "--add-cert",
                            wrong], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and f"deal {deal} added as fixed" in p.stderr, p.stderr
        assert ledger_rows(os.path.join(d + str(k), certify.LEDGER))[1][3] == "9"
    p = add(good)
    assert p.returncode == 0 and f"deal {deal} added as fixed" in p.stderr, p.stderr
    row = ledger_rows(os.path.join(d, certify.LEDGER))[1]
    assert row[3] == "9" and 0 <= float(row[5]) < 60, row
    bad = tmp_path / "bad.csv"          # a ledger whose seconds are not a number of seconds is refused too
    for secs in ("inf", "nan", "-1"):
        bad.write_text(",".join(certify.LEDGER_FIELDS) + "\n" + ",".join(row[:5] + [secs]) + "\n")
        e = str(tmp_path / f"e{secs}")
        p = subprocess.run([sys.executable, "-m", "certgen", "certify-list", lst, "--dir", e, "--from-ledger",
                            str(bad)], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert f"line 2: seconds '{secs}'" in _one_line_error(p), secs


def test_a_certificate_changed_while_it_is_checked_adds_no_row(tmp_path, monkeypatch):
    from certgen import survey
    deal = SMALL[0]
    good = str(tmp_path / "good.cert")
    code, out, err = run_cli("build", "--deal", str(deal), "--out", good, "--no-progress")
    assert code == 0, err
    other = str(tmp_path / "other.cert")
    code, out, err = run_cli("build", "--deal", str(deal), "--canonical", "--autoplay", "safe", "--out", other,
                             "--no-progress")
    assert code == 0, err
    swap = str(tmp_path / "swap.cert")
    os.link(other, swap)
    checked = survey.checked_for

    def swapped(path, n, rules, digest=False):  # the file summarized is not the one checked: renamed over meanwhile
        ok = checked(path, n, rules, digest)
        os.replace(good, path)
        return ok
    monkeypatch.setattr(survey, "checked_for", swapped)
    with open_journal(str(tmp_path / "d"), certify.KIND, "test", what="certify-list") as j:
        with pytest.raises(Exception, match="changed while it was read and checked"):
            certify.add_certificate(j, swap, {deal}, 10 ** 6, lambda _t: None)
        assert list(j.rows("deal")) == []


def test_a_ledger_row_replaces_only_an_unknown_row_and_only_by_a_certified_one(tmp_path):
    """--from-ledger over a journal: a certified row replaces the journal's unknown one; a winnable row does not
    (refused as a row that differs: only a certificate's row stands in for a search), nor does any row replace a
    certified one with other records; an unknown row of the ledger leaves the journal's row as it is. CRLF line
    ends and a byte order mark (a spreadsheet's) are read; a deal twice is one line."""
    from solver.errors import FreecellError
    sha = lambda c: c * 64                           # noqa: E731
    head = ",".join(certify.LEDGER_FIELDS)
    d = str(tmp_path / "d")
    with open_journal(d, certify.KIND, "test", what="certify-list") as j:
        for n, form, body in ((5, "unknown", [1000, None, None]), (7, "fixed", [300, 9, sha("a")]),
                              (9, "unknown", [1000, None, None])):
            j.record("deal", n, dict(zip(("positions", "max_home", "records_sha256"), body), seconds=1.5),
                     verdict=form)

        def ledger(*rows, end="\n", bom=""):
            path = tmp_path / f"l{len(os.listdir(tmp_path))}.csv"
            path.write_bytes((bom + end.join((head,) + rows) + end).encode())
            return str(path)

        def rows():
            return {n: [form, body["positions"], body["records_sha256"]] for n, _l, form, body in j.rows("deal")}
        listed = {5, 7, 9}
        before = rows()
        for bad, why in ((ledger("5,winnable,21063,52,,2.0"), "deal 5's row differs"),
                         (ledger(f"7,fixed,300,9,{sha('b')},1.5"), "deal 7's row differs"),
                         (ledger(f"7,canonical-safe,300,9,{sha('a')},1.5"), "deal 7's row differs"),
                         (ledger("9,fixed,10,3," + sha("c") + ",1", "9,fixed,10,3," + sha("c") + ",1"),
                          "line 3: deal 9 twice"),
                         (ledger(f"9,fixed,10,3,{sha('c')},1", bom="\ufefe"), "not a ledger")):
            with pytest.raises(FreecellError, match=why):
                certify.import_ledger(j, bad, listed)
            assert rows() == before
        assert certify.import_ledger(j, ledger("5,unknown,99,,,1", "7,unknown,5,,,1"), listed) == 0
        assert rows() == before
        assert certify.import_ledger(j, ledger(f"9,disk-canonical-safe,10,3,{sha('c')},1", end="\r\n", bom="\ufeff"),
                                     listed) == 1
        assert rows() == {**before, 9: ["disk-canonical-safe", 10, sha("c")]}


def test_a_ledger_s_blank_lines_are_taken_at_its_end_only(tmp_path):
    """An editor's last newline leaves a blank last line (LF or CRLF, in a gzip file too): read; a blank line
    before a row is refused in one line naming it."""
    from solver.errors import FreecellError
    head, sha = ",".join(certify.LEDGER_FIELDS), "a" * 64
    rows = [f"7,fixed,300,9,{sha},1.5", "9,unknown,1000,,,2"]
    want = {7: ("fixed", {"positions": 300, "max_home": 9, "records_sha256": sha, "seconds": 1.5}),
            9: ("unknown", {"positions": 1000, "max_home": None, "records_sha256": None, "seconds": 2.0})}
    path = tmp_path / "l.csv"
    for end in ("\n", "\r\n"):
        for tail in (end, end * 3):
            for packed in (False, True):
                data = (end.join([head] + rows) + end + tail).encode()
                path.write_bytes(gzip.compress(data) if packed else data)
                assert certify.read_ledger(str(path), None) == want, (end, tail, packed)
        path.write_bytes((end.join([head, rows[0], "", rows[1]]) + end).encode())
        with pytest.raises(FreecellError) as e:
            certify.read_ledger(str(path), None)
        assert str(e.value) == f"{path} line 3: 0 fields, not 6"
        path.write_bytes((end.join([head, rows[0], "", "", rows[1]]) + end + end).encode())
        with pytest.raises(FreecellError, match=f"^{path} line 3: 0 fields, not 6$"):
            certify.read_ledger(str(path), None)


def test_a_ledger_the_csv_reader_cannot_read_is_one_line(tmp_path):
    """Lines ended by a carriage return alone (an old Mac's), a field past the CSV reader's 131,072 characters:
    one line naming the file and the line, exit status 2 (csv.Error was a traceback)."""
    head = ",".join(certify.LEDGER_FIELDS)
    lst = tmp_path / "list.txt"
    lst.write_text("7\n")
    for name, text, said in (
            ("cr", f"{head}\r7,unknown,1000,,,2\r", "line 1: not read as CSV (a carriage return not followed by "
                                                       "a line feed)"),
            ("long", f"{head}\n7,unknown,1000,,,{'2' * 200_000}\n", "line 2: not read as CSV (field larger than "
                                                                      "field limit (131072))")):
        path = tmp_path / f"{name}.csv"
        path.write_bytes(text.encode())
        p = subprocess.run([sys.executable, "-m", "certgen", "certify-list", str(lst), "--dir", str(tmp_path / name),
                            "--from-ledger", str(path)], cwd=ROOT, capture_output=True, text=True)
        _one_line_error(p, f"{path} {said}")


def test_a_certificate_added_apart_does_not_replace_a_winnable_row(tmp_path):
    """A winnable row (a winning line replayed) and a valid certificate of the same deal contradict each other:
    --add-cert refuses in one line and the row stays; over an unknown row the certificate's row goes in."""
    from solver.errors import FreecellError
    deal = SMALL[0]
    good = str(tmp_path / "good.cert")
    code, out, err = run_cli("build", "--deal", str(deal), "--out", good, "--no-progress")
    assert code == 0, err
    for form, body in (("winnable", {"positions": 21063, "max_home": 52, "records_sha256": None, "seconds": 1.0}),
                       ("unknown", {"positions": 5000, "max_home": None, "records_sha256": None, "seconds": 1.0})):
        with open_journal(str(tmp_path / form), certify.KIND, "test", what="certify-list") as j:
            j.record("deal", deal, body, verdict=form)
            if form == "winnable":
                with pytest.raises(FreecellError, match=f"deal {deal} has a winnable row in .*: no row added$"):
                    certify.add_certificate(j, good, {deal}, 10 ** 6, lambda _t: None)
                assert [(f, b["positions"]) for _n, _l, f, b in j.rows("deal")] == [("winnable", 21063)]
            else:
                assert certify.add_certificate(j, good, {deal}, 10 ** 6, lambda _t: None) == deal
                assert [(f, b["positions"], b["max_home"]) for _n, _l, f, b in j.rows("deal")] == [("fixed", 19527, 9)]


def test_a_certificate_added_apart_names_the_checker_that_checked_it(tmp_path, monkeypatch):
    """Where build/fccheck is not built the reference checker checks a certificate built apart, and the line
    says so, not "checked by the fast checker"."""
    from certgen import fastcheck
    deal = SMALL[0]
    good = str(tmp_path / "good.cert")
    code, out, err = run_cli("build", "--deal", str(deal), "--out", good, "--no-progress")
    assert code == 0, err
    said = []
    with open_journal(str(tmp_path / "d"), certify.KIND, "test", what="certify-list") as j:
        assert certify.add_certificate(j, good, {deal}, 10 ** 6, said.append) == deal
        monkeypatch.setattr(fastcheck, "binary", lambda: None)
        monkeypatch.setattr(fastcheck, "why_not", lambda: "build/fccheck is not built")
        j.delete("deal", deal)
        assert certify.add_certificate(j, good, {deal}, 10 ** 6, said.append) == deal
    assert said == [f"{good}: deal {deal} added as fixed, 19,527 positions, checked by the fast checker",
                    f"{good}: deal {deal} added as fixed, 19,527 positions, checked by the reference checker "
                    f"(build/fccheck is not built)"]


@pytest.mark.parametrize("built", [True, False])
def test_the_checker_named_is_the_one_whose_check_it_was(tmp_path, monkeypatch, built):
    """build/fccheck built (or rebuilt) or made stale (its source touched) while a certificate built apart is
    checked: the line names the checker that checked it, accepted or refused, not the one there after."""
    from certgen import fastcheck
    from solver.errors import FreecellError
    deal = SMALL[0]
    good, mutant = str(tmp_path / "good.cert"), str(tmp_path / "mutant.cert")
    code, out, err = run_cli("build", "--deal", str(deal), "--out", good, "--no-progress")
    assert code == 0, err
    code, out, err = run_cli("mutate", good, "--delete", "first-successor", "--out", mutant)
    assert code == 0, err
    binary, checked = fastcheck.binary, fastcheck.checked
    monkeypatch.setattr(fastcheck, "why_not", lambda: "build/fccheck is not built")

    def now(there):
        monkeypatch.setattr(fastcheck, "binary", binary if there else (lambda: None))

    def changed(*a, **k):             # the check, then build/fccheck changed
        got = checked(*a, **k)
        now(not built)
        return got
    monkeypatch.setattr(fastcheck, "checked", changed)
    name = "the fast checker" if built else "the reference checker (build/fccheck is not built)"
    said = []
    with open_journal(str(tmp_path / "d"), certify.KIND, "test", what="certify-list") as j:
        now(built)
        assert certify.add_certificate(j, good, {deal}, 10 ** 6, said.append) == deal
        j.delete("deal", deal)
        now(built)
        with pytest.raises(FreecellError) as e:
            certify.add_certificate(j, mutant, {deal}, 10 ** 6, said.append)
        assert list(j.rows("deal")) == []
    assert said == [f"{good}: deal {deal} added as fixed, 19,527 positions, checked by {name}"]
    assert str(e.value) == f"{mutant}: {name} does not accept it as deal {deal}'s certificate: no row added"
