"""The sampled reference check (certgen/sampled.py, `certgen check --reference --sample N`): membership by
binary search over the joined records, the start and 'no member is won' on every member, the closure on a
sample -- and, with a sample covering every member, exactly the full reference check's verdict."""
import json
import subprocess
import sys

import pytest

from certgen import certificate, checker, members, mutate, sampled
from solver import packed, spec
from solver.rules import Rules

from helpers import ROOT, build_certificate, run as _run
from helpers.positions import dead_positions


@pytest.fixture(scope="module")
def two_cells():
    """Deal 11982 with 2 free cells: 585 positions, for the mutants the check must refuse."""
    return build_certificate(11982, cells=2)


def sampled_check(cert, sample, seed=0):
    return sampled.check(certificate._summary_of(cert), bytearray(b"".join(cert.records)), sample, seed)


def run(*args):
    return _run(*args, module="certgen")


def test_records_binary_search(cert11982):
    recs = sampled.Records(b"".join(cert11982.records))
    assert len(recs) == 84767
    for i in (0, 1, 4242, 84765, 84766):
        assert recs[i] == cert11982.records[i] and recs[i] in recs
        assert bytes(63) + b"\1" not in recs      # below every record but the won one
        assert recs[i][:-1] + b"\xff" not in recs  # a byte no record has
    assert sampled.WON not in recs and b"\xff" * 64 not in recs


@pytest.mark.parametrize("deal_cells", [(11982, 2), pytest.param((11982, 4), marks=pytest.mark.slow)])
def test_the_won_record_and_the_encoding(deal_cells, two_cells, cert11982):
    # The won position is the 64 zero bytes, and the decoder reads it as won; a record with a card is not won.
    assert sampled.WON == mutate.won_record()
    d = members.Decoder()
    assert spec.won(d.state(sampled.WON))
    # Every record decodes to a spec State whose record (sampled.record_of) is itself: the successors
    # looked up are encoded as the certificate encodes its members.
    # (#11982 with 4 cells: the successors of every 8th member; all of them take 26 s)
    cert, step = (two_cells, 1) if deal_cells == (11982, 2) else (cert11982, 8)
    e, r, successors = sampled.Encoder(), Rules(cells=deal_cells[1]).spec(), 0
    for i, rec in enumerate(cert.records):
        s = d.state(rec)
        assert sampled.record_of(s) == e.record(s) == rec and not spec.won(s)
        for t in spec.moves(r, s) if i % step == 0 else ():
            assert e.record(t) == sampled.record_of(t)
            successors += 1
    assert successors > cert.states // step


def test_a_sample_of_every_member_is_the_full_check(two_cells):
    full = checker.check(two_cells)
    res = sampled_check(two_cells, 10 ** 6)
    assert full.ok and res.ok
    assert (res.checked, res.successors) == (full.checked, full.successors) == (585, full.successors)
    assert "every one of the 585 members" in res.message
    assert "closure checked on every member" in res.message


@pytest.mark.slow
def test_a_sample_of_every_member_of_11982_is_the_full_check(cert11982, reference11982):
    full = reference11982
    res = sampled_check(cert11982, 10 ** 6)
    assert full.ok and res.ok
    assert (res.checked, res.successors) == (full.checked, full.successors) == (84767, full.successors)
    assert "every one of the 84,767 members" in res.message
    assert "closure checked on every member" in res.message


def test_a_small_sample(cert11982):
    res = sampled_check(cert11982, 500, seed=7)
    assert res.ok and res.checked in (500, 501)      # the start, and 500 members (one may be the start)
    assert res.message.startswith("valid on a sample for deal 11982 ")
    assert "a sample of 500 of 84,767 members" in res.message
    assert f"(closure checked on {res.checked} members only; the start and 'no member is won' on all)" in res.message
    assert sampled.drawn(84767, 500, 7) == sampled.drawn(84767, 500, 7) != sampled.drawn(84767, 500, 8)


def test_one_member_is_said_in_the_singular(cert11982):
    """A certificate of one position without a move (a dead board: helpers.positions.dead_positions) and a
    sample of one: the counts are said in the singular ("every one of the 1 members" was the hostile pass's
    find), the full check's verdict and figures unchanged."""
    (rec,) = dead_positions(1, seed=3)
    one = certificate.Certificate({"kind": "board", "name": "dead"}, {"cells": 0, "foundation_return": False},
                                  rec, [rec], {})
    res = sampled_check(one, 5)
    assert res.ok and (res.states, res.checked, res.successors) == (1, 1, 0)
    assert res.message == (f"valid on a sample for {res.subject}: the one member (a sample of 5 "
                           "covers it): the start position is in the set, the one member is not won, and there "
                           "is no successor of the start (none is missing) (closure checked on every member; "
                           "the start and 'no member is won' on all)")
    assert sampled.words(5, 1) == "the one member (a sample of 5 covers it)"
    res = sampled_check(cert11982, 1, seed=2)
    assert res.ok and res.checked == 2
    assert "the start and the 1 other member drawn with seed 2 is in it (closure checked on 2 members only;" \
        in res.message
    assert " 1 members" not in res.message


