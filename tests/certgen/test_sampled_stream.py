"""The sampled reference check with the records left on disk (certgen/sampled.py's streaming mode: two passes
over the file, past solver.limits.SAMPLE_MEMORY): the same verdict, counts, words and JSON as with the records
in memory, on certificates of every form, sound ones and mutants, and the same one-line refusal of a damaged
file. ``sampled.read(path, budget=0)`` streams a small certificate."""
import json
import subprocess
import sys
import zlib

import msgpack
import pytest

from certgen import autoplay, certificate, checker, cli, columns, mutate, sampled
from solver import packed, spec
from solver.errors import FreecellError

FORMS = {"fixed": [], "canonical": ["--canonical"], "safe": ["--canonical", "--autoplay", "safe"]}
CERTS = [(617, "fixed"), (617, "canonical"), (617, "safe"), (11982, "safe")]    # 2 cells: 1,158 .. 585 members


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """(deal, form) -> (path, Certificate), each built by `certgen build` with 2 free cells."""
    folder, out = tmp_path_factory.mktemp("stream"), {}
    for deal, form in CERTS:
        path = folder / f"{deal}-{form}.cert"
        p = subprocess.run([sys.executable, "-m", "certgen", "build", "--deal", str(deal), "--cells", "2",
                            *FORMS[form], "--out", str(path), "--no-progress"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        out[deal, form] = path, certificate.read(str(path))
    return out


SHARDS = [(1, sampled.SHARD_BLOCK), (2, 5), (3, 1)]      # (jobs, block) of the streamed first pass


def both(path, sample, seed):
    """The check of the certificate at ``path`` with its records in memory and streamed (its first pass by one
    process, and shared by two and three processes in blocks of 5 and 1 records): equal, returned."""
    head, body = sampled.read(str(path))
    assert isinstance(body, bytearray)
    in_memory = sampled.check(head, body, sample, seed)
    head, body = sampled.read(str(path), budget=0)
    assert isinstance(body, sampled.Streamed)
    for jobs, block in SHARDS:
        assert sampled.check(head, body, sample, seed, jobs=jobs, block=block) == in_memory, (jobs, block)
    return in_memory


def written(tmp_path, name, cert):
    path = tmp_path / name
    certificate.write(str(path), cert)
    return path


def state_of(rec):
    return spec.from_position(packed.unpack(rec))


def p64(s):
    return packed.pack(spec.to_position(s))


def with_records(cert, records):
    return certificate.make(cert.source, cert.rules, packed.unpack(cert.start), records, {})


def test_the_budget_chooses_the_mode(certs):
    path, cert = certs[617, "fixed"]
    assert cert.states == 1158
    assert isinstance(sampled.read(str(path), budget=1158 * 64)[1], bytearray)
    assert isinstance(sampled.read(str(path), budget=1158 * 64 - 1)[1], sampled.Streamed)
    assert sampled.SAMPLE_MEMORY == 4 << 30


@pytest.mark.parametrize("deal, form", CERTS)
def test_sound_certificates_give_the_same_verdict(certs, deal, form):
    path, cert = certs[deal, form]
    n = cert.states
    full = checker.check(cert, jobs=1)
    for sample, seed in ((1, 0), (7, 3), (n // 3, 34), (n - 1, 5), (n, 1), (10 ** 6, 2)):
        res = both(path, sample, seed)
        assert res.ok and res.states == n
        if sample >= n:
            assert (res.checked, res.successors) == (full.checked, full.successors) == (n, full.successors)
            assert sampled.verdict(res) == (0, True)
        else:
            assert res.checked in (sample, sample + 1) and sampled.verdict(res) == (sampled.SAMPLE_ONLY, None)
            assert 0 < res.successors < full.successors


@pytest.mark.parametrize("deal, form", CERTS)
@pytest.mark.parametrize("kind", ["deal", "first-successor", "last-successor", "add-won", "random:1", "random:3"])
def test_mutants_are_refused_alike(certs, tmp_path, deal, form, kind):
    path, cert = certs[deal, form]
    failures = set()
    for seed in range(3) if kind.startswith("random") else (0,):
        mutant, _ = mutate.mutate(cert, kind, seed=seed)
        path = written(tmp_path, f"{kind}-{seed}.cert", mutant)
        full = checker.check(mutant, jobs=1)
        assert not full.ok
        for sample, sample_seed in ((1, 0), (mutant.states // 2, seed), (10 ** 6, 0)):
            res = both(path, sample, sample_seed)
            failures.add(res.failure)
            if sample >= mutant.states and kind != "add-won":   # every member drawn: the full check's refusal
                assert (res.failure, res.checked, res.successors, res.missing, res.parent) == \
                       (full.failure, full.checked, full.successors, full.missing, full.parent)
    # (the won record is found first, before any closure: the full check meets it in its pass over the members)
    assert failures >= {"start" if kind == "deal" else "won" if kind == "add-won" else "successor"}


def rotated(s):
    """``s`` with its columns rotated so that they are out of the checkers' order."""
    return next(t for t in (s._replace(cols=s.cols[r:] + s.cols[:r]) for r in range(1, 8)) if columns.canon(t) != t)


@pytest.mark.parametrize("deal, form", [(617, "canonical"), (617, "safe"), (11982, "safe")])
def test_members_out_of_order_are_refused_alike(certs, tmp_path, deal, form):
    """A member added in another column order, early and late in the records; the last member replaced by itself
    out of order (its class's successors then go missing: with every member drawn a missing successor comes
    first, as in the full check, and with fewer the pass over every member finds the misplaced one)."""
    path, cert = certs[deal, form]
    recs = cert.records
    early = min((rotated(state_of(r)) for r in recs[:200]), key=p64)
    late = max((rotated(state_of(r)) for r in recs[-200:]), key=p64)
    cases = {"early": recs + [p64(early)], "late": recs + [p64(late)],
             "last": recs[:-1] + [p64(rotated(state_of(recs[-1])))]}
    for name, records in cases.items():
        mutant = with_records(cert, records)
        path = written(tmp_path, f"{name}.cert", mutant)
        full = checker.check(mutant, jobs=1)
        for sample, seed in ((1, 1), (mutant.states // 4, 7), (mutant.states, 0)):
            res = both(path, sample, seed)
            assert not res.ok
            if sample >= mutant.states:
                assert (res.failure, res.checked, res.successors, res.misplaced, res.missing) == \
                       (full.failure, full.checked, full.successors, full.misplaced, full.missing)
            else:
                assert (res.failure, res.checked, res.successors) == ("column-order", 0, 0)
        assert full.failure == ("column-order" if name != "last" else "successor")


def test_members_not_after_their_automatic_moves_are_refused_alike(certs, tmp_path):
    """A position with a card that goes home by the safe rule added (#617 with 2 cells: #11982's never has
    one), the one whose record sorts first and the one that sorts last."""
    path, cert = certs[617, "safe"]
    rules, members = spec.Rules(cells=2), set(cert.records)
    extras = {p64(columns.canon(t)) for rec in cert.records for t in spec.moves(rules, state_of(rec))
              if not autoplay.settled(t)} - members
    assert len(extras) == 10
    for extra in (min(extras), max(extras)):
        mutant = with_records(cert, cert.records + [extra])
        path = written(tmp_path, "unsettled.cert", mutant)
        full = checker.check(mutant, jobs=1)
        assert full.failure == "autoplay" and full.misplaced == state_of(extra)
        for sample, seed in ((1, 1), (mutant.states // 3, 2), (mutant.states, 0)):
            res = both(path, sample, seed)
            assert (res.failure, res.misplaced) == ("autoplay", state_of(extra))
            if sample >= mutant.states:
                assert (res.checked, res.successors) == (full.checked, full.successors)
            else:
                assert (res.checked, res.successors) == (0, 0)


def cli_check(capsys, monkeypatch, path, budget, *args):
    monkeypatch.setattr(sampled, "SAMPLE_MEMORY", budget)
    status = cli.main(["check", str(path), "--reference", "--no-progress", *args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("mutation", [None, "add-won", "random:1"])
def test_the_command_says_the_same_in_both_modes(certs, tmp_path, capsys, monkeypatch, mutation):
    path, cert = certs[617, "safe"]
    if mutation:
        path = written(tmp_path, "m.cert", mutate.mutate(cert, mutation, seed=1)[0])
    for args in (["--sample", "100", "--seed", "9"], ["--sample", "100000", "--seed", "9"]):
        for extra in ([], ["--json"]):
            got = {budget: cli_check(capsys, monkeypatch, path, budget, *args, *extra) for budget in (4 << 30, 0)}
            assert got[0] == got[4 << 30]
            status, out, err = got[0]
            every = args[1] != "100"
            refused = mutation == "add-won" or (mutation and every)    # (a sample of 100 misses the deleted one)
            assert status == (1 if refused else 0 if every else sampled.SAMPLE_ONLY), out
            if extra:
                assert set(json.loads(out)) == {"certificate", "valid", "start", "rules", "states", "checked",
                                                "successors", "failure", "message", "sample", "seed",
                                                "sample_valid"}


def swapped(s):
    """``s`` with its first two columns swapped: out of the checkers' order (two bottom cards differ)."""
    return s._replace(cols=(s.cols[1], s.cols[0]) + s.cols[2:])


def damaged(tmp_path, cert):
    """Files every reader refuses: a byte of the body flipped, the file cut short, and a body whose records
    are not sorted and distinct (with a valid checksum), its fault after a member out of column order."""
    good = written(tmp_path, "good.cert", cert)
    data = good.read_bytes()
    flipped = tmp_path / "flipped.cert"
    flipped.write_bytes(data[:-200] + bytes([data[-200] ^ 1]) + data[-199:])
    cut = tmp_path / "cut.cert"
    cut.write_bytes(data[:len(data) // 2])
    misplaced = min(p64(swapped(state_of(r))) for r in cert.records)
    recs = sorted(cert.records + [misplaced])
    recs.append(recs[-1])          # record states + 2 repeats the one before
    unsorted = tmp_path / "unsorted.cert"
    certificate.write(str(unsorted), certificate.Certificate(cert.source, cert.rules, cert.start, recs, {}))
    return {"flipped": flipped, "cut": cut, "unsorted": unsorted}


def test_a_damaged_file_is_refused_alike(certs, tmp_path, capsys, monkeypatch):
    cert = certs[617, "canonical"][1]
    for name, path in damaged(tmp_path, cert).items():
        said = []
        for budget, jobs, block in ((None, 1, 1), *((0, jobs, block) for jobs, block in SHARDS)):
            with pytest.raises(FreecellError) as e:
                head, body = sampled.read(str(path), budget)
                sampled.check(head, body, 10, 1, jobs=jobs, block=block)
            said.append(str(e.value))
        assert len(set(said)) == 1 and said[0].startswith(str(path)), (name, said)
        if name == "unsorted":
            assert said[0].endswith(f"records are not sorted and distinct (record {cert.states + 2})")
        for args in ([], ["--json"]):
            got = [cli_check(capsys, monkeypatch, path, budget, "--sample", "10", "--seed", "1", *args)
                   for budget in (4 << 30, 0)]
            # (streamed, the body is read after the line saying what is checked: a refusal found in it follows it)
            (status, out, err), (status_s, out_s, err_s) = got
            said = "sampled reference check: closure on a sample of 10 of 1,160 members, seed 1\n"
            assert err_s.startswith(said) == (name == "unsorted" and not args)
            assert (status, out, err) == (status_s, out_s, err_s.replace(said, "", 1))
            assert status == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, err


def test_a_record_that_is_no_position_in_another_process_s_block_is_refused_alike(certs, tmp_path):
    """A record that is no position (one column end, 63 cards: its successors do not fit in 64 bytes), last in
    the records: every member drawn, the process that draws them reads it in another's block, unchecked; it
    must not visit it (it said "position does not fit in 64 bytes", without the file's name, before the
    owner's refusal)."""
    cert = certs[617, "fixed"][1]
    junk = bytes(range(52, 0, -1)) + bytes(range(1, 12)) + b"\0"
    recs = sorted(cert.records + [junk])
    assert recs[-1] == junk and len(recs) == 1159
    path = written(tmp_path, "junk.cert", certificate.Certificate(cert.source, cert.rules, cert.start, recs, {}))
    said = f"{path}: record 1159 is not a position (fewer than 8 column ends)"
    for budget, jobs, block in ((None, 1, 1), (0, 1, 1), (0, 2, 1), (0, 2, 2), (0, 3, 1), (0, 3, 4)):
        with pytest.raises(FreecellError) as e:
            sampled.check(*sampled.read(str(path), budget), 10 ** 6, 0, jobs=jobs, block=block)
        assert str(e.value) == said, (jobs, block)


@pytest.mark.parametrize("swapped_pass", [1, 2])
def test_the_file_must_not_change_between_its_readings(certs, tmp_path, monkeypatch, swapped_pass):
    """The header is read first (sampled.read), then each pass reads the file again: another certificate
    there is refused, not checked: one of 1,157 records (another header), and, in the second pass, one of as
    many records under the same header (a member deleted, the won record added: the records' digest differs;
    in the first pass it is the certificate checked, and refused for its won record). Another ``info``
    changes nothing that is checked."""
    path, cert = certs[617, "fixed"]
    fewer = mutate.mutate(cert, "random:1", seed=4)[0]
    as_many = mutate.mutate(fewer, "add-won")[0]
    assert (as_many.states, as_many.start, as_many.rules) == (cert.states, cert.start, cert.rules)
    others = {"fewer": written(tmp_path, "fewer.cert", fewer), "as many": written(tmp_path, "many.cert", as_many),
              "info": written(tmp_path, "info.cert", certificate.Certificate(
                  cert.source, cert.rules, cert.start, cert.records, {"another": "info"}))}
    target = written(tmp_path, "c.cert", cert)
    real = certificate.stream_records
    for name, other in others.items():
        passes = []

        def swapping(p, feed, **how):
            passes.append(p)
            return real(str(other) if len(passes) == swapped_pass else p, feed, **how)
        monkeypatch.setattr(certificate, "stream_records", swapping)
        head, body = sampled.read(str(target), budget=0)
        if name == "info":
            assert sampled.check(head, body, 10, 1, jobs=1).ok and len(passes) == 2
        elif name == "as many" and swapped_pass == 1:   # the first pass reads a whole certificate, under the
            assert sampled.check(head, body, 10, 1, jobs=1).failure == "won" and len(passes) == 1   # same header
        else:
            with pytest.raises(FreecellError, match="c.cert: the certificate changed between two readings of it"):
                sampled.check(head, body, 10, 1, jobs=1)
            assert len(passes) == (swapped_pass if name == "fewer" else 2)


@pytest.mark.parametrize("reader", [0, 1])
def test_the_processes_of_the_first_pass_must_read_the_same_file(certs, tmp_path, monkeypatch, reader):
    """Shared by two processes, the first pass is two readings of the file: one of them given another
    certificate under the same header (a member deleted, the won record added) is refused, whichever it is."""
    path, cert = certs[617, "fixed"]
    as_many = mutate.mutate(mutate.mutate(cert, "random:1", seed=4)[0], "add-won")[0]
    other, target = written(tmp_path, "many.cert", as_many), written(tmp_path, "c.cert", cert)
    real = certificate.stream_records

    def swapping(p, feed, shard=None, **how):
        return real(str(other) if shard is not None and shard[0] == reader else p, feed, shard=shard, **how)
    monkeypatch.setattr(certificate, "stream_records", swapping)
    head, body = sampled.read(str(target), budget=0)
    with pytest.raises(FreecellError, match="c.cert: the certificate changed between two readings of it"):
        sampled.check(head, body, 10, 1, jobs=2, block=3)


def test_a_start_that_is_not_the_deal_is_refused_alike(certs, tmp_path):
    """The header's start is deal 1's: "start-mismatch" in both modes, after the records are read (a body
    that is also damaged is refused as damaged, in both)."""
    from solver import deals
    cert = certs[617, "fixed"][1]
    forged = certificate.Certificate(cert.source, cert.rules, packed.pack(deals.ms_deal(1)), cert.records, {})
    res = both(written(tmp_path, "forged.cert", forged), 10, 1)
    assert (res.ok, res.failure, res.checked, res.successors) == (False, "start-mismatch", 0, 0)
    forged.records = cert.records + cert.records[-1:]
    path = written(tmp_path, "forged-twice.cert", forged)
    for budget in (None, 0):
        with pytest.raises(FreecellError, match=r"not sorted and distinct \(record 1159\)"):
            sampled.check(*sampled.read(str(path), budget), 10, 1)


def test_a_count_no_body_can_hold_is_refused_before_a_sample_is_drawn(certs, tmp_path):
    # a header claiming 2**40 states over a few KB of records, checksum valid: streamed (past any budget),
    # it drew --sample members of range(2**40) first, time and memory growing with --sample, then refused
    cert = certs[617, "canonical"][1]
    header = certificate._header_bytes(cert.source, cert.rules, cert.start, 2 ** 40, cert.info)
    body = zlib.compress(b"".join(cert.records), 6)
    path = tmp_path / "lie.cert"
    path.write_bytes(msgpack.packb({"format": certificate.FORMAT, "version": certificate.VERSION, "header": header,
                                    "body": body, "sha256": certificate._digest(header, body)}, use_bin_type=True))
    with pytest.raises(FreecellError, match=f"a body of {len(body)} bytes cannot hold {2 ** 40} states"):
        sampled.read(str(path))
