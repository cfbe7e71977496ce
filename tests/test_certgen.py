"""Certificates: round trip, clean refusals of damaged files, the independent checker, and mutations."""
import hashlib
import json
import os
import random
import sys
import zlib

import msgpack
import pytest

from certgen import certificate, checker, fastcheck, mutate
from solver import deals, packed, search, spec
from solver.errors import FreecellError
from solver.rules import Rules

from conftest import _run, build_certificate as build



@pytest.fixture(scope="module")
def small_certs():
    # Unwinnable with fewer free cells, and small: good for many random deletions.
    return [build(11982, cells=2), build(11982, cells=1), build(3, cells=1), build(4, cells=1),
            build(7, cells=0)]


def run(*args, input=None, env=None):
    """`python -m MODULE ARGS`: conftest._run (in this process, unless another environment is given)."""
    assert args[0] == "-m"
    return _run(*args[2:], module=args[1], stdin=input, env=env)


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


def reencode(good: bytes, top_changes=None, body=None, checksum=True, **header_changes) -> bytes:
    """A certificate with some header fields (or top-level keys, or the body) changed; the checksum is
    recomputed, as someone forging a file would, unless checksum=False."""
    top = msgpack.unpackb(good, raw=False)
    h = msgpack.unpackb(top["header"], raw=False)
    h.update(header_changes)
    top["header"] = msgpack.packb(h, use_bin_type=True)
    if body is not None:
        top["body"] = body
    if checksum:
        top["sha256"] = hashlib.sha256(top["header"] + top["body"]).hexdigest()
    top.update(top_changes or {})
    return msgpack.packb(top, use_bin_type=True)


def version1(good: bytes) -> bytes:
    """The same certificate in the old format 1 (header map inside, checksum over the body only)."""
    top = msgpack.unpackb(good, raw=False)
    h = msgpack.unpackb(top["header"], raw=False)
    h.update(format=certificate.FORMAT, version=1, body_sha256=hashlib.sha256(top["body"]).hexdigest())
    return msgpack.packb({"header": h, "body": top["body"]}, use_bin_type=True)


