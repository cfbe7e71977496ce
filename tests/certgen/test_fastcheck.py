"""The independent fast checker (checker/fccheck.c via certgen/fastcheck.py): its `moves` against the
transliterated spec on thousands of positions, its deal generator against spec.ms_deal, its verdicts
against the Python checker (the reference), every single deletion refused, and damaged files refused
with exit status 2 and one line."""
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import zlib

import msgpack
import pytest

from collections import deque

from certgen import certificate, checker, fastcheck, mutate
from solver import limits, packed, spec
from solver.errors import FreecellError

from helpers import ROOT, one_line_error
from helpers.positions import dead_positions, p64, random_state, walk

EXE = fastcheck.binary()
P64 = fastcheck.P64
pytestmark = pytest.mark.skipif(EXE is None, reason=f"no fast checker: {fastcheck.why_not()}")


def v2_file(header: bytes, body: bytes, **top) -> bytes:
    """A certificate file (format version 2) made by hand from its header and body bytes."""
    obj = {"format": "freecell-proof-certificate", "version": 2, "header": header, "body": body,
           "sha256": hashlib.sha256(header + body).hexdigest()}
    obj.update(top)
    return msgpack.packb(obj, use_bin_type=True)


def state_of(rec: bytes) -> spec.State:
    return spec.from_position(packed.unpack(rec))


def certificate_of(deal, records, cells=4, foundation_return=False):
    return certificate.Certificate({"kind": "ms", "deal": deal}, {"cells": cells, "foundation_return": foundation_return},
                                   p64(spec.ms_deal(deal)), sorted(records), {})


def spec_reachable(deal, cells, foundation_return):
    """Deal `deal`'s reachable set under the rules, by breadth-first search with spec.moves (small sets)."""
    r = spec.Rules(cells=cells, foundation_return=foundation_return)
    s0 = spec.ms_deal(deal)
    seen, todo = {s0}, deque([s0])
    while todo:
        for t in spec.moves(r, todo.popleft()):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    assert not any(spec.won(s) for s in seen)
    return certificate_of(deal, [p64(s) for s in seen], cells, foundation_return)


def run_fccheck(tmp_path, data: bytes, name="c.cert"):
    path = tmp_path / name
    path.write_bytes(data)
    return subprocess.run([EXE, str(path)], capture_output=True, text=True)


def fast(tmp_path, cert, name="c.cert", exe=None, index_states=limits.FASTCHECK_INDEX_STATES):
    path = tmp_path / name
    certificate.write(str(path), cert)
    return fastcheck.check(str(path), exe=exe, index_states=index_states)


def one_line(ref) -> str:
    """The Python checker's verdict on one line (it writes a missing successor's member on a second)."""
    return checker.report(ref).replace("\n  reached", " reached")


STANDARD = "the standard rules (4 free cells, nothing back from the foundations)"
TWO_CELLS = "the rules with 2 free cells and nothing back from the foundations"


@pytest.fixture(scope="module")
def small_certs():
    """Whole reachable sets under fewer free cells, enumerated with spec.moves: 585 + 83 + 448 + 436 + 278
    + 464 + 85 positions. Deal 3 with one free cell sends up to 7 cards home, so there foundation returns
    matter."""
    rules = [(11982, 2, False), (11982, 1, False), (3, 1, False), (4, 1, False), (7, 0, False), (3, 1, True),
             (6, 1, False)]
    return [spec_reachable(deal, cells, fr) for deal, cells, fr in rules]


# -- the rules: successors and the deal, against solver/spec.py ----------------------------------------

def test_successors_equal_the_spec_on_thousands_of_positions(cert11982):
    """Positions near the deal (a sample of 11982's reachable set, random walks under many rules) and any
    positions at all (random foundation heights, cells and columns: cards home, empty columns, full
    cells, foundation returns)."""
    rng = random.Random(15)
    cases = [(spec.Rules(), [state_of(r) for r in rng.sample(cert11982.records, 2500)])]
    for k, deal in enumerate([1, 2, 5, 617, 1941, 24795893, 2147483647]):
        for cells, fr in [(4, False), (4, True), (k % 9, k % 2 == 0), (8, True), (0, False)]:
            r = spec.Rules(cells=cells, foundation_return=fr)
            cases.append((r, walk(r, spec.ms_deal(deal), rng, 100)))
    for cells in range(9):
        for fr in (False, True):
            r = spec.Rules(cells=cells, foundation_return=fr)
            cases.append((r, [random_state(rng, r) for _ in range(150)]))
    total = compared = 0
    for r, states in cases:
        got = fastcheck.successors([p64(s) for s in states], r.cells, r.foundation_return)
        for s, succ in zip(states, got):
            want = [p64(t) for t in spec.moves(r, s)]
            assert succ == want, checker.describe(s)  # the same positions in the same order
            total += len(want)
            compared += 1
    assert compared >= 6500 and total >= 30000
    homes = [sum(s.home) for r, states in cases for s in states]
    assert max(homes) == 52 and sum(h >= 26 for h in homes) >= 500
    assert sum(1 for r, states in cases if r.foundation_return for s in states if sum(s.home) > 0) >= 500


def deal_record(deal):
    """The P64 record of msDeal `deal` by the fast checker's own deal generator (`fccheck --deal N`)."""
    proc = subprocess.run([fastcheck.binary(), "--deal", str(deal)], capture_output=True)
    assert proc.returncode == 0 and len(proc.stdout) == fastcheck.P64, proc.stderr
    return proc.stdout


def test_deal_generator_equals_the_spec():
    for n in list(range(1, 61)) + [617, 11982, 24795893, 219837216, 1000000, 2147483647, 2 ** 31, 2 ** 31 + 5, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 7, 2 ** 33 - 1]:
        assert deal_record(n) == p64(spec.ms_deal(n)), n