def test_a_won_state_added_is_always_found(cert11982):
    mutant, _ = mutate.mutate(cert11982, "add-won")
    res = sampled_check(mutant, 1)
    assert not res.ok and res.failure == "won" and spec.won(res.won_state)
    assert checker.check(mutant, jobs=1).failure == "won"


def test_the_start_missing_is_always_found(cert11982):
    mutant, _ = mutate.mutate(cert11982, "deal")
    res = sampled_check(mutant, 1)
    assert not res.ok and res.failure == "start" and res.missing == spec.ms_deal(11982)


@pytest.mark.parametrize("kind", ["first-successor", "last-successor"])
def test_a_successor_of_the_start_deleted_is_always_found(cert11982, kind):
    # The start's closure is checked whatever the sample.
    mutant, changed = mutate.mutate(cert11982, kind)
    res = sampled_check(mutant, 1)
    assert not res.ok and res.failure == "successor" and res.parent == spec.ms_deal(11982)
    assert res.missing == spec.from_position(packed.unpack(changed[0]))


@pytest.mark.parametrize("seed", range(6))
def test_a_deleted_state_is_found_when_the_sample_covers_its_parents(two_cells, seed):
    deleted_state_found_with_every_member(two_cells, seed)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_a_deleted_state_of_11982_is_found_when_the_sample_covers_its_parents(cert11982, seed):
    deleted_state_found_with_every_member(cert11982, seed)


def deleted_state_found_with_every_member(cert, seed):
    mutant, changed = mutate.mutate(cert, "random:1", seed=seed)
    gone = spec.from_position(packed.unpack(changed[0]))
    full = checker.check(mutant, jobs=1)
    res = sampled_check(mutant, 10 ** 6)
    assert not res.ok and res.failure == full.failure == "successor"
    assert res.missing == full.missing == gone and res.parent == full.parent
    assert (res.checked, res.successors) == (full.checked, full.successors)


def test_a_small_sample_finds_a_deleted_state_only_when_it_draws_a_parent_of_it(two_cells):
    """A sample of a quarter of the members (the start's closure is checked whatever the sample): the seeds
    that draw a parent of the deleted state find it, the others do not."""
    mutant, changed = mutate.mutate(two_cells, "random:1", seed=1)
    gone = spec.from_position(packed.unpack(changed[0]))
    d, r = members.Decoder(), Rules(cells=2).spec()
    parents = {i for i, rec in enumerate(mutant.records) if gone in spec.moves(r, d.state(rec))}
    assert parents and gone not in spec.moves(r, spec.ms_deal(11982))
    n = mutant.states // 4
    draws = {seed: bool(parents & set(sampled.drawn(mutant.states, n, seed))) for seed in range(20)}
    assert 0 < sum(draws.values()) < 20
    for seed, draws_a_parent in draws.items():
        res = sampled_check(mutant, n, seed=seed)
        assert res.ok != draws_a_parent
        if draws_a_parent:
            assert res.missing == gone and mutant.records.index(packed.pack(spec.to_position(res.parent))) in parents


@pytest.mark.slow
def test_a_small_sample_finds_a_deleted_state_only_when_it_draws_a_parent(cert11982):
    # Deletion seed 0 removes a state with one parent in the certificate: a sample of N of the M = 84,766
    # members finds it with probability N/M (with p parents, 1 - (1 - N/M)**p about): 20,000 (24 %) finds it
    # with sample seed 0, which draws the parent, and misses it with seed 1, which does not -- a sample is
    # a spot check, not a proof.
    mutant, changed = mutate.mutate(cert11982, "random:1", seed=0)
    gone = spec.from_position(packed.unpack(changed[0]))
    d, r = members.Decoder(), Rules().spec()
    parents = [i for i, rec in enumerate(mutant.records) if gone in spec.moves(r, d.state(rec))]
    assert len(parents) == 1
    assert parents[0] in sampled.drawn(mutant.states, 20000, 0)
    assert parents[0] not in sampled.drawn(mutant.states, 20000, 1)
    res = sampled_check(mutant, 20000, seed=0)
    assert not res.ok and res.missing == gone and res.parent == d.state(mutant.records[parents[0]])
    assert ("(closure checked on the start and a sample of 20,000 of 84,766 members drawn with seed 0)"
            in checker.report(res))
    assert sampled_check(mutant, 20000, seed=1).ok


def test_read_joined_is_the_records(tmp_path, cert11982):
    path = tmp_path / "c.cert"
    certificate.write(str(path), cert11982)
    head, body = certificate.read_joined(str(path))
    assert isinstance(body, bytearray) and bytes(body) == b"".join(cert11982.records)
    assert (head.states, head.source, head.start) == (84767, {"kind": "ms", "deal": 11982}, cert11982.start)