def damaged_files(good: bytes):
    top = msgpack.unpackb(good, raw=False)
    body = bytearray(top["body"])
    body[len(body) // 2] ^= 0xFF
    return {
        "truncated": (good[: len(good) // 2], "corrupt or truncated"),
        "empty": (b"", "corrupt or truncated"),
        "not msgpack": (b"\xc1garbage", "corrupt or truncated"),
        "foreign map": (msgpack.packb({"hello": 1}), "format None"),
        "foreign format": (reencode(good, {"format": "something-else"}), "format 'something-else'"),
        "newer version": (reencode(good, {"version": 4}), "version 4; this tool reads versions 2 and 3$"),
        "version 1": (version1(good), "version 1, which has no checksum over its header.*rebuild it"),
        "extra key": (reencode(good, {"note": "hi"}),
                      "must have exactly the keys format, version, header, body, sha256"),
        "flipped body byte": (reencode(good, body=bytes(body), checksum=False), "checksum mismatch"),
        "wrong count": (reencode(good, states=5), "expected 5 states"),
        "count too high": (reencode(good, states=586), "expected 586 states"),
    }


@pytest.mark.parametrize("case", ["truncated", "empty", "not msgpack", "foreign map", "foreign format",
                                  "newer version", "version 1", "extra key", "flipped body byte", "wrong count",
                                  "count too high"])
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


def test_mutate_and_check_commands(tmp_path, small_certs):
    good = tmp_path / "good.cert"
    certificate.write(str(good), small_certs[0])
    proc = run("-m", "certgen", "check", str(good))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("valid for deal 11982 under the rules with 2 free cells and nothing back from "
                                  "the foundations: 585 states")
    for kind in ("deal", "first-successor", "last-successor", "random:3"):
        bad = tmp_path / f"{kind.replace(':', '')}.cert"
        proc = run("-m", "certgen", "mutate", str(good), "--delete", kind, "--seed", "7", "--out", str(bad))
        assert proc.returncode == 0, proc.stderr
        proc = run("-m", "certgen", "check", str(bad))
        assert proc.returncode == 1 and proc.stdout.startswith("invalid for deal 11982 "), proc.stdout
    proc = run("-m", "certgen", "mutate", str(good), "--delete", "nonsense", "--out", str(tmp_path / "x"))
    assert proc.returncode == 2 and proc.stderr.startswith("error: unknown mutation 'nonsense'")
    assert not (tmp_path / "x").exists()


# -- QA regressions: headers, write errors, stdin, mutants ---------------------------------------------

def _one_line_error(proc, code=2):
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: "), proc.stderr
    return proc.stderr


def _with_header(good: bytes, source=None, rules=None, info=None):
    changes = {k: v for k, v in (("source", source), ("rules", rules), ("info", info)) if v is not None}
    return reencode(good, **changes)


@pytest.mark.parametrize("field,value,expected", [
    ("source", {"kind": "ms"}, "deal None"),                  # was a KeyError traceback
    ("source", {"kind": "ms", "deal": "abc"}, "deal 'abc'"),  # was "invalid: invalid literal for int()"
    ("source", {"kind": "ms", "deal": 0}, "deal 0"),
    ("source", {"kind": "ms", "deal": 2 ** 33}, "deal 8589934592"),  # past FreeCell Pro's range
    ("source", {"kind": "elsewhere"}, "kind 'elsewhere'"),
    ("rules", {"cells": True, "foundation_return": False}, "bad rules"),  # True was read as 1 free cell
    ("info", [1, 2], "bad info"),                             # was a TypeError traceback in mutate
])
def test_bad_header_fields_are_refused_with_one_line(tmp_path, small_certs, field, value, expected):
    path = tmp_path / "bad.cert"
    path.write_bytes(_with_header(certificate.encode(small_certs[-1]), **{field: value}))
    with pytest.raises(FreecellError, match=expected):
        certificate.read(str(path))
    for args in (["check"], ["info"], ["mutate", "--delete", "deal", "--out", str(tmp_path / "m.cert")],
                 ["render", "--lean-dir", str(tmp_path / "lean")]):
        proc = run("-m", "certgen", args[0], str(path), *args[1:])
        assert expected in _one_line_error(proc)


def test_a_start_that_is_not_the_deal_is_one_line_for_mutate_and_render(tmp_path, small_certs):
    # A certificate whose header names another deal: check says invalid (exit 1); mutate and render, which
    # need the start position, refuse it in one line (they raised a ValueError traceback).
    path = tmp_path / "other.cert"
    path.write_bytes(_with_header(certificate.encode(small_certs[-1]), source={"kind": "ms", "deal": 1}))
    proc = run("-m", "certgen", "check", str(path))
    assert proc.returncode == 1
    assert proc.stdout.startswith("invalid for deal 1 under the rules with 0 free cells and nothing back from the "
                                  "foundations: the header's start position is not msDeal 1")
    for args in (["mutate", "--delete", "deal", "--out", str(tmp_path / "m.cert")],
                 ["mutate", "--delete", "first-successor", "--out", str(tmp_path / "m.cert")],
                 ["render", "--lean-dir", str(tmp_path / "lean")]):
        proc = run("-m", "certgen", args[0], str(path), *args[1:])
        assert "is not msDeal 1" in _one_line_error(proc)
    assert not (tmp_path / "m.cert").exists() and not (tmp_path / "lean").exists()


def test_write_errors_name_the_output_not_the_temporary(tmp_path):
    # `--out DIR` failed at the rename and the message named the temporary file (/tmp/.tmp-xxxx); now it is
    # refused before the search, in the same words.
    folder = tmp_path / "adir"
    folder.mkdir()
    proc = run("-m", "certgen", "build", "--deal", "1", "--cells", "0", "--out", str(folder))
    err = _one_line_error(proc)
    assert err == f"error: cannot write {folder}: Is a directory\n"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".tmp")]  # no temporary left behind


def test_render_mutant_needs_a_mutant(tmp_path, small_certs):
    good = tmp_path / "good.cert"
    certificate.write(str(good), small_certs[-1])
    proc = run("-m", "certgen", "render", str(good), "--mutant", "--lean-dir", str(tmp_path / "lean"))
    assert "is not a mutant" in _one_line_error(proc)
    assert not (tmp_path / "lean").exists()


def test_info_speaks_plain_words(tmp_path, small_certs):
    good = tmp_path / "good.cert"
    certificate.write(str(good), small_certs[0])
    proc = run("-m", "certgen", "info", str(good))
    assert proc.returncode == 0
    assert proc.stdout.startswith("deal 11982 under the rules with 2 free cells and nothing back from the "
                                  "foundations: 585 states, ") and "{" not in proc.stdout


def test_info_header_only_checks_the_digest_but_reads_no_record(tmp_path, small_certs):
    good = tmp_path / "good.cert"
    certificate.write(str(good), small_certs[0])
    proc = run("-m", "certgen", "info", str(good), "--header-only")
    assert proc.returncode == 0 and ": 585 states (the header's count: records not read), " in proc.stdout
    obj = json.loads(run("-m", "certgen", "info", str(good), "--header-only", "--json").stdout)
    assert obj["states"] == 585 and obj["records_counted"] is False
    assert json.loads(run("-m", "certgen", "info", str(good), "--json").stdout)["records_counted"] is True
    data = bytearray(good.read_bytes())
    data[-100] ^= 1                                  # a byte of the body: the SHA-256 no longer matches
    bad = tmp_path / "bad.cert"
    bad.write_bytes(bytes(data))
    assert "checksum mismatch" in _one_line_error(run("-m", "certgen", "info", str(bad), "--header-only"))


def test_prove_reads_a_board_on_stdin_once(tmp_path):
    # prove read --board - twice (module name, then explore): the second read was empty ("empty input").
    board = deals.position_from_order(deals.deal_order(1))
    from solver.board import format_position
    env = dict(os.environ, LEAN_BOOTSTRAP="0", HOME=str(tmp_path), PATH=os.path.dirname(sys.executable))
    proc = run("-m", "certgen", "prove", "--board", "-", "--cells", "0", "--out-dir", str(tmp_path / "out"),
               "--lean-dir", str(tmp_path / "lean"), input=format_position(board), env=env)
    assert proc.returncode == 3, proc.stdout + proc.stderr  # 3: neither Lean nor Coq is available
    assert " (start position " in proc.stdout and ": 1 state; " in proc.stdout
    digest = hashlib.sha256(packed.pack(board)).hexdigest()[:8]        # a board's stem: its position's digest
    assert sorted(os.listdir(tmp_path / "out")) == [f"Board{digest}Cells0.cert", f"Board{digest}Cells0.lean", "coq"]
    assert os.listdir(tmp_path / "lean") == [f"Board{digest}Cells0.lean"]


def test_prove_known_takes_no_rules(tmp_path):
    # It writes docs/KNOWN.md, whose text says standard rules: --foundation-return made it lie. (Every
    # output goes to tmp_path and the limit is tiny, so a regression cannot touch the checkout.)
    for flag in (["--foundation-return"], ["--cells", "5"]):
        proc = run("-m", "certgen", "prove-known", *flag, "--max-states", "1", "--out-dir", str(tmp_path / "o"),
                   "--lean-dir", str(tmp_path / "l"), "--table", str(tmp_path / "K.md"),
                   env=dict(os.environ, LEAN_BOOTSTRAP="0"))
        assert "unrecognized arguments" in _one_line_error(proc)
    assert not (tmp_path / "K.md").exists()


def test_every_certgen_option_has_help():
    from certgen.cli import build_parser
    p = build_parser()
    sub = next(a for a in p._actions if a.choices and "check" in a.choices)
    for name, sp in sub.choices.items():
        for a in sp._actions:
            if a.dest != "help":
                assert a.help, (name, a.dest)


def test_a_freecell_pro_deal_number_in_the_header_is_read(tmp_path, small_certs):
    # Deals up to 2**33 - 1 are valid header sources: the header is read and the start compared with msDeal N.
    path = tmp_path / "pro.cert"
    path.write_bytes(_with_header(certificate.encode(small_certs[-1]), source={"kind": "ms", "deal": 2 ** 33 - 1}))
    proc = run("-m", "certgen", "check", str(path))
    assert proc.returncode == 1 and proc.stdout.startswith("invalid for deal 8589934591 under") \
        and "the header's start position is not msDeal 8589934591" in proc.stdout


# -- certificates at size: written from the core, summarized without the records (issue 15) ---------------

def test_write_search_is_byte_identical_to_write(tmp_path):
    """The streamed writer (the core's states sorted by fc_search_sort_p64, compressed a batch at a time
    into a temporary body file) writes the very bytes of write(make(...)), for both search orders."""
    for deal, rules in ((11982, Rules()), (11982, Rules(cells=1)), (7, Rules(cells=0))):
        pos = deals.ms_deal(deal)
        want = certificate.encode(build(deal, rules.cells))
        for order in ("bfs", "dfs"):
            res = search.explore(pos, rules, order=order)
            path = tmp_path / f"{deal}-{order}.cert"
            s = certificate.write_search(str(path), {"kind": "ms", "deal": deal}, rules.to_dict(), pos, res.search,
                                         {"max_home": res.max_home})
            assert s.states == res.states and path.read_bytes() == want
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".tmp")]


