"""Certificates up to column order (header rules ``"column_order": true``): built by ``certgen build
--canonical``, checked by both checkers (certgen/checker.py and build/fccheck), each putting every position
into its own copy of the checkers' column order (certgen/columns.py); their mutants refused by both; the
fixed-column certificate of #11982 unchanged; the three copies of the order (columns.canon, fccheck's
column_order, the builder's fc_p64_column_order) against a brute force on random positions."""
import hashlib
import json
import random
import subprocess
import sys

import msgpack
import pytest

from certgen import certificate, checker, columns, fastcheck, members, mutate, sampled, upto
from solver import packed, spec
from solver.errors import FreecellError
from solver.rules import Rules

from helpers.checkers import checks, mutated, refused_by_both
from helpers.positions import random_state

EXE = fastcheck.binary()
needs_fast = pytest.mark.skipif(EXE is None, reason=f"no fast checker: {fastcheck.why_not()}")
UP_TO = {"cells": 4, "foundation_return": False, "column_order": True}
# The SHA-256 of the compressed body of #11982's fixed-column certificate, as branch canon (before
# certificates up to column order) wrote it: its bytes must not change.
FIXED_BODY_11982 = "891daedac7bef346acb87774f35574e10b8aea41e287b28ca8c5e6dc268fa644"


def state_of(rec):
    return spec.from_position(packed.unpack(rec))


def p64(s):
    return packed.pack(spec.to_position(s))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """#11982 with 4 cells up to column order, by the command line: (path, certificate, build's stdout)."""
    path = tmp_path_factory.mktemp("upto") / "11982-upto.cert"
    p = subprocess.run([sys.executable, "-m", "certgen", "build", "--deal", "11982", "--canonical", "--out",
                        str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return path, certificate.read(str(path)), p.stdout


def written(tmp_path, name, cert):
    path = tmp_path / name
    certificate.write(str(path), cert)
    return path


# -- the build ---------------------------------------------------------------------------------------

def test_the_certificate_of_11982_up_to_column_order(built, run):
    path, cert, out = built
    assert cert.states == 83_239 and cert.rules == UP_TO
    assert "(up to column order)" in out and "83,239" in out
    assert all(columns.canon(s) == s for s in members.decode(cert).states)        # each in the checkers' order
    assert cert.start == p64(spec.ms_deal(11982))           # the header's start is the deal, not reordered
    assert columns.canon(spec.ms_deal(11982)) != spec.ms_deal(11982)
    info = run("info", str(path), module="certgen")
    assert info.returncode == 0 and "up to column order: 83,239 states" in info.stdout
    assert json.loads(run("info", "--json", str(path), module="certgen").stdout)["rules"] == UP_TO


def test_both_checkers_find_it_valid(built, run):
    path = built[0]
    ref, fast, rc_ref, rc_fast = checks(path, run)
    assert rc_ref == 0 and ref["valid"] and ref["states"] == 83_239 and ref["successors"] == 309_638
    assert ref["rules"] == UP_TO
    assert ref["message"].startswith("valid for deal 11982 under the standard rules (4 free cells, nothing back "
                                     "from the foundations) up to column order: 83,239 states; the start position "
                                     "(its columns in the checkers' order) is in the set")
    if fast is not None:
        assert rc_fast == 0 and fast["checker"] == "fast"
        assert {k: fast[k] for k in ("valid", "states", "successors", "message", "rules")} == \
            {k: ref[k] for k in ("valid", "states", "successors", "message", "rules")}


def test_the_fixed_column_certificate_is_unchanged(tmp_path, run):
    path = tmp_path / "fixed.cert"
    assert run("build", "--deal", "11982", "--out", str(path), module="certgen").returncode == 0
    top = msgpack.unpackb(path.read_bytes(), raw=False)
    header = msgpack.unpackb(top["header"], raw=False)
    assert header["rules"] == {"cells": 4, "foundation_return": False} and header["states"] == 84_767
    assert hashlib.sha256(top["body"]).hexdigest() == FIXED_BODY_11982


def test_the_records_do_not_depend_on_the_sort_in_runs(built):
    """The external sort (runs of 1,000 records, merged) gives the records of the sort in memory."""
    from solver import deals, search
    res = search.explore(deals.ms_deal(11982), Rules(canonical=True))
    try:
        one = b"".join(upto.sorted_batches(upto.exported(res.search)))
        runs = b"".join(upto.sorted_batches(upto.exported(res.search), run=1000))
        sorted_export = b"".join(upto.sorted_batches(res.search.sorted_batches(5000), run=20_000))
    finally:
        res.close()
    assert one == runs == sorted_export == b"".join(built[1].records)


def test_on_disk_the_same_records(built, tmp_path, run):
    path = tmp_path / "disk.cert"
    p = run("build", "--deal", "11982", "--canonical", "--memory", "1M", "--on-disk", "--out", str(path),
            module="certgen")
    assert p.returncode == 0, p.stderr
    assert certificate.read(str(path)).records == built[1].records


def test_other_counting_modes_have_no_certificate(run, assert_one_line_error, tmp_path):
    line = assert_one_line_error(run("build", "--deal", "11982", "--autoplay", "safe", "--out",
                                     str(tmp_path / "x.cert"), module="certgen"))
    assert "the latter also with --autoplay safe" in line       # safe automatic moves only up to column order
    line = assert_one_line_error(run("build", "--deal", "11982", "--canonical", "--autoplay", "horne", "--out",
                                     str(tmp_path / "x.cert"), module="certgen"))
    assert "invalid choice" in line
    for rules in (Rules(canonical=True, autoplay="horne"), Rules(canonical=True, autoplay="safe", foundation_return=True),
                  Rules(canonical=True, autoplay="safe", supermoves=True), Rules(autoplay="safe")):
        with pytest.raises(FreecellError, match="no other --autoplay, no --supermoves"):
            rules.header()
    assert Rules(canonical=True).header() == UP_TO and Rules().header() == {"cells": 4, "foundation_return": False}
    assert Rules.from_dict(UP_TO) == Rules(canonical=True) and Rules(canonical=True).stem() == "ColumnOrder"
    for bad in ({**UP_TO, "column_order": False}, {**UP_TO, "column_order": 1}, {**UP_TO, "canonical": True}):
        with pytest.raises(FreecellError):
            Rules.from_dict(bad)


# -- the mutants -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind,failure", [("deal", "start"), ("first-successor", "successor"),
                                          ("last-successor", "successor"),
                                          ("add-won", "won")])