def test_a_certificate_through_a_fifo(tmp_path, cert11982):
    """A FIFO is opened once: it was opened, closed (the writer got EPIPE) and opened again, which then
    waited for a writer forever (the hostile pass: hung in 1 run of 3)."""
    import os
    import threading
    good = tmp_path / "good.cert"
    certificate.write(str(good), cert11982)
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    errors = []

    def feed():
        try:
            with open(fifo, "wb") as f:
                f.write(good.read_bytes())
        except OSError as e:
            errors.append(e)
    t = threading.Thread(target=feed, daemon=True)
    t.start()
    proc = subprocess.run([sys.executable, "-m", "certgen", "check", str(fifo), "--reference", "--sample", "50",
                           "--seed", "3"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    t.join(10)
    assert proc.returncode == sampled.SAMPLE_ONLY and proc.stdout.startswith("valid on a sample for deal 11982"), \
        proc.stderr
    assert not errors


def test_the_command(tmp_path, cert11982):
    """A sample is not a verdict: "valid on a sample" exits 5 with `"valid": null, "sample_valid": true`
    (it exited 0 with `"valid": true`, what the full check says, in issue 31); a refusal found on a sample
    is a real one (exit 1, `"valid": false`); a sample covering every member is the full check (exit 0)."""
    good = tmp_path / "good.cert"
    certificate.write(str(good), cert11982)
    proc = run("check", str(good), "--reference", "--sample", "300", "--seed", "5")
    assert proc.returncode == sampled.SAMPLE_ONLY == 5, proc.stdout + proc.stderr
    assert proc.stdout.startswith("valid on a sample for deal 11982 under the standard rules")
    assert proc.stdout.count("\n") == 1
    assert "a sample of 300 of 84,767 members" in proc.stdout and "seed 5" in proc.stderr
    proc = run("check", str(good), "--reference", "--sample", "300", "--json")
    obj = json.loads(proc.stdout)
    assert proc.returncode == 5 and obj["valid"] is None and obj["sample_valid"] is True
    assert obj["sample"] == 300 and isinstance(obj["seed"], int) and obj["checked"] == 301
    again = json.loads(run("check", str(good), "--reference", "--sample", "300", "--seed", str(obj["seed"]),
                           "--json").stdout)
    assert again == obj
    bad = tmp_path / "won.cert"
    certificate.write(str(bad), mutate.mutate(cert11982, "add-won")[0])
    proc = run("check", str(bad), "--reference", "--sample", "10", "--seed", "1")
    assert proc.returncode == 1 and proc.stdout.startswith("invalid for deal 11982 "), proc.stdout
    assert "contains a won position" in proc.stdout
    proc = run("check", str(bad), "--reference", "--sample", "10", "--seed", "1", "--json")
    obj = json.loads(proc.stdout)
    assert proc.returncode == 1 and obj["valid"] is False and obj["sample_valid"] is False


def test_a_sample_covering_every_member_is_a_verdict(tmp_path):
    """Deal 1 with no free cell has one position: any sample covers it, and the answer is the full check's."""
    one = tmp_path / "one.cert"
    certificate.write(str(one), build_certificate(1, cells=0))
    proc = run("check", str(one), "--reference", "--sample", "5", "--json")
    obj = json.loads(proc.stdout)
    assert proc.returncode == 0 and obj["valid"] is True and obj["sample_valid"] is True, proc.stdout
    assert (obj["states"], obj["checked"]) == (1, 1)
    assert sampled.verdict(checker.check(build_certificate(1, cells=0))) == (0, True)


def test_the_help_says_a_sample_is_not_a_verdict():
    out = " ".join(run("check", "--help").stdout.split())
    assert "A sample is not a verdict: 'valid on a sample' exits 5" in out


@pytest.mark.parametrize("args, message", [
    (["--reference", "--sample", "0"], "error: --sample must be a whole number from 1 to 1099511627776, got '0'"),
    (["--reference", "--sample", "lots"], "error: --sample must be a whole number from 1 to 1099511627776, got 'lots'"),
    (["--reference", "--sample", "5", "--seed", "-1"], "error: --seed must be a whole number from 0 to "),
    (["--reference", "--sample", " 3"], "error: --sample must be a whole number from 1 to 1099511627776, got ' 3'"),
    (["--sample", "5"], "error: --sample is a mode of the reference checker: give --reference --sample N"),
    (["--reference", "--seed", "5"], "error: --seed chooses the members of --sample"),
])
def test_bad_sample_arguments(tmp_path, two_cells, args, message):
    good = tmp_path / "good.cert"
    certificate.write(str(good), two_cells)
    proc = run("check", str(good), *args)
    assert proc.returncode == 2 and proc.stderr.startswith(message) and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stdout == ""