def test_distinct_batches_are_written_as_they_come_and_a_repeat_left_in_is_refused(tmp_path, small_certs):
    """write_sorted(distinct=True) (write_search's: the core's records are a set) writes the batches without
    looking for repeats: the same bytes as the writer that drops them when there is none; a repeat left in
    makes a file that both readers refuse, where the default writer drops it."""
    cert = small_certs[-1]
    raw = b"".join(cert.records)
    args = (cert.source, cert.rules, packed.unpack(cert.start))
    for distinct in (False, True):
        path = tmp_path / f"c{distinct}.cert"
        s = certificate.write_sorted(str(path), *args, [raw[:128], raw[128:]], cert.states, cert.info,
                                     distinct=distinct)
        assert path.read_bytes() == certificate.encode(cert) and s.records_sha256 == hashlib.sha256(raw).hexdigest()
    repeated = raw[:128] + raw[64:]                       # the second record twice
    dropped, kept = tmp_path / "dropped.cert", tmp_path / "kept.cert"
    certificate.write_sorted(str(dropped), *args, [repeated], cert.states + 1, cert.info)
    assert dropped.read_bytes() == certificate.encode(cert)
    s = certificate.write_sorted(str(kept), *args, [repeated], cert.states + 1, cert.info, distinct=True)
    assert s.states == cert.states + 1
    with pytest.raises(FreecellError, match="records are not sorted and distinct"):
        certificate.read(str(kept))
    with pytest.raises(FreecellError, match=r"not sorted and distinct \(record 3\)"):
        fastcheck.check(str(kept))