def test_mutants_are_refused_by_both_checkers(built, tmp_path, run, kind, failure):
    ref = refused_by_both(mutated(built[0], tmp_path, run, kind), run, failure)
    if kind == "deal":      # the start's class is gone: the start, put in the checkers' order, is missing
        assert "the start position (its columns in the checkers' order) is not in the certificate" in ref["message"]
        assert checker.describe(columns.canon(spec.ms_deal(11982))) in ref["message"]


def misplaced(cert):
    """A member with its last column put first (no longer in the checkers' order): of the first 3,000, the
    one whose record sorts first (the checks, in the records' order, come to it soon)."""
    return min((s._replace(cols=(s.cols[-1],) + s.cols[:-1]) for s in map(state_of, cert.records[:3000])), key=p64)


def test_a_member_in_another_column_order_is_refused(built, tmp_path, run):
    """A member of a class stored a second time, in another column order: the set is still closed (up to
    column order), but the stored order is not the checkers' and both refuse it."""
    cert = built[1]
    moved = misplaced(cert)
    assert columns.canon(moved) != moved and p64(columns.canon(moved)) in set(cert.records)
    path = written(tmp_path, "order.cert", certificate.make(cert.source, cert.rules, spec.to_position(
        spec.ms_deal(11982)), cert.records + [p64(moved)], {}))
    ref = refused_by_both(path, run, "column-order")
    assert ref["message"].endswith("a member is not stored in the checkers' column order (columns sorted by "
                                   "their bottom card, empty columns last): " + checker.describe(moved))


@pytest.mark.parametrize("value", [False, 1, "true", None])
def test_column_order_other_than_true_is_bad_rules(built, tmp_path, run, assert_one_line_error, value):
    cert = built[1]
    path = written(tmp_path, "bad.cert", certificate.Certificate(cert.source, {**UP_TO, "column_order": value},
                                                                 cert.start, cert.records, {}))
    line = assert_one_line_error(run("check", "--reference", str(path), module="certgen"))
    assert "bad rules in header" in line
    if EXE:
        assert "bad rules in header" in assert_one_line_error(run("check", str(path), module="certgen"))


