"""The reference checker (certgen/checker.py) on certificates and their mutants: #11982 accepted, a start
that is not the deal, the rules read from the header, named and random deletions and an added won state refused."""
import random

import pytest

from certgen import certificate, checker, mutate
from solver import deals, packed, spec


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