def test_summarize_reads_the_header_and_counts_the_body(tmp_path, small_certs, monkeypatch):
    """certgen info's reader: the records are checked and counted in a streaming pass, none is kept (a
    body too big to be read whole is passed over on disk); damage is refused as by read."""
    monkeypatch.setattr(certificate, "_SMALL", 100)       # every body is left on disk
    monkeypatch.setattr(certificate, "decode", lambda *a, **k: pytest.fail("the file was read whole"))
    for cert in small_certs:
        path = tmp_path / "c.cert"
        certificate.write(str(path), cert)
        s = certificate.summarize(str(path))
        assert (s.states, s.source, s.rules, s.start, s.info) == (cert.states, cert.source, cert.rules, cert.start,
                                                                   cert.info)
        assert not hasattr(s, "records")
    monkeypatch.undo()
    data = bytearray(certificate.encode(small_certs[0]))
    data[-80] ^= 1                                        # inside the body (the sha256 text is the last 65 bytes)
    (tmp_path / "bad.cert").write_bytes(bytes(data))
    with pytest.raises(FreecellError, match="checksum mismatch"):
        certificate.summarize(str(tmp_path / "bad.cert"))
    with pytest.raises(FreecellError, match="not a readable certificate"):
        (tmp_path / "cut.cert").write_bytes(certificate.encode(small_certs[0])[:-30])
        certificate.summarize(str(tmp_path / "cut.cert"))


@pytest.mark.parametrize("states", [2 ** 31 - 1, 2 ** 31, 2 ** 40, 2 ** 40 + 1])
def test_a_header_may_declare_up_to_2_to_the_40_records(tmp_path, small_certs, states):
    """A certificate streamed from the disk search may hold more than the in-memory search's 2**31 - 1
    positions: the header's count is taken up to 2**40 (read_header, which does not inflate the body) and
    refused above; a body that cannot hold the count (deflate expands at most 1032:1) is refused when it is
    read, in one line, in build/fccheck's words."""
    path = tmp_path / "big.cert"
    path.write_bytes(reencode(certificate.encode(small_certs[-1]), states=states))
    if states > certificate.MAX_STATES:
        with pytest.raises(FreecellError, match=f"bad state count in header: {states}$"):
            certificate.read_header(str(path))
        expected = f"bad state count in header: {states}"
    else:
        assert certificate.read_header(str(path))["states"] == states
        expected = f"cannot hold {states} states"
    assert expected in _one_line_error(run("-m", "certgen", "info", str(path)))


def test_a_big_body_is_compressed_at_level_6_and_a_small_one_as_always(tmp_path, small_certs, monkeypatch):
    """Up to LEVEL9_MAX records the body is zlib level 9 (certificates as they always were); above, level 6
    (no bigger on real bodies and four times as fast: scripts/bench.py --zlib). The streamed writer and
    encode agree at both levels, and the readers take either (here with LEVEL9_MAX lowered)."""
    cert = small_certs[-1]
    raw = b"".join(cert.records)
    assert zlib.compress(raw, 6) != zlib.compress(raw, 9)
    for level9_max, level in ((cert.states, 9), (cert.states - 1, 6)):
        monkeypatch.setattr(certificate, "LEVEL9_MAX", level9_max)
        path = tmp_path / f"c{level}.cert"
        certificate.write_sorted(str(path), cert.source, cert.rules, packed.unpack(cert.start), [raw], cert.states,
                                 cert.info)
        data = path.read_bytes()
        assert msgpack.unpackb(data)["body"] == zlib.compress(raw, level)
        assert data == certificate.encode(cert)
        assert certificate.read(str(path)).records == cert.records
        assert certificate.summarize(str(path)).states == cert.states