def test_the_sampled_check_up_to_column_order(built, tmp_path):
    head, body = certificate.read_joined(str(built[0]))
    res = sampled.check(head, body, 500, 1)
    assert res.ok and "closure checked on 501 members only; the start, the column order and 'no member is " \
        "won' on all" in res.message
    assert "(put in the checkers' column order) is in it" in res.message
    cert = built[1]
    path = written(tmp_path, "order.cert", certificate.make(cert.source, cert.rules, spec.to_position(
        spec.ms_deal(11982)), cert.records + [p64(misplaced(cert))], {}))
    head, body = certificate.read_joined(str(path))
    assert sampled.check(head, body, 100_000, 1).failure == "column-order"
    # the column order is checked on every member, not only on the drawn ones: with a sample
    # of 1 the misplaced member is not drawn, and it is refused all the same
    head, body = certificate.read_joined(str(path))
    assert p64(misplaced(cert)) not in [sampled.Records(body)[i] for i in sampled.drawn(len(body) // 64, 1, 1)]
    res = sampled.check(head, body, 1, 1)
    assert (res.failure, res.message) == ("column-order", checker.NOT_IN_ORDER[:-1] + "; the order checked on every "
                                                          "member)")
    mutant, _ = mutate.mutate(cert, "first-successor")
    path = written(tmp_path, "gone.cert", mutant)
    head, body = certificate.read_joined(str(path))
    assert sampled.check(head, body, 100_000, 1).failure == "successor"


@pytest.mark.slow
def test_a_sample_covering_every_member_gives_the_full_checks_verdict(built, tmp_path):
    """#11982's last member replaced by itself with its columns rotated, so it
    is out of order and its class's successors are missing. The full check finds a missing successor first;
    a sample covering every member must say the same (it said "column-order", checked 0, when the every-member
    pass of the order came before the closure), a smaller one finds the misplaced member on that pass."""
    cert = built[1]
    last = state_of(cert.records[-1])
    moved = next(t for t in (last._replace(cols=last.cols[r:] + last.cols[:r]) for r in range(1, 8))
                 if columns.canon(t) != t)
    path = written(tmp_path, "last.cert", certificate.make(cert.source, cert.rules, spec.to_position(
        spec.ms_deal(11982)), cert.records[:-1] + [p64(moved)], {}))
    full = checker.check(certificate.read(str(path)), jobs=1)
    head, body = certificate.read_joined(str(path))
    every = sampled.check(head, body, 10 ** 6, 1)
    assert (every.failure, every.checked, every.successors) == (full.failure, full.checked, full.successors)
    assert full.failure == "successor" and full.checked > 80_000
    some = sampled.check(head, body, 100, 1)
    assert (some.failure, some.checked, some.misplaced) == ("column-order", 0, moved)
    assert some.message == checker.NOT_IN_ORDER[:-1] + "; the order checked on every member)"


def test_the_byte_check_of_the_column_order_is_canons(built):
    """sampled.in_column_order (on a record's bytes) says what ``canon(s) == s`` says (certgen/columns.py), on
    every eighth member of #11982's certificate up to column order (all in order) and on each of them with its
    columns rotated by one to seven places (in order only when the rotation leaves the keys sorted: e.g. all
    columns empty)."""
    cert = built[1]
    agree = rotated_in_order = 0
    for rec in cert.records[::8]:
        s = state_of(rec)
        assert sampled.in_column_order(rec) and columns.canon(s) == s
        for r in range(1, 8):
            t = s._replace(cols=s.cols[r:] + s.cols[:r])
            got = sampled.in_column_order(p64(t))
            assert got == (columns.canon(t) == t)
            rotated_in_order += got
            agree += 1
    assert agree == 7 * 10_405 and rotated_in_order < agree


# -- Lean has no proof of the column lemma ---------------------------------------------------------------

def test_lean_refuses_it_in_one_line(built, tmp_path, run, assert_one_line_error):
    lean = tmp_path / "lean"
    line = assert_one_line_error(run("render", str(built[0]), "--lean-dir", str(lean), module="certgen"))
    assert "up to column order: Lean has no proof of the column lemma here" in line
    assert "prove-coq --canonical" in line and not lean.exists()
    # the prove pipeline's Lean backend: not Lean's (Coq proves it, as prove-coq --canonical does); on a small
    # certificate up to column order (deal 1 with one free cell), so the checkers' pass is not #11982's again
    from certgen import prove
    small = tmp_path / "small" / "1-upto.cert"
    small.parent.mkdir()
    p = run("build", "--deal", "1", "--cells", "1", "--canonical", "--out", str(small), module="certgen")
    assert p.returncode == 0, p.stderr
    p = prove.Prepared(None, None, str(small))
    said = []
    prove.check_both(p, False, said.append)
    assert p.ok, said
    lean_only = [prove.Prover("lean", "/nonexistent/lake")]
    assert prove.prove_prepared([p], lean_only, str(tmp_path / "o"), str(lean), False, said.append) == 3
    assert said[-1].startswith("Lean: a certificate up to column order is not Lean's"), said
    assert not lean.exists()
    from certgen import audit, render
    assert audit.certificates_by_stem([str(built[0].parent), str(small.parent)]) == {}     # audit leaves them out
    with pytest.raises(FreecellError, match="up to column order"):
        render.certificate_context(built[1])


# -- the order, three times ----------------------------------------------------------------------------

def brute_force(s):
    """Take the eight columns, sort them by their bottom card (a column lists its top card first), empty
    columns last."""
    full = sorted((c for c in s.cols if c), key=lambda c: spec.key(c[-1]))
    return s._replace(cols=tuple(full) + ((),) * (8 - len(full)))


def test_the_three_orders_agree_with_a_brute_force_on_random_positions():
    rng = random.Random(30)
    states = [random_state(rng, spec.Rules(cells=rng.randrange(9))) for _ in range(3000)]
    want = [brute_force(s) for s in states]
    assert [columns.canon(s) for s in states] == want
    assert sum(s != w for s, w in zip(states, want)) > 2500
    assert sum(any(not c for c in s.cols) for s in states) > 500       # empty columns, in every place
    recs = [p64(s) for s in states]
    built_order = upto.in_column_order(b"".join(recs))
    assert [state_of(bytes(built_order[i:i + 64])) for i in range(0, len(built_order), 64)] == want
    if EXE:
        p = subprocess.run([EXE, "--column-order"], input=b"".join(recs), capture_output=True)
        assert p.returncode == 0
        assert p.stdout == b"".join(p64(w) for w in want)


@needs_fast
def test_fccheck_column_order_refuses_a_non_position(assert_one_line_error):
    p = subprocess.run([EXE, "--column-order"], input=b"\x01" * 64, capture_output=True, text=False)
    assert p.returncode == 2 and p.stderr.decode().startswith("error: stdin: not a position")


# -- deal 607 with one cell: the size the difficulty survey's tier 4 proves ------------------------------

@pytest.mark.slow
@needs_fast
def test_deal_607_with_one_cell_up_to_column_order(tmp_path, run):
    path = tmp_path / "607.cert"
    p = run("build", "--deal", "607", "--cells", "1", "--canonical", "--out", str(path), module="certgen")
    assert p.returncode == 0 and "2,417,919" in p.stdout, p.stderr
    res = fastcheck.check(str(path))
    assert res.ok and res.states == 2_417_919 and res.rules == {"cells": 1, "foundation_return": False,
                                                                "column_order": True}


def test_the_sort_in_runs_drops_repeats_within_and_across_runs():
    """upto.sorted_batches gives each record once, in column order, ascending, whether a repeat is in one run
    or in two (the merge of runs in C, solver/records.c)."""
    from solver import deals, search
    res = search.explore(deals.ms_deal(11982), Rules(canonical=True))
    try:
        blob = res.search.export_p64()
    finally:
        res.close()
    ordered = upto.in_column_order(blob)
    want = b"".join(sorted({bytes(ordered[k:k + 64]) for k in range(0, len(ordered), 64)}))
    twice = blob[:64 * 5000] + blob + blob[64 * 70000:]                 # 19,767 records twice
    for run in (upto.RUN, 3000, 50_000):
        batches = [twice[k:k + 64 * 7000] for k in range(0, len(twice), 64 * 7000)]
        assert b"".join(upto.sorted_batches(batches, run=run)) == want


def test_a_run_goes_to_a_file_only_when_records_follow_it(monkeypatch):
    """An in-memory search's records up to SORTED_MAX make one run (run_for), and a run is written to a
    temporary file only when more records come after it: deal 11982's 83,239 records up to column order in
    one run write no file; 4,000 of them in batches of 1,000 and runs of 2,000, one file (the last run stays
    in memory); the records are those of the sort in memory either way."""
    from solver import deals, search
    assert upto.run_for(None, 5) == upto.RUN and upto.run_for(None, upto.RUN + 1) == upto.RUN + 1
    assert upto.run_for(None, search.SORTED_MAX + 1) == upto.RUN
    assert upto.run_for(1 << 20) == upto.BATCH and upto.run_for(1 << 40, 5) == upto.RUN
    files, temporary = [], upto.tempfile.TemporaryFile

    def counted(*a, **k):
        files.append(1)
        return temporary(*a, **k)
    monkeypatch.setattr(upto.tempfile, "TemporaryFile", counted)
    res = search.explore(deals.ms_deal(11982), Rules(canonical=True))
    try:
        n = len(res.search)
        whole = b"".join(upto.sorted_batches(upto.exported(res.search), run=n, total=n))
        assert (n, len(files)) == (83_239, 0)
        assert whole == b"".join(upto.sorted_batches(upto.exported(res.search), run=1000))
        blob = res.search.export_p64(0, 4000)
    finally:
        res.close()
    files.clear()
    four = b"".join(upto.sorted_batches([blob[k:k + 64_000] for k in range(0, len(blob), 64_000)], run=2000))
    assert len(files) == 1 and four == b"".join(upto.sorted_batches([blob]))
    assert len(four) == 4000 * 64 and four == b"".join(sorted(four[k:k + 64] for k in range(0, len(four), 64)))
