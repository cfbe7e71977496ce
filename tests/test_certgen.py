"""Certificates: round trip, clean refusals of damaged files, the independent checker, and mutations."""
import os
import random
import subprocess
import sys

import msgpack
import pytest

from certgen import certificate, checker, mutate
from solver import deals, packed, search, spec
from solver.errors import FreecellError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(deal, cells=4, foundation_return=False):
    pos = deals.ms_deal(deal)
    rules = {"cells": cells, "foundation_return": foundation_return}
    res = search.explore(pos, search.Rules(**rules))
    assert res.complete and not res.won
    return certificate.make({"kind": "ms", "deal": deal}, rules, pos, res.records(),
                            {"max_home": res.max_home})


@pytest.fixture(scope="module")
def cert11982():
    return build(11982)


@pytest.fixture(scope="module")
def small_certs():
    # Unwinnable with fewer free cells, and small: good for many random deletions.
    return [build(11982, cells=2), build(11982, cells=1), build(3, cells=1), build(4, cells=1),
            build(7, cells=0)]


def run(*args, **kw):
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, **kw)


# -- the file ----------------------------------------------------------------------------------------

def test_round_trip_and_size(tmp_path, cert11982):
    path = tmp_path / "d.cert"
    certificate.write(str(path), cert11982)
    back = certificate.read(str(path))
    assert back.states == cert11982.states == 84767
    assert back.records == cert11982.records
    assert back.source == {"kind": "ms", "deal": 11982}
    assert back.rules == {"cells": 4, "foundation_return": False}
    assert packed.unpack(back.start) == deals.ms_deal(11982)
    assert os.path.getsize(path) / back.states <= 16  # the aim: at most 16 bytes a state
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".tmp")]  # nothing half-written left


def damaged_files(good: bytes):
    top = msgpack.unpackb(good, raw=False)
    def with_header(**kw):
        t = {"header": dict(top["header"], **kw), "body": top["body"]}
        return msgpack.packb(t, use_bin_type=True)
    body = bytearray(top["body"])
    body[len(body) // 2] ^= 0xFF
    return {
        "truncated": (good[: len(good) // 2], "corrupt or truncated"),
        "empty": (b"", "corrupt or truncated"),
        "not msgpack": (b"\xc1garbage", "corrupt or truncated"),
        "foreign map": (msgpack.packb({"hello": 1}), "no header"),
        "foreign format": (with_header(format="something-else"), "format 'something-else'"),
        "newer version": (with_header(version=2), "version 2"),
        "flipped body byte": (msgpack.packb({"header": top["header"], "body": bytes(body)}, use_bin_type=True),
                              "checksum mismatch"),
        "wrong count": (with_header(states=5), "expected 5 states"),
    }


@pytest.mark.parametrize("case", ["truncated", "empty", "not msgpack", "foreign map", "foreign format",
                                  "newer version", "flipped body byte", "wrong count"])
def test_damaged_files_are_refused_with_one_line(tmp_path, case, small_certs):
    good = certificate.encode(small_certs[0])
    data, expected = damaged_files(good)[case]
    path = tmp_path / "bad.cert"
    path.write_bytes(data)
    with pytest.raises(FreecellError, match=expected):
        certificate.read(str(path))
    proc = run("-m", "certgen", "check", str(path))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
    assert "Traceback" not in proc.stderr


def test_missing_file_is_one_line(tmp_path):
    proc = run("-m", "certgen", "check", str(tmp_path / "nope.cert"))
    assert proc.returncode == 2 and proc.stderr.startswith("error: cannot read certificate")
    assert proc.stderr.count("\n") == 1


# -- the checker -------------------------------------------------------------------------------------

def test_checker_accepts_11982(cert11982):
    res = checker.check(cert11982)
    assert res.ok, checker.report(res)
    assert res.states == res.checked == 84767
    assert res.successors > 84767
    assert checker.report(res).startswith("valid: 84767 states")


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


def test_mutate_and_check_commands(tmp_path, small_certs):
    good = tmp_path / "good.cert"
    certificate.write(str(good), small_certs[0])
    proc = run("-m", "certgen", "check", str(good))
    assert proc.returncode == 0 and proc.stdout.startswith("valid: 585 states"), proc.stdout + proc.stderr
    for kind in ("deal", "first-successor", "last-successor", "random:3"):
        bad = tmp_path / f"{kind.replace(':', '')}.cert"
        proc = run("-m", "certgen", "mutate", str(good), "--delete", kind, "--seed", "7", "--out", str(bad))
        assert proc.returncode == 0, proc.stderr
        proc = run("-m", "certgen", "check", str(bad))
        assert proc.returncode == 1 and proc.stdout.startswith("invalid: "), proc.stdout
    proc = run("-m", "certgen", "mutate", str(good), "--delete", "nonsense", "--out", str(tmp_path / "x"))
    assert proc.returncode == 2 and proc.stderr.startswith("error: unknown mutation 'nonsense'")
    assert not (tmp_path / "x").exists()
