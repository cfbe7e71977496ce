"""The reference checker (certgen/checker.py) on certificates and their mutants: #11982 accepted, a start
that is not the deal, the rules read from the header, named and random deletions and an added won state refused."""
import json
import random

import pytest

from certgen import certificate, checker, fastcheck, mutate
from solver import deals, packed, spec

from helpers import one_line_error, run_process


def test_checker_accepts_11982(reference11982):
    res = reference11982
    assert res.ok, checker.report(res)
    assert res.states == res.checked == 84767
    assert res.successors > 84767
    assert checker.report(res).startswith(
        "valid for deal 11982 under the standard rules (4 free cells, nothing back from the foundations): "
        "84,767 states")


def test_decoded_states_are_spec_states(cert11982):
    """members.State only spells out the structure update: spec.moves gives the same positions."""
    from certgen import members
    m = members.decode(cert11982)
    assert len(m.states) == 84767 and all(type(s) is members.State for s in m.states[:100])
    r = members.rules_of(cert11982).spec()
    for s in m.states[::997]:
        plain = spec.State(*s)
        assert s == plain and hash(s) == hash(plain) and packed.pack(spec.to_position(s)) in cert11982.records
        assert spec.moves(r, s) == spec.moves(r, plain)
        assert s._replace(home=(1, 2, 3, 4)) == plain._replace(home=(1, 2, 3, 4))
        assert s._replace(cols=(), cells=(spec.CARDS[0],)) == plain._replace(cols=(), cells=(spec.CARDS[0],))


def test_checker_refuses_a_start_that_is_not_the_deal(small_certs):
    c = small_certs[0]
    forged = certificate.Certificate(c.source, c.rules, packed.pack(deals.ms_deal(1)), c.records, {})
    res = checker.check(forged)
    assert not res.ok and res.failure == "start-mismatch"


def test_checker_uses_the_rules_in_the_header(small_certs):
    # The 2-cell fence of 11982 is not closed under the 4-cell rules.
    c = small_certs[0]
    res = checker.check(certificate.Certificate(c.source, {"cells": 4, "foundation_return": False},
                                                c.start, c.records, {}))
    assert not res.ok and res.failure == "successor"
    assert len(res.missing.cells) == 3


@pytest.mark.parametrize("kind", ["deal", "first-successor", "last-successor"])
def test_named_mutations_are_rejected(cert11982, kind):
    mutant, changed = mutate.mutate(cert11982, kind)
    assert mutant.states == 84766 and len(changed) == 1
    res = checker.check(mutant)
    assert not res.ok
    gone = spec.from_position(packed.unpack(changed[0]))
    if kind == "deal":
        assert res.failure == "start"
    else:
        assert res.failure == "successor" and res.missing == gone
        assert res.parent == spec.ms_deal(11982)  # met first while expanding the start


def test_adding_a_won_state_is_rejected(small_certs):
    mutant, _ = mutate.mutate(small_certs[0], "add-won")
    res = checker.check(mutant)
    assert not res.ok and res.failure == "won" and spec.won(res.won_state)


def test_random_single_deletions_are_all_rejected(small_certs):
    """The reachable set is the least fence: deleting any one of its members must break the check."""
    rng = random.Random(11982)
    tried = 0
    for cert in small_certs:
        for _ in range(40):
            mutant, changed = mutate.mutate(cert, "random:1", seed=rng.randrange(1 << 30))
            res = checker.check(mutant)
            assert not res.ok
            gone = spec.from_position(packed.unpack(changed[0]))
            assert res.missing == gone
            tried += 1
    assert tried == 200


@pytest.mark.slow
def test_random_single_deletions_on_11982(cert11982):
    for seed in range(5):
        mutant, changed = mutate.mutate(cert11982, "random:1", seed=seed)
        res = checker.check(mutant)
        assert not res.ok and res.missing == spec.from_position(packed.unpack(changed[0]))