# -- verdicts: the same as the Python checker -----------------------------------------------------------

def test_11982_valid_with_the_same_line_as_the_python_checker(tmp_path, cert11982, reference11982):
    res = fast(tmp_path, cert11982)
    ref = reference11982
    assert res.ok and ref.ok
    assert res.message == ref.message == (
        f"valid for deal 11982 under {STANDARD}: 84,767 states; the start position is in the set, every one of "
        f"the 314,366 successors of its members is in it, and none of them is won")
    assert res.states == res.checked == 84767 and res.successors == ref.successors == 314366


def test_small_certificates_and_rules_agree_with_python(tmp_path, small_certs):
    for cert in small_certs:
        res, ref = fast(tmp_path, cert), checker.check(cert)
        assert res.ok and ref.ok and res.message == ref.message


def test_the_records_digest_and_the_most_cards_home_are_the_records_read(tmp_path, small_certs, cert11982):
    """fccheck --json gives records_sha256 (certificate.records_sha256: the sorted records uncompressed, one after
    the other) and max_home (the most cards home in any record) from the records it checks, fixed and up to
    column order with safe automatic moves; fastcheck.checked without the fast checker gives the same."""
    safe = tmp_path / "safe.cert"        # deal 146692 up to column order with safe automatic moves: 8,603 positions
    p = subprocess.run([sys.executable, "-m", "certgen", "build", "--deal", "146692", "--canonical", "--autoplay",
                        "safe", "--out", str(safe), "--no-progress"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    paths = [safe]
    for k, cert in enumerate([cert11982] + small_certs):
        paths.append(tmp_path / f"c{k}.cert")
        certificate.write(str(paths[-1]), cert)
    got = []
    for path in paths:
        cert = certificate.read(str(path))
        want = (certificate.records_sha256(cert.records), max(sum(state_of(r).home) for r in cert.records))
        assert want[0] == certificate.summarize(str(path)).records_sha256
        fast_, ref = fastcheck.checked(str(path), digest=True), fastcheck.checked(str(path), reference=True)
        assert fast_.fast is not None and ref.reference is not None and fast_.ok and ref.ok
        assert (fast_.records_sha256, fast_.max_home) == (ref.records_sha256, ref.max_home) == want, path
        plain = fastcheck.checked(str(path))            # the digest only when asked: a tenth of a check
        assert (plain.ok, plain.records_sha256, plain.max_home) == (True, None, want[1])
        got.append((cert.states, want[1], want[0][:8]))
    assert got == [(8603, 9, "5aab5adc"), (84767, 2, "feacd48f"), (585, 0, "f541ef10"), (83, 0, "778439c8"),
                   (448, 7, "101fd536"), (436, 3, "583ab2ce"), (278, 2, "3fd14e33"), (464, 7, "6f089342"),
                   (85, 2, "271dd188")]
    p = subprocess.run([fastcheck.BINARY, "--records-sha256", str(paths[0])], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.startswith("error: usage: fccheck [--json [--records-sha256]]")   # --json only


def refuse_every_single_deletion(tmp_path, certs, exe=None):
    """The reachable set is the least fence: without any one of its members it is no fence. Returns the
    number of mutants refused."""
    tried = 0
    for cert in certs:
        start = cert.start
        for rec in cert.records:
            mutant = certificate.Certificate(cert.source, cert.rules, cert.start,
                                             [r for r in cert.records if r != rec], {})
            res = fast(tmp_path, mutant, exe=exe)
            gone = checker.describe(state_of(rec))
            assert not res.ok
            if rec == start:
                assert res.failure == "start" and res.message.endswith(gone)
            else:
                assert res.failure == "successor" and f"missing {gone} reached" in res.message
            tried += 1
    return tried


def test_every_single_deletion_is_refused_on_the_two_smallest_certificates(tmp_path, small_certs):
    assert refuse_every_single_deletion(tmp_path, [small_certs[1], small_certs[6]]) == 83 + 85


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_a_member_is_a_record_equal_to_the_key_not_one_with_its_hash(tmp_path, small_certs):
    """fccheck compiled with WEAK_HASH gives every record and every key the same hash (2^64 - 1): each look-up
    through the index walks one probe sequence holding all the records, every slot's tag equal to the key's,
    from slot (2^64 - 1) % nslots on, nslots = n + n // 4 + 1; for the 85 records of deal 6 with one free cell
    it starts at slot 91 of 107 and goes on past the table's end from slot 0. That build says what the
    reference checker says: both certificates valid (every record found, those after the wrap too), and each
    with any one of its records deleted refused for that record (a tag equal to the key's, or a slot taken,
    never makes a member)."""
    weak = tmp_path / "fccheck-weak"
    p = subprocess.run(["cc", "-O1", "-std=c99", "-DWEAK_HASH", "-o", str(weak), fastcheck.SOURCE, "-lz"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    certs = [small_certs[1], small_certs[6]]
    n = certs[1].states
    assert n == 85 and (2 ** 64 - 1) % (n + n // 4 + 1) == 91 and 91 + n > n + n // 4 + 1   # the sequence wraps
    for cert in certs:
        res, ref = fast(tmp_path, cert, exe=str(weak)), checker.check(cert)
        assert res.ok and ref.ok and res.message == ref.message
        assert res.held_bytes == fast(tmp_path, cert, index_states=0).held_bytes + 8 * (cert.states + cert.states // 4 + 1)
    assert refuse_every_single_deletion(tmp_path, certs, exe=str(weak)) == 83 + 85


def test_the_index_and_the_binary_searches_give_the_same_verdicts_and_counts(tmp_path, small_certs):
    """Each certificate and each of its mutants checked through the hash index (--index-states n or more for n
    records) and by the binary searches (--index-states n - 1, or 0): the same verdict, failure, line, members
    checked and successors looked up, the reference checker's verdict (and its line but where members it
    reaches in another order are deleted); the index 8 bytes a slot more
    (n + n // 4 + 1 slots), nothing more. The certificates: the small fixed ones, and deal 146692 up to column
    order with safe automatic moves (8,603 records); the mutants: the start, its first and last successors
    deleted, 1 and 5 random members deleted, the won position added."""
    safe = tmp_path / "safe.cert"
    p = subprocess.run([sys.executable, "-m", "certgen", "build", "--deal", "146692", "--canonical", "--autoplay",
                        "safe", "--out", str(safe), "--no-progress"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    kinds = ["deal", "first-successor", "last-successor", "random:1", "random:5", "add-won"]
    failures = {}
    for cert in small_certs + [certificate.read(str(safe))]:
        cases = [cert] + [mutate.mutate(cert, kind, seed=7)[0] for kind in kinds]
        for case in cases:
            n = case.states
            ref = checker.check(case)
            got = [fast(tmp_path, case, index_states=k) for k in (n, 2 ** 40, n - 1, 0)]
            assert [res.held_bytes - got[3].held_bytes for res in got] == [8 * (n + n // 4 + 1)] * 2 + [0, 0]
            for res in got:
                assert (res.ok, res.failure) == (ref.ok, ref.failure)
                assert (res.states, res.checked, res.successors, res.message) == \
                    (got[0].states, got[0].checked, got[0].successors, got[0].message)
            if case.info.get("mutation", {}).get("kind") in (None, "deal", "add-won"):
                assert got[0].message == one_line(ref)   # (the reference may name another missing member first)
            failures[ref.failure] = failures.get(ref.failure, 0) + 1
    assert failures == {None: 8, "start": 8, "successor": 32, "won": 8}


@pytest.mark.slow
def test_every_single_deletion_is_refused_on_small_certificates(tmp_path, small_certs):
    assert refuse_every_single_deletion(tmp_path, small_certs) == sum(c.states for c in small_certs) == 2379


@pytest.mark.slow
def test_deletions_on_11982_are_refused(tmp_path, cert11982):
    for seed in range(8):
        mutant, changed = mutate.mutate(cert11982, "random:1", seed=seed)
        res = fast(tmp_path, mutant)
        assert not res.ok and res.failure == "successor"
        assert f"missing {checker.describe(state_of(changed[0]))} reached" in res.message
    for kind in ("deal", "first-successor", "last-successor"):
        mutant, _ = mutate.mutate(cert11982, kind)
        res = fast(tmp_path, mutant)
        assert not res.ok and res.failure == ("start" if kind == "deal" else "successor")


@pytest.mark.slow
def test_many_deletions_on_11982(tmp_path, cert11982):
    rng = random.Random(1198)
    for rec in rng.sample(cert11982.records, 100):
        mutant = certificate.Certificate(cert11982.source, cert11982.rules, cert11982.start,
                                         [r for r in cert11982.records if r != rec], {})
        res = fast(tmp_path, mutant)
        assert not res.ok and checker.describe(state_of(rec)) in res.message


def test_an_added_won_state_is_refused(tmp_path, small_certs):
    for cert in small_certs[:3]:
        mutant, _ = mutate.mutate(cert, "add-won")
        res, ref = fast(tmp_path, mutant), checker.check(mutant)
        assert not res.ok and res.failure == ref.failure == "won"
        assert res.message == one_line(ref)
        assert res.message.endswith("the certificate contains a won position: "
                                    "[cols: - / - / - / - / - / - / - / - | cells: - | home: 13 13 13 13]")


def test_a_single_deletion_is_reported_like_the_python_checker(tmp_path, small_certs):
    cert = small_certs[0]
    for kind in ("deal", "last-successor"):
        mutant, _ = mutate.mutate(cert, kind)
        res, ref = fast(tmp_path, mutant), checker.check(mutant)
        assert not res.ok and res.failure == ref.failure and res.message == one_line(ref)


def test_a_start_that_is_not_the_deal_is_invalid(tmp_path, small_certs):
    cert = small_certs[0]
    other = certificate.Certificate({"kind": "ms", "deal": 11983}, cert.rules, cert.start, cert.records, {})
    res, ref = fast(tmp_path, other), checker.check(other)
    assert not res.ok and res.failure == ref.failure == "start-mismatch"
    assert res.message == one_line(ref) == \
        f"invalid for deal 11983 under {TWO_CELLS}: the header's start position is not msDeal 11983"


def test_boards_and_deal_codes(tmp_path, small_certs):
    """A board's start is taken from the header; a deal code's start must be the code's (checked in Python
    by certgen/fastcheck.py, with solver/siggysoft.py, as by the Python checker)."""
    cert = small_certs[2]  # deal 3, one free cell
    for source in ({"kind": "board", "name": "x"}, {"kind": "code", "code": "SOL1-freecell-cells=1-C3"},
                   {"kind": "ms", "deal": 3, "code": "SOL1-freecell-cells=1-C3"}):
        c = certificate.Certificate(source, cert.rules, cert.start, cert.records, {})
        res, ref = fast(tmp_path, c), checker.check(c)
        assert res.ok and ref.ok and res.message == ref.message
    for source in ({"kind": "code", "code": "SOL1-freecell-cells=1-C4"}, {"kind": "code", "code": "SOL1-x"},
                   {"kind": "ms", "deal": 3, "code": "SOL1-freecell-cells=1-C4"},
                   {"kind": "code", "code": "SOL1-freecell-cells=1-C3 "}):     # one word (it was .strip()ped)
        c = certificate.Certificate(source, cert.rules, cert.start, cert.records, {})
        res, ref = fast(tmp_path, c), checker.check(c)
        assert not res.ok and res.failure == ref.failure == "start-mismatch" and res.message == one_line(ref)
    # a start outside the set: a successor of the deal stands in for it
    s1 = spec.moves(spec.Rules(cells=1), spec.ms_deal(3))[0]
    away = certificate.Certificate({"kind": "board", "name": "y"}, cert.rules, p64(s1),
                                   [r for r in cert.records if r != p64(s1)], {})
    res, ref = fast(tmp_path, away), checker.check(away)
    assert not res.ok and res.failure == ref.failure == "start" and res.message == one_line(ref)
    assert res.message.startswith("invalid for the board y (start position ")


# -- the records held compactly: block boundaries, bytes a position -------------------------------------

def _block_size():
    """BLOCK in checker/fccheck.c: records a block (one head, the others front-coded)."""
    with open(os.path.join(ROOT, "checker", "fccheck.c")) as f:
        return int(next(line.split()[2] for line in f if line.startswith("#define BLOCK ")))


BLOCK = _block_size()


@pytest.mark.parametrize("n", [0, 1, 2, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK, 2 * BLOCK + 1])
def test_block_boundaries_agree_with_python(tmp_path, n):
    """Certificates of 1, a block, a block and one more records...: each record found wherever it lies in
    its block (the start at a block's head, its last record, the certificate's last), and a start left
    out of the set found missing, with the reference checker's lines."""
    recs = dead_positions(n + 1, seed=n)
    rules = {"cells": 0, "foundation_return": False}
    places = sorted({k for k in (0, 1, BLOCK - 1, BLOCK, BLOCK + 1, n - 1) if 0 <= k < n})
    for k in places:
        cert = certificate.Certificate({"kind": "board", "name": "dead"}, rules, recs[k], recs[:n], {})
        res, ref = fast(tmp_path, cert), checker.check(cert)
        assert res.ok and ref.ok and res.message == ref.message
        assert f": {n:,} state{'' if n == 1 else 's'}; " in res.message
    others = [recs[n]] + [recs[k] for k in places]  # one record beyond, and each place left out in turn
    for k, start in enumerate(others):
        rest = recs[:n] if k == 0 else [r for r in recs[:n] if r != start] + [recs[n]]
        cert = certificate.Certificate({"kind": "board", "name": "dead"}, rules, start, sorted(rest), {})
        res, ref = fast(tmp_path, cert), checker.check(cert)
        assert not res.ok and res.failure == ref.failure == "start" and res.message == one_line(ref)


def test_records_are_held_in_at_most_16_bytes_a_position(tmp_path, cert11982):
    """The 84,767 records of #11982 (64 bytes each in the file's body) held front-coded: 1,240,797 bytes
    with blocks of 32 (14.6 a position; the heads 2.25 of them); past --index-states, that is all. Up to
    it, their index besides: 84,767 + 21,191 + 1 slots of 8 bytes (10.0 a position)."""
    n = cert11982.states
    res, indexed = fast(tmp_path, cert11982, index_states=n - 1), fast(tmp_path, cert11982, index_states=n)
    assert res.ok and indexed.ok and res.held_bytes == 1_240_797 <= 16 * n
    assert res.held_bytes >= n * (P64 + 8) // BLOCK  # the heads and their places, at least
    assert indexed.held_bytes == res.held_bytes + 8 * (n + n // 4 + 1) == 1_240_797 + 847_672


# -- damaged files: exit 2, one line ---------------------------------------------------------------------

def _header(cert, **change):
    h = {"source": cert.source, "rules": cert.rules, "start": cert.start, "states": len(cert.records),
         "encoding": "p64-sorted-zlib", "info": {}}
    h.update(change)
    return msgpack.packb({k: v for k, v in h.items() if v is not None}, use_bin_type=True)


def damaged(cert):
    body = zlib.compress(b"".join(cert.records), 9)
    good = certificate.encode(cert)
    top = msgpack.unpackb(good, raw=False)
    flipped = bytearray(body)
    flipped[len(flipped) // 2] ^= 0xFF
    recs = list(cert.records)

    def with_records(extra):
        rs = sorted(recs + [bytes(r) for r in extra])
        return v2_file(_header(cert, states=len(rs)), zlib.compress(b"".join(rs)))

    dup_card = bytearray(recs[5])
    dup_card[0] = dup_card[1]
    unsorted_cells = bytearray(packed.pack((((0, 1, 2),) + ((),) * 7, (9, 5), (0, 0, 0, 0))))
    unsorted_cells[11], unsorted_cells[12] = unsorted_cells[12], unsorted_cells[11]
    nine_cells = packed.pack((((),) * 8, tuple(range(9)), (0, 0, 0, 0)))     # cards 0..8 in 9 free cells
    above_home = packed.pack((((4,),) + ((),) * 7, (), (0, 0, 0, 0)))      # 2C in play, AC home
    v1 = msgpack.packb({"header": {"format": "freecell-proof-certificate", "version": 1, "source": cert.source,
                                   "rules": cert.rules, "start": cert.start, "states": len(recs),
                                   "encoding": "p64-sorted-zlib", "body_sha256": hashlib.sha256(body).hexdigest(),
                                   "info": {}}, "body": body}, use_bin_type=True)
    return {
        "empty": (b"", "corrupt or truncated"),
        "not msgpack": (b"\xc1garbage", "corrupt or truncated"),
        "truncated": (good[: len(good) // 2], "corrupt or truncated"),
        "extra bytes": (good + b"\x00", "extra data"),
        "not a map": (msgpack.packb([1, 2]), "not a map"),
        "foreign map": (msgpack.packb({"hello": 1}), "format None"),
        "foreign format": (msgpack.packb(dict(top, format="something-else"), use_bin_type=True),
                           "format 'something-else'"),
        "version 1": (v1, "version 1, which has no checksum over its header; this tool reads versions 2 and 3: rebuild"),
        "version 4": (msgpack.packb(dict(top, version=4), use_bin_type=True), "version 4; this tool reads versions 2 and 3\n"),
        "another key": (msgpack.packb(dict(top, note="hi"), use_bin_type=True), "exactly the keys"),
        "no checksum": (msgpack.packb({k: v for k, v in top.items() if k != "sha256"}, use_bin_type=True),
                        "exactly the keys"),
        "flipped body byte": (msgpack.packb(dict(top, body=bytes(flipped)), use_bin_type=True), "checksum mismatch"),
        "wrong checksum": (msgpack.packb(dict(top, sha256="0" * 64), use_bin_type=True), "checksum mismatch"),
        "short checksum": (msgpack.packb(dict(top, sha256="0"), use_bin_type=True), "checksum mismatch"),
        "body not zlib": (v2_file(_header(cert), b"not zlib" * 1000), "does not decompress"),
        "body cut short": (v2_file(_header(cert), body[:-9]), "truncated"),
        "bytes after the body": (v2_file(_header(cert), body + b"more"), "bytes after the end of the compressed body"),
        "fewer states": (v2_file(_header(cert, states=len(recs) - 1), body), "body holds more than"),
        "more states": (v2_file(_header(cert, states=len(recs) + 1), body), "expected"),
        "zip bomb": (v2_file(_header(cert, states=1), zlib.compress(bytes(64 << 20), 9)), "body holds more than"),
        "count the body cannot hold": (v2_file(_header(cert, states=2 ** 40), body), "cannot hold"),
        "count too large": (v2_file(_header(cert, states=2 ** 40 + 1), body), "bad state count"),
        "unsorted records": (v2_file(_header(cert), zlib.compress(b"".join(recs[1:2] + recs[:1] + recs[2:]))),
                             "not sorted and distinct (record 2)"),
        "a record twice": (v2_file(_header(cert, states=len(recs) + 1), zlib.compress(b"".join(recs[:1] + recs))),
                           "not sorted and distinct (record 2)"),
        "a card twice": (v2_file(_header(cert), zlib.compress(b"".join(sorted(recs[:5] + [bytes(dup_card)] + recs[6:])))),
                         "is not a position"),
        "unsorted free cells": (with_records([unsorted_cells]), "is not a position"),
        "nine free cells": (with_records([nine_cells]), "is not a position"),
        "a card above its foundation": (with_records([above_home]), "is not a position"),
        "other encoding": (v2_file(_header(cert, encoding="p64-lz4"), body), "unknown body encoding 'p64-lz4'"),
        "deal 0": (v2_file(_header(cert, source={"kind": "ms", "deal": 0}), body), "deal 0"),
        "deal 'abc'": (v2_file(_header(cert, source={"kind": "ms", "deal": "abc"}), body), "deal 'abc'"),
        "deal missing": (v2_file(_header(cert, source={"kind": "ms"}), body), "deal None"),
        "other kind": (v2_file(_header(cert, source={"kind": "elsewhere"}), body), "kind 'elsewhere'"),
        "a code with a newline": (v2_file(_header(cert, source={"kind": "code", "code": "SOL1\nx"}), body),
                                  "bad source in header: code"),
        "cells True": (v2_file(_header(cert, rules={"cells": True, "foundation_return": False}), body), "bad rules"),
        "cells 9": (v2_file(_header(cert, rules={"cells": 9, "foundation_return": False}), body), "bad rules"),
        "another rule": (v2_file(_header(cert, rules=dict(cert.rules, autoplay=True)), body), "bad rules"),
        "info a list": (v2_file(_header(cert, info=[1, 2]), body), "bad info"),
        "another header key": (v2_file(_header(cert, note="hi"), body), "exactly the keys"),
        "no start": (v2_file(_header(cert, start=None), body), "exactly the keys"),
        "short start": (v2_file(_header(cert, start=cert.start[:60]), body), "bad start position"),
        "header not a map": (v2_file(msgpack.packb([1, 2]), body), "exactly the keys"),
        "header not msgpack": (v2_file(b"\xc1", body), "the header is not readable msgpack"),
    }


@pytest.mark.parametrize("case", [
    "empty", "not msgpack", "truncated", "extra bytes", "not a map", "foreign map", "foreign format", "version 1",
    "version 4", "another key", "no checksum", "flipped body byte", "wrong checksum", "short checksum",
    "body not zlib", "body cut short", "bytes after the body", "fewer states", "more states", "zip bomb",
    "count the body cannot hold", "count too large", "unsorted records", "a record twice", "a card twice",
    "unsorted free cells", "nine free cells", "a card above its foundation", "other encoding", "deal 0",
    "deal 'abc'", "deal missing", "other kind", "a code with a newline", "cells True", "cells 9", "another rule",
    "info a list", "another header key", "no start", "short start", "header not a map", "header not msgpack"])
def test_damaged_files_exit_2_with_one_line(tmp_path, small_certs, case):
    """Refused by the fast checker (exit 2, one line) and by the Python reader alike."""
    data, expected = damaged(small_certs[2])[case]
    p = run_fccheck(tmp_path, data)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert p.stdout == "" and p.stderr.count("\n") == 1 and p.stderr.startswith(f"error: {tmp_path / 'c.cert'}: ")
    assert expected in p.stderr, p.stderr
    with pytest.raises(FreecellError):
        certificate.decode(data)


def test_a_missing_file_and_bad_arguments(tmp_path):
    p = subprocess.run([EXE, str(tmp_path / "nope.cert")], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.startswith("error: cannot read certificate") and p.stderr.count("\n") == 1
    for args in ([], ["--nonsense"], ["a", "b"], ["--deal", "0"], ["--cells", "9", "--successors"],
                 ["--index-states", "-1", "a"], ["--index-states", "x", "a"], ["--index-states", " 1", "a"],
                 ["--index-states", "18446744073709551616", "a"], ["a", "--index-states"]):
        p = subprocess.run([EXE, *args], capture_output=True, text=True)
        assert p.returncode == 2 and p.stderr.startswith("error: usage: fccheck") and p.stderr.count("\n") == 1


# -- `certgen check` uses it ---------------------------------------------------------------------------

def check_with_fake(tmp_path, small_certs, script):
    """`certgen check` of a small certificate with FCCHECK naming a shell script: (the script, the certificate,
    the run), the run refused (exit status 2, nothing on stdout)."""
    fake = tmp_path / "fake"
    fake.write_text(f"#!/bin/sh\n{script}\n")
    fake.chmod(0o755)
    path = tmp_path / "c.cert"
    certificate.write(str(path), small_certs[0])
    p = subprocess.run([sys.executable, "-m", "certgen", "check", str(path)], capture_output=True, text=True,
                       cwd=ROOT, env=dict(os.environ, FCCHECK=str(fake)))
    assert p.returncode == 2 and p.stdout == "", p.stderr
    return fake, path, p


@pytest.mark.parametrize("script", ["exit 0", "echo not json", "echo '{\"valid\": true}'",
                                    "echo '[1, 2]'"])
def test_a_program_named_by_fccheck_without_its_report_is_one_line(tmp_path, small_certs, script):
    # FCCHECK may name any program: its output, when it is not fccheck's --json object, is no verdict
    fake, path, p = check_with_fake(tmp_path, small_certs, script)
    assert p.stderr.splitlines() == [f"error: the fast checker {fake} gave no report of its check on {path} "
                                     f"(not fccheck's --json object)"]


def test_a_program_named_by_fccheck_that_does_not_take_index_states_is_one_line_that_says_so(tmp_path, small_certs):
    # an fccheck built before --index-states says its usage line (not a word about the file or the option)
    fake, path, p = check_with_fake(tmp_path, small_certs, (
        f"for a; do [ \"$a\" = --index-states ] && {{ echo 'error: usage: fccheck [--json [--records-sha256]] "
        f"[--progress] CERT' >&2; exit 2; }}; done\nexec {fastcheck.BINARY} \"$@\""))
    assert p.stderr.splitlines() == [f"error: the fast checker {fake} does not take the arguments --json "
                                     f"--index-states {limits.FASTCHECK_INDEX_STATES} (an older fccheck: `make` "
                                     f"builds build/fccheck)"]


@pytest.mark.parametrize("field, value", [("max_home", True), ("max_home", 53), ("max_home", -1), ("max_home", "9"),
                                          ("max_home", 9.0), ("max_home", None), ("records_sha256", "AB" * 32),
                                          ("records_sha256", "ab" * 31), ("records_sha256", "ab" * 32 + "\n"),
                                          ("records_sha256", 12), ("records_sha256", None)])
def test_a_figure_of_a_program_named_by_fccheck_that_is_none_of_fccheck_s_is_one_line(tmp_path, small_certs, field,
                                                                                  value):
    # the ledger's max_home (an int 0..52) and records_sha256 (64 lowercase hex digits) come from the check's report
    fake = tmp_path / "fake"
    fake.write_text(f"#!{sys.executable}\nimport json, subprocess, sys\n"
                    f"p = subprocess.run([{fastcheck.BINARY!r}] + sys.argv[1:], stdout=subprocess.PIPE)\n"
                    f"obj = json.loads(p.stdout)\nobj[{field!r}] = {value!r}\nprint(json.dumps(obj))\n"
                    f"sys.exit(p.returncode)\n")
    fake.chmod(0o755)
    path = tmp_path / "c.cert"
    certificate.write(str(path), small_certs[0])
    with pytest.raises(FreecellError) as e:
        fastcheck.check(str(path), exe=str(fake), digest=True)
    assert str(e.value) == f"the fast checker {fake} gave no report of its check on {path} (not fccheck's --json object)"
    if value is not None:               # not asked for the digest, the program gives none, or a digest
        with pytest.raises(FreecellError, match="gave no report of its check"):
            fastcheck.check(str(path), exe=str(fake))
    fake.write_text(f"#!/bin/sh\nexec {fastcheck.BINARY} \"$@\"\n")    # fccheck's own figures pass
    got = fastcheck.check(str(path), exe=str(fake), digest=True)
    assert got.ok and got.max_home == 0 and got.records_sha256 == certificate.records_sha256(small_certs[0].records)


def test_certgen_check_uses_the_fast_checker_and_keeps_the_reference(tmp_path, small_certs, capsys):
    import json
    from certgen import cli
    cert = small_certs[0]
    path = tmp_path / "c.cert"
    certificate.write(str(path), cert)
    outs = []
    for args in (["check", str(path)], ["check", "--reference", str(path)]):
        assert cli.main(args) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] == (f"valid for deal 11982 under {TWO_CELLS}: 585 states; the start position is in "
                                  f"the set, every one of the 1,724 successors of its members is in it, and none "
                                  f"of them is won\n")
    jsons = []
    for args in (["check", "--json", str(path)], ["check", "--json", "--reference", str(path)]):
        assert cli.main(args) == 0
        jsons.append(json.loads(capsys.readouterr().out))
    assert jsons[0].pop("checker") == "fast" and "checker" not in jsons[1]
    jsons[1]["checked"] = jsons[0]["checked"]  # the order of the visits differs, not the members
    assert jsons[0] == jsons[1]
    mutant, _ = mutate.mutate(cert, "add-won")
    certificate.write(str(path), mutant)
    assert cli.main(["check", str(path)]) == 1
    assert capsys.readouterr().out.startswith(f"invalid for deal 11982 under {TWO_CELLS}: the certificate contains "
                                              f"a won position")
    path.write_bytes(certificate.encode(cert)[:-100])
    assert cli.main(["check", str(path)]) == 2
    assert capsys.readouterr().err == f"error: {path}: not a readable certificate (corrupt or truncated msgpack)\n"


def test_names_and_codes_python_does_not_print_are_refused(tmp_path, small_certs):
    """fccheck refuses control characters in a deal code or board name; the rest of Python's idea of
    printable (U+2028, a line separator, is not) is applied by certgen/fastcheck.py, so `certgen check`
    refuses what the Python reader refuses."""
    cert = small_certs[2]
    for source, expected in (({"kind": "board", "name": "x\u2028y"}, "bad source in header: board name"),
                             ({"kind": "code", "code": "SOL1\u2028"}, "bad source in header: code")):
        path = tmp_path / "c.cert"
        path.write_bytes(certificate.encode(certificate.Certificate(source, cert.rules, cert.start, cert.records)))
        with pytest.raises(FreecellError, match=expected):
            fastcheck.check(str(path))
        with pytest.raises(FreecellError, match=expected):
            certificate.read(str(path))


def test_a_stream_is_read_up_to_the_end_of_its_certificate(small_certs):
    """A FIFO or a device is read only up to the end of its one msgpack value, as by the Python reader:
    /dev/zero is refused at once, bytes after a certificate are refused, a whole one is checked."""
    p = subprocess.run([EXE, "/dev/zero"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr == "error: /dev/zero: not a freecell-proof certificate (not a map)\n"
    good = certificate.encode(small_certs[2])
    for data, code, expected in ((good, 0, "valid for deal 3 under"), (good + b"x", 2, "bytes after the end"),
                                 (good[:-5], 2, "corrupt or truncated")):
        p = subprocess.run([EXE, "/dev/stdin"], input=data, capture_output=True, timeout=60)
        assert p.returncode == code and expected.encode() in p.stdout + p.stderr, p


def test_the_python_reader_says_what_the_fast_checker_says(tmp_path):
    """Each damaged certificate of ``damaged`` is refused by the Python reader in the fast
    checker's words (the reader added msgpack's exception names, "msgpack: ValueError", wrote key lists and
    rules as Python reprs, and refused a count no body of that size can hold only after inflating it)."""
    if not fastcheck.binary():
        pytest.skip("build/fccheck is not built")
    cert = spec_reachable(3, 1, False)
    path = tmp_path / "c.cert"
    differ = []
    for case, (data, _) in damaged(cert).items():
        path.write_bytes(data)
        c = subprocess.run([fastcheck.binary(), str(path)], capture_output=True, text=True).stderr.strip()
        with pytest.raises(FreecellError) as e:
            certificate.read(str(path))
        if c != f"error: {e.value}":
            differ.append(case)
    assert differ == []


def test_a_program_named_by_fccheck_is_named_in_the_verdict(tmp_path, small_certs):
    # FCCHECK may name a program that says what fccheck says: `check` must not pass its word for build/fccheck's
    fake = tmp_path / "fake"
    fake.write_text(f"#!/bin/sh\nexec {fastcheck.BINARY} \"$@\"\n")
    fake.chmod(0o755)
    path = tmp_path / "c.cert"
    certificate.write(str(path), small_certs[0])
    env = dict(os.environ, FCCHECK=str(fake))
    ran = {flag: subprocess.run([sys.executable, "-m", "certgen", "check", *flag, str(path)], capture_output=True,
                                text=True, cwd=ROOT, env=env) for flag in ((), ("--json",))}
    assert all(p.returncode == 0 for p in ran.values()), ran
    assert ran[()].stdout.startswith("valid for deal 11982 ")
    assert ran[()].stdout.endswith(f"none of them is won (by {fake}, named by FCCHECK: not build/fccheck)\n")
    assert json.loads(ran[("--json",)].stdout)["program"] == str(fake)
    env["FCCHECK"] = fastcheck.BINARY                   # build/fccheck itself is not another program
    p = subprocess.run([sys.executable, "-m", "certgen", "check", "--json", str(path)], capture_output=True,
                       text=True, cwd=ROOT, env=env)
    assert p.returncode == 0 and "program" not in json.loads(p.stdout)


@pytest.mark.parametrize("command", ["certify-list", "survey"])
def test_a_run_whose_rows_say_build_fccheck_refuses_another_program(tmp_path, command):
    fake = tmp_path / "fake"
    fake.write_text(f"#!/bin/sh\nexec {fastcheck.BINARY} \"$@\"\n")
    fake.chmod(0o755)
    lst = tmp_path / "list.txt"
    lst.write_text("146692\n")
    args = [str(lst), "--dir", str(tmp_path / "d")] if command == "certify-list" else \
        ["1-10", "--dir", str(tmp_path / "d")]
    p = subprocess.run([sys.executable, "-m", "certgen", command, *args], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, FCCHECK=str(fake)))
    name = "certify-list" if command == "certify-list" else "the survey"
    one_line_error(p, f"{name} checks its certificates with build/fccheck itself, but FCCHECK names {fake}: "
                      f"unset FCCHECK")
    assert not (tmp_path / "d").exists()


def _forwarding_fake(path, log=None):
    """A program at ``path`` that runs build/fccheck (noting in ``log`` that it ran): fccheck's word, not its
    program."""
    path.parent.mkdir(parents=True, exist_ok=True)
    note = f"echo ran >> {log}\n" if log else ""
    path.write_text(f"#!/bin/sh\n{note}exec {fastcheck.BINARY} \"$@\"\n")
    path.chmod(0o755)
    return path


def test_fccheck_through_a_link_then_dotdot_names_the_program_that_runs(tmp_path, small_certs, monkeypatch):
    tmp_path = tmp_path.resolve()                 # the program is named as the file that runs
    # lnk/../.. spelled to read as build/fccheck, where the system, which follows lnk first, finds a fake
    q = tmp_path / "q"
    up = len(q.parts) - 1                          # from q up to /
    evil = tmp_path / "evil"
    target = evil.joinpath(*["a"] * (up + 1))
    target.mkdir(parents=True)
    q.mkdir()
    (q / "lnk").symlink_to(target)
    fake = _forwarding_fake(evil / fastcheck.BINARY.lstrip(os.sep))
    named = os.path.join("lnk", *[".."] * (up + 1), fastcheck.BINARY.lstrip(os.sep))
    assert os.path.abspath(os.path.join(q, named)) == fastcheck.BINARY
    assert os.path.realpath(os.path.join(q, named)) == str(fake)
    path = tmp_path / "c.cert"
    certificate.write(str(path), small_certs[0])
    env = dict(os.environ, FCCHECK=named, PYTHONPATH=ROOT)
    p = subprocess.run([sys.executable, "-m", "certgen", "check", str(path)], capture_output=True, text=True,
                       cwd=q, env=env)
    assert p.returncode == 0 and p.stdout.endswith(f"(by {fake}, named by FCCHECK: not build/fccheck)\n"), p
    p = subprocess.run([sys.executable, "-m", "certgen", "check", "--json", str(path)], capture_output=True,
                       text=True, cwd=q, env=env)
    assert json.loads(p.stdout)["program"] == str(fake)
    monkeypatch.chdir(q)
    monkeypatch.setenv("FCCHECK", named)
    with pytest.raises(FreecellError, match=f"FCCHECK names {fake}: unset FCCHECK"):
        fastcheck.refuse_another("the survey")


def test_fccheck_without_a_slash_is_the_file_in_the_folder_not_one_on_path(tmp_path, small_certs):
    # cd build; FCCHECK=fccheck: build/fccheck is what was named and checked for; a fccheck on PATH must not run
    log = tmp_path / "ran"
    _forwarding_fake(tmp_path / "bin" / "fccheck", log)
    path = tmp_path / "c.cert"
    certificate.write(str(path), small_certs[0])
    p = subprocess.run([sys.executable, "-m", "certgen", "check", str(path)], capture_output=True, text=True,
                       cwd=os.path.dirname(fastcheck.BINARY),
                       env=dict(os.environ, FCCHECK="fccheck", PYTHONPATH=ROOT,
                                PATH=f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}"))
    assert p.returncode == 0 and p.stdout.endswith("none of them is won\n"), p
    assert not log.exists()


def test_fccheck_naming_no_program_is_one_line_and_a_name_stays_on_one_line(tmp_path, small_certs):
    tmp_path = tmp_path.resolve()                 # the program is named as the file that runs
    path = tmp_path / "c.cert"
    certificate.write(str(path), small_certs[0])
    missing = tmp_path / "no-such-program"
    p = subprocess.run([sys.executable, "-m", "certgen", "check", str(path)], capture_output=True, text=True,
                       cwd=ROOT, env=dict(os.environ, FCCHECK=str(missing)))
    one_line_error(p, f"FCCHECK names {missing}, which is not an executable file")
    fake = _forwarding_fake(tmp_path / "x\nvalid for deal 1" / "f")
    p = subprocess.run([sys.executable, "-m", "certgen", "check", str(path)], capture_output=True, text=True,
                       cwd=ROOT, env=dict(os.environ, FCCHECK=str(fake)))
    assert p.returncode == 0 and p.stdout.count("\n") == 1, p
    assert p.stdout.endswith(f"(by {tmp_path}/x\\nvalid for deal 1/f, named by FCCHECK: not build/fccheck)\n")


def test_a_worker_refuses_another_program_its_environment_names(tmp_path, small_certs, monkeypatch):
    tmp_path = tmp_path.resolve()                 # the program is named as the file that runs
    # a dask worker's environment is its own: the client's refusal does not cover it
    from certgen import survey
    from solver.rules import Rules
    path = tmp_path / "c.cert"
    certificate.write(str(path), small_certs[0])
    assert survey._cert_ok(str(path), 11982, Rules(cells=2))
    fake = _forwarding_fake(tmp_path / "fake")
    monkeypatch.setenv("FCCHECK", str(fake))
    with pytest.raises(FreecellError, match=f"FCCHECK names {fake}: unset FCCHECK"):
        survey._cert_ok(str(path), 11982, Rules(cells=2))


def test_a_damaged_file_whose_name_holds_a_newline_is_named_whole(tmp_path, small_certs):
    """fccheck writes the name as it is, so its one line spreads over two: the line said is still the whole
    name's, as the Python reader says it (a FreecellError writes a newline as a space), not its last part's."""
    if not fastcheck.binary():
        pytest.skip("build/fccheck is not built")
    data, expected = damaged(small_certs[2])["a record twice"]
    path = tmp_path / "two\nlines.cert"
    path.write_bytes(data)
    with pytest.raises(FreecellError) as fast_said:
        fastcheck.check(str(path))
    with pytest.raises(FreecellError) as python_said:
        certificate.read(str(path))
    said = str(fast_said.value)
    assert said == str(python_said.value) and said.startswith(f"{tmp_path}/two lines.cert: ") and expected in said
    with pytest.raises(FreecellError) as fast_said:
        fastcheck.check(str(tmp_path / "no\nfile.cert"))
    assert str(fast_said.value) == f"cannot read certificate {tmp_path}/no file.cert: No such file or directory"