@pytest.mark.slow
def test_many_random_single_deletions_on_11982(cert11982):
    for seed in range(100, 200):
        mutant, changed = mutate.mutate(cert11982, "random:1", seed=seed)
        res = checker.check(mutant)
        assert not res.ok and res.missing == spec.from_position(packed.unpack(changed[0]))


def test_a_check_whose_processes_cannot_start_is_made_in_one_process(small_certs, monkeypatch):
    # no thread left (memory): the pool's workers were left waiting for ever and the check was a traceback
    import multiprocessing as mp
    import threading

    def no_thread(self):
        raise RuntimeError("can't start new thread")
    monkeypatch.setattr(checker, "PARALLEL_FROM", 10)
    monkeypatch.setattr(threading.Thread, "start", no_thread)
    before = {p.pid for p in mp.active_children()}
    res = checker.check(small_certs[0], jobs=2)
    assert res.ok and res.checked == small_certs[0].states, res.message
    assert {p.pid for p in mp.active_children()} - before == set()


JOBS_CASES = [(["--jobs", "1"], []), (["--jobs", "3"], [3]), ([], [5]),      # [] : every CPU, 5 here
              (["--jobs", "12"], [checker.MAX_JOBS])]


@pytest.mark.parametrize("sample", [False, True], ids=["full", "sample"])
@pytest.mark.parametrize("jobs, pools", JOBS_CASES, ids=["one", "three", "default", "past-the-cap"])
def test_check_jobs_is_the_processes_of_the_reference_checks(small_certs, tmp_path, monkeypatch, capsys, jobs,
                                                               pools, sample):
    # `certgen check --reference` (and --sample with the records on disk) ran as many processes as there are
    # CPUs, whatever the machine was doing: --jobs J sets them, the default stays every CPU
    from certgen import cli, sampled
    from solver import workers
    cert = small_certs[0]
    path = tmp_path / "c.cert"
    certificate.write(str(path), cert)
    started = []

    def spy(n, *args):
        started.append(n)
        return workers.start_pool(n, *args)
    for module in (checker, sampled):
        monkeypatch.setattr(module, "start_pool", spy)
        monkeypatch.setattr(module, "cpus", lambda: 5)
    monkeypatch.setattr(checker, "PARALLEL_FROM", 10)           # a few thousand members, shared out all the same
    monkeypatch.setattr(sampled, "SAMPLE_MEMORY", 0)            # the records on disk: the first pass shared out
    extra = ["--sample", str(cert.states), "--seed", "1"] if sample else []
    status = cli.main(["check", str(path), "--reference", "--no-progress", "--json", *extra, *jobs])
    out = json.loads(capsys.readouterr().out)
    assert (status, out["valid"], out["checked"], out["states"]) == (0, True, cert.states, cert.states)
    assert started == pools


@pytest.mark.skipif(fastcheck.binary() is None, reason=f"no fast checker: {fastcheck.why_not()}")
def test_the_fast_checker_ignores_check_jobs(small_certs, tmp_path, monkeypatch, capsys):
    from certgen import cli
    path = tmp_path / "c.cert"
    certificate.write(str(path), small_certs[0])
    monkeypatch.setattr(checker, "check", None)                 # the reference checker is not called
    assert cli.main(["check", str(path), "--jobs", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["checker"], out["valid"], out["checked"]) == ("fast", True, small_certs[0].states)


@pytest.mark.parametrize("value", ["0", "-1", "x", "257", ""])
@pytest.mark.parametrize("reference", [[], ["--reference"], ["--reference", "--sample", "10"]])
def test_an_absurd_check_jobs_is_one_line(small_certs, tmp_path, value, reference):
    path = tmp_path / "c.cert"
    certificate.write(str(path), small_certs[0])
    p = run_process("check", str(path), *reference, "--jobs", value, module="certgen")
    assert one_line_error(p) == f"error: --jobs must be a whole number from 1 to 256, got {value!r}"
