"""Certificate files (certgen/certificate.py): round trip and size, clean refusals of damaged and hostile files
(each in one line, the checksum covering the header), format version 3 (the body in pieces), the commands that
read a certificate (check, info, mutate, render), and certificates at size."""
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tracemalloc
import zlib

import msgpack
import pytest

from certgen import certificate, checker, fastcheck, mutate, render
from solver import deals, packed, search, spec
from solver.errors import FreecellError
from solver.rules import Rules

from helpers import build_certificate as build, one_line_error as assert_one_line_error, run as _run


def run(*args, input=None, env=None):
    """`python -m MODULE ARGS`: helpers.run (in this process, unless another environment is given)."""
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


def test_batches_are_written_as_they_come_and_a_repeat_left_in_is_refused(tmp_path, small_certs):
    """write_sorted writes the batches without looking for repeats (write_search's records are a set, upto's
    runs are merged without repeats): the bytes of ``encode``; a repeat left in makes a file that both
    readers refuse."""
    cert = small_certs[-1]
    raw = b"".join(cert.records)
    args = (cert.source, cert.rules, packed.unpack(cert.start))
    path = tmp_path / "c.cert"
    s = certificate.write_sorted(str(path), *args, [raw[:128], raw[128:]], cert.states, cert.info)
    assert path.read_bytes() == certificate.encode(cert) and s.records_sha256 == hashlib.sha256(raw).hexdigest()
    repeated = raw[:128] + raw[64:]                       # the second record twice
    kept = tmp_path / "kept.cert"
    s = certificate.write_sorted(str(kept), *args, [repeated], cert.states + 1, cert.info)
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
    positions: the header's count is taken up to 2**40 and refused above; a body that cannot hold the count
    (deflate expands at most 1032:1) is refused, in one line, in build/fccheck's words -- also by summarize
    without records (the body is not inflated; the sampled check plans from that count)."""
    path = tmp_path / "big.cert"
    path.write_bytes(reencode(certificate.encode(small_certs[-1]), states=states))
    if states > certificate.MAX_STATES:
        expected = f"bad state count in header: {states}"
    else:
        expected = f"cannot hold {states} states"
    with pytest.raises(FreecellError, match=expected):
        certificate.summarize(str(path), records=False)
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


# -- hostile certificates: each refused in one line or named for what it is ----------------------------------

def forged(cert, body_records=None, **header):
    """`cert` encoded with some header fields replaced and the checksum recomputed (a forger can)."""
    top = msgpack.unpackb(certificate.encode(cert), raw=False)
    h = msgpack.unpackb(top["header"], raw=False)
    h.update(header)
    top["header"] = msgpack.packb(h, use_bin_type=True)
    if body_records is not None:
        top["body"] = zlib.compress(b"".join(body_records), 9)
    top["sha256"] = hashlib.sha256(top["header"] + top["body"]).hexdigest()
    return msgpack.packb(top, use_bin_type=True)


COMMANDS = (["check"], ["info"], ["mutate", "--delete", "random:1", "--out", "{tmp}/m.cert"],
            ["render", "--lean-dir", "{tmp}/lean"])


def refused_everywhere(tmp_path, data, expected):
    path = tmp_path / "bad.cert"
    path.write_bytes(data)
    with pytest.raises(FreecellError, match=re.escape(expected)):
        certificate.read(str(path))
    for cmd in COMMANDS:
        p = _run(cmd[0], str(path), *[a.format(tmp=tmp_path) for a in cmd[1:]], module="certgen")
        line = assert_one_line_error(p)
        assert expected in line, line
    assert not (tmp_path / "m.cert").exists() and not (tmp_path / "lean").exists()


# -- the checksum covers the header; the verdict names what was proven -------------------------

def test_one_header_byte_changing_the_rules_is_refused(tmp_path, deal7):
    good = certificate.encode(deal7)
    data = good.replace(b"\xa5cells\x00", b"\xa5cells\x04")
    assert data != good and data.count(b"\xa5cells\x04") == 1
    refused_everywhere(tmp_path, data, "checksum mismatch")


def test_the_verdict_names_the_deal_and_the_rules_not_the_file_name(tmp_path, deal7):
    path = tmp_path / "Deal11982.cert"
    certificate.write(str(path), deal7)
    p = _run("check", str(path), module="certgen")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("valid for deal 7 under the rules with 0 free cells and nothing back from the "
                               "foundations: ")
    p = _run("check", str(path), "--json", module="certgen")
    obj = json.loads(p.stdout)
    assert obj["valid"] is True
    assert obj["start"] == {"deal": 7, "digest": hashlib.sha256(packed.pack(deals.ms_deal(7))).hexdigest()[:12]}
    assert obj["rules"] == {"cells": 0, "foundation_return": False}
    p = _run("info", str(path), module="certgen")
    assert p.stdout.startswith("deal 7 under the rules with 0 free cells")
    assert json.loads(_run("info", str(path), "--json", module="certgen").stdout)["start"]["deal"] == 7


def test_a_board_is_named_by_the_digest_of_its_position(deal7):
    c = certificate.Certificate({"kind": "board", "name": "pos.txt"}, deal7.rules, deal7.start, deal7.records)
    res = checker.check(c)
    assert res.ok
    digest = hashlib.sha256(deal7.start).hexdigest()[:12]
    assert checker.report(res).startswith(f"valid for the board pos.txt (start position {digest}) under ")
    assert res.start == {"board": "pos.txt", "digest": digest}


@pytest.mark.parametrize("source,expected", [
    ({"kind": "code", "code": "SOL1-freecell-cells=0-C8"}, "not the one of the deal code SOL1-freecell-cells=0-C8"),
    ({"kind": "code", "code": "SOL1-freecell-cells=0-N1"}, "not the one of the deal code"),
    ({"kind": "ms", "deal": 7, "code": "SOL1-freecell-cells=0-C8"}, "not the one of the deal code"),
    ({"kind": "code", "code": "SOL9-x"}, "deal code is not one"),
    ({"kind": "ms", "deal": 7, "code": "SOL1-freecell-cells=4-C7"}, "rules have 0 free cells, its deal code"),
])
def test_a_source_that_does_not_generate_the_start_is_refused(tmp_path, deal7, source, expected):
    c = certificate.Certificate(source, deal7.rules, deal7.start, deal7.records)
    res = checker.check(c)
    assert not res.ok and res.failure == "start-mismatch" and expected in res.message
    path = tmp_path / "c.cert"
    certificate.write(str(path), c)
    p = _run("check", str(path), module="certgen")
    assert p.returncode == 1 and expected in p.stdout
    p = _run("render", str(path), "--lean-dir", str(tmp_path / "lean"), module="certgen")
    assert expected in assert_one_line_error(p)
    assert not (tmp_path / "lean").exists()           # the claimed code is never written as a label


def test_a_code_that_generates_the_start_is_accepted(deal7):
    c = certificate.Certificate({"kind": "ms", "deal": 7, "code": "SOL1-freecell-cells=0-C7"}, deal7.rules,
                                deal7.start, deal7.records)
    assert checker.check(c).ok


@pytest.mark.parametrize("name", ["a\nimport Evil", "x\x00y", ""])
def test_a_board_name_must_be_one_printable_line(tmp_path, deal7, name):
    refused_everywhere(tmp_path, forged(deal7, source={"kind": "board", "name": name}), "board name")


def test_header_text_cannot_open_or_close_a_lean_comment(tmp_path, deal7):
    c = certificate.Certificate({"kind": "board", "name": "x -/ axiom bad : False /-"}, deal7.rules, deal7.start,
                                deal7.records, {"mutation": {"kind": "y -/ theorem t : False := sorry /-"}})
    for path in (render.render_certificate(c, str(tmp_path))[0],
                 render.render_certificate(c, str(tmp_path), mutant=True)[0]):
        text = open(path, encoding="utf-8").read()
        assert "axiom bad" in text and "-/ axiom" not in text and "False /-" not in text
        assert "-/ theorem" not in text


# -- records and starts that are no position ---------------------------------------------------

def test_a_start_of_0xff_bytes_is_one_line(tmp_path, deal7):
    refused_everywhere(tmp_path, forged(deal7, start=b"\xff" * 64), "bad start position in header")


@pytest.mark.parametrize("record,why", [
    (b"\xff" * 64, "fewer than 8 column ends"),
    (b"\x35" + b"\0" * 63, "a byte that is no card, or a card twice"),
    (b"\x05" + b"\0" * 63, "a card in play above a card of its suit on the foundation"),
], ids=["0xff", "byte 53", "2C above AC home"])
def test_a_record_that_is_no_position_is_one_line(tmp_path, deal7, record, why):
    recs = sorted(deal7.records + [record])
    n = recs.index(record) + 1
    refused_everywhere(tmp_path, forged(deal7, body_records=recs, states=len(recs)),
                       f"record {n} is not a position ({why})")


def test_the_record_check_agrees_with_the_c_core():
    base = search.explore(deals.ms_deal(5), max_states=5000).records()
    rng = random.Random(10)
    valid = 0
    for _ in range(20000):
        rec = bytearray(rng.choice(base))
        for _ in range(rng.randint(1, 3)):
            i, j = rng.randrange(64), rng.randrange(64)
            r = rng.random()
            if r < 0.4:
                rec[i] = rng.randrange(54)
            elif r < 0.7:
                rec[i], rec[j] = rec[j], rec[i]
            else:
                rec[i] = 0
        rec = bytes(rec)
        ok = packed.problem(rec) is None
        assert ok == (search.lib.fc_p64_to_pos(rec, search.ffi.new("fc_pos *")) == 0), rec.hex()   # the C core's
        valid += ok
    assert 1000 < valid < 19000      # both kinds were tried


# -- a seed msgpack cannot hold ----------------------------------------------------------------

def test_a_huge_seed_is_one_line(tmp_path, deal7):
    path = tmp_path / "c.cert"
    certificate.write(str(path), deal7)
    p = _run("mutate", str(path), "--delete", "random:1", "--seed", "1180591620717411303424",
            "--out", str(tmp_path / "m.cert"), module="certgen")
    assert "--seed must be a whole number from 0 to 18446744073709551615" in assert_one_line_error(p)
    assert not (tmp_path / "m.cert").exists()
    with pytest.raises(FreecellError):
        mutate.mutate(deal7, "random:1", seed=-1)
    assert mutate.mutate(deal7, "random:1", seed=2 ** 64 - 1)[0].states == deal7.states - 1


# -- a zip bomb --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bomb():
    """zlib of 256 MiB of zero bytes (about 256 KB)."""
    z = zlib.compressobj(9)
    zero = bytes(1 << 20)
    return b"".join([z.compress(zero) for _ in range(256)] + [z.flush()])


@pytest.mark.parametrize("states,expected", [(4 << 20, "not sorted and distinct"),
                                             (10, "holds more than 640 bytes")])
def test_a_zip_bomb_is_refused_without_inflating_it(deal7, bomb, states, expected):
    top = msgpack.unpackb(forged(deal7, states=states), raw=False)
    top["body"] = bomb
    top["sha256"] = hashlib.sha256(top["header"] + bomb).hexdigest()
    data = msgpack.packb(top, use_bin_type=True)
    tracemalloc.start()
    try:
        with pytest.raises(FreecellError, match=expected):
            certificate.decode(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, peak        # a few MiB at most, never the 256 MiB the body inflates to


def test_a_body_with_bytes_after_its_end_is_refused(deal7):
    top = msgpack.unpackb(certificate.encode(deal7), raw=False)
    top["body"] += b"junk"
    top["sha256"] = hashlib.sha256(top["header"] + top["body"]).hexdigest()
    with pytest.raises(FreecellError, match="bytes after the end"):
        certificate.decode(msgpack.packb(top, use_bin_type=True))


def test_a_truncated_body_is_refused(deal7):
    top = msgpack.unpackb(certificate.encode(deal7), raw=False)
    top["body"] = top["body"][:-10]
    top["sha256"] = hashlib.sha256(top["header"] + top["body"]).hexdigest()
    with pytest.raises(FreecellError, match="truncated|does not decompress|expected"):
        certificate.decode(msgpack.packb(top, use_bin_type=True))


# -- the words of mutate -----------------------------------------------------------------------

def test_add_won_says_added_one_won_state(tmp_path, deal7):
    path = tmp_path / "c.cert"
    certificate.write(str(path), deal7)
    out = tmp_path / "w.cert"
    p = _run("mutate", str(path), "--add-won", "--out", str(out), module="certgen")
    assert p.returncode == 0, p.stderr
    assert p.stdout == f"{out}: add-won: added 1 won state; {deal7.states + 1:,} states\n"
    p = _run("mutate", str(path), "--delete", "random:2", "--out", str(out), module="certgen")
    assert p.stdout == f"{out}: random:2: deleted 2 states; {deal7.states - 2:,} states\n"
    p = _run("mutate", str(path), "--delete", "add-won", "--out", str(tmp_path / "x.cert"), module="certgen")
    assert "use --add-won" in assert_one_line_error(p)


def test_the_file_is_the_format_the_brief_fixes(deal7):
    top = msgpack.unpackb(certificate.encode(deal7), raw=False)
    assert list(top) == ["format", "version", "header", "body", "sha256"]
    assert (top["format"], top["version"]) == ("freecell-proof-certificate", 2)
    assert top["sha256"] == hashlib.sha256(top["header"] + top["body"]).hexdigest()
    h = msgpack.unpackb(top["header"], raw=False)
    assert sorted(h) == sorted(["source", "rules", "start", "states", "encoding", "info"])
    assert h["encoding"] == "p64-sorted-zlib" and h["states"] == deal7.states
    assert zlib.decompress(top["body"]) == b"".join(deal7.records)


# -- reading from a pipe or a device ---------------------------------------------------------------------

def test_a_certificate_is_read_from_a_pipe(tmp_path, deal7):
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-m", "certgen", "check", "/dev/stdin"], input=certificate.encode(deal7),
                       capture_output=True, timeout=120)
    assert p.returncode == 0 and p.stdout.startswith(b"valid for deal 7 "), p.stderr


def test_an_endless_stream_is_refused_at_its_first_object(tmp_path):
    # Like `certgen info /dev/zero` (which read forever): a FIFO fed 64 MiB of zero bytes.
    import threading
    fifo = tmp_path / "zeros"
    os.mkfifo(fifo)

    def feed():
        try:
            with open(fifo, "wb") as f:
                for _ in range(64):
                    f.write(bytes(1 << 20))
        except BrokenPipeError:
            pass

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    p = _run("info", str(fifo), module="certgen", timeout=120)
    t.join(30)
    assert assert_one_line_error(p) == f"error: {fifo}: not a freecell-proof certificate (not a map)"


# -- format version 3: the body as a list of pieces, past the 2**32 - 1 bytes one bin holds ------------------

# Certificate format version 3: the body as a list of pieces (msgpack bins), written only when the compressed
# body passes the 2**32 - 1 bytes one bin holds (about 980 M records). Tested on deal #11982's real
# certificate (84,767 records, a body of 388,597 bytes) written through the streamed writer with the bound and
# the piece size made small (1 KiB pieces), read by both readers: the Python one (certgen/certificate.py,
# whole or with the body left on disk) and the fast checker (checker/fccheck.c).

EXE = fastcheck.binary()
PIECE = 1024


def write_sorted(path, cert):
    certificate.write_sorted(str(path), cert.source, cert.rules, packed.unpack(cert.start),
                             [b"".join(cert.records)], cert.states, cert.info)


@pytest.fixture(scope="module")
def files(cert11982, tmp_path_factory):
    """#11982's certificate as version 2 (as always) and as version 3 (BODY_MAX lowered to 100 KB, pieces of
    1 KiB), both written by write_sorted; and encode's bytes under the same bounds."""
    folder = tmp_path_factory.mktemp("pieces")
    write_sorted(folder / "v2.cert", cert11982)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(certificate, "BODY_MAX", 100_000)
        mp.setattr(certificate, "PIECE", PIECE)
        write_sorted(folder / "v3.cert", cert11982)
        encoded = certificate.encode(cert11982)
    return folder / "v2.cert", folder / "v3.cert", encoded


def test_a_body_past_one_bin_is_written_as_version_3_in_pieces(files, cert11982):
    """Version 3 differs from version 2 in the body only: the same zlib stream cut into 1 KiB pieces (the last
    one shorter), the same header and the same SHA-256. encode lays it out byte for byte as write_sorted does."""
    v2, v3, encoded = files
    two, three = (msgpack.unpackb(p.read_bytes()) for p in (v2, v3))
    assert (two["version"], three["version"]) == (2, 3) and list(three) == list(two)
    body = two["body"]
    assert len(body) == 388_597 and isinstance(three["body"], list)
    assert len(three["body"]) == 380 == -(-len(body) // PIECE)
    assert {len(p) for p in three["body"][:-1]} == {PIECE} and len(three["body"][-1]) == len(body) % PIECE
    assert b"".join(three["body"]) == body
    assert three["header"] == two["header"] and three["sha256"] == two["sha256"]
    assert three["sha256"] == hashlib.sha256(two["header"] + body).hexdigest()
    assert v3.read_bytes() == encoded
    assert v2.read_bytes() == certificate.encode(cert11982)     # under the real bound: version 2, as always


def test_both_readers_accept_version_3_with_the_same_records(files, cert11982, monkeypatch):
    v2, v3, _ = files
    assert certificate.read(str(v3)).records == certificate.read(str(v2)).records == cert11982.records
    assert certificate.summarize(str(v3), records=False) == certificate.summarize(str(v2), records=False)
    for small in (certificate._SMALL, 100):             # pieces read, or left on disk (none over 100 bytes is read)
        monkeypatch.setattr(certificate, "_SMALL", small)
        monkeypatch.setattr(certificate, "decode", lambda *a, **k: pytest.fail("the file was read whole"))
        assert certificate.summarize(str(v3)).states == 84767
        assert certificate.summarize(str(v3), records=False).states == 84767
    if EXE is not None:
        got = [subprocess.run([EXE, "--json", "--records-sha256", str(p)], capture_output=True, text=True)
               for p in (v2, v3)]
        assert [g.returncode for g in got] == [0, 0], got
        assert untimed(got[0].stdout) == untimed(got[1].stdout)
        assert untimed(got[1].stdout)["valid"] is True
        assert untimed(got[1].stdout)["records_sha256"] == certificate.summarize(str(v3)).records_sha256 == \
            certificate.records_sha256(cert11982.records)
        assert untimed(got[1].stdout)["max_home"] == cert11982.info["max_home"] == 2


def untimed(text):
    """A --json verdict without its times and the file's name."""
    return {k: v for k, v in json.loads(text).items() if not k.endswith("seconds") and k != "certificate"}


def cli(*args):
    return _run(*args, module="certgen")


@pytest.mark.parametrize("commands", [
    (["info", "--json"], ["check", "--json"]),
    pytest.param((["check", "--reference"],), marks=pytest.mark.slow, id="reference"),
])
def test_certgen_info_and_both_checks_on_version_3(files, request, commands):
    """`certgen info`, `certgen check` (the fast checker when built) and `certgen check --reference` (a pass of
    the Python checker over #11982: slow) say the same of the version 3 file as of the version 2 file (the
    reference checker's verdict on the version 2 file: the run's one, the reference11982 fixture)."""
    v2, v3, _ = files
    for args in commands:
        out = [cli(*args, str(p)) for p in (v2, v3)] if "--reference" not in args else \
            [subprocess.CompletedProcess(args, 0, checker.report(request.getfixturevalue("reference11982")) + "\n", ""),
             cli(*args, str(v3))]
        assert [o.returncode for o in out] == [0, 0], out
        if args[0] == "info":           # all the same but the file's name and size (a bin's head a piece)
            a, b = (json.loads(o.stdout) for o in out)
            assert (b["states"], b["bytes"], a["bytes"]) == (84767, os.path.getsize(v3), os.path.getsize(v2))
            assert b["bytes"] - a["bytes"] == 380 * 3 - 2
            for k in ("certificate", "bytes", "bytes_per_state"):
                del a[k], b[k]
        elif "--json" in args:
            a, b = untimed(out[0].stdout), untimed(out[1].stdout)
        else:
            a, b = out[0].stdout, out[1].stdout
        assert a == b
        if args[0] == "check" and "--json" in args:
            verdict = json.loads(out[1].stdout)
            assert verdict["valid"] is True and verdict["states"] == 84767
            assert verdict.get("checker") == ("fast" if EXE else None)
        if "--reference" in args:
            assert out[1].stdout.startswith("valid for deal 11982 under the standard rules")


def other_split(pieces):
    """The same stream cut elsewhere: pieces of 1, 2047, 1000, 1024, ... bytes."""
    body, out, sizes, i = b"".join(pieces), [], [1, 2047, 1000], 0
    while body:
        n = sizes[i] if i < len(sizes) else PIECE
        out.append(body[:n])
        body, i = body[n:], i + 1
    return out


def test_pieces_of_any_length_up_to_the_bound_are_read(files, tmp_path, cert11982):
    """A reader takes pieces of 1 .. 2**30 bytes (the writer's are all 2**30 but the last)."""
    top = msgpack.unpackb(files[1].read_bytes())
    path = tmp_path / "split.cert"
    path.write_bytes(msgpack.packb(dict(top, body=other_split(top["body"])), use_bin_type=True))
    assert certificate.read(str(path)).records == cert11982.records
    if EXE is not None:
        assert subprocess.run([EXE, str(path)], capture_output=True, text=True).returncode == 0


def damaged(v3: bytes):
    """Version 3 files damaged in their body's pieces: (bytes, the words both readers say)."""
    top = msgpack.unpackb(v3)
    pieces, body = top["body"], b"".join(top["body"])

    def file(version=3, checksum=True, **change):
        t = dict(top, version=version, **change)
        if checksum:
            b = t["body"]
            t["sha256"] = hashlib.sha256(t["header"] + (b"".join(b) if isinstance(b, list) else b)).hexdigest()
        return msgpack.packb(t, use_bin_type=True)

    changed = list(pieces)
    changed[100] = changed[100][:10] + bytes([changed[100][10] ^ 1]) + changed[100][11:]
    across = list(pieces)           # the stream damaged across the boundary of pieces 200 and 201
    across[200] = across[200][:-6] + b"\xff" * 6
    across[201] = b"\xff" * 6 + across[201][6:]
    return {
        "a piece changed": (file(body=changed, checksum=False), "checksum mismatch"),
        "a piece empty": (file(body=pieces[:5] + [b""] + pieces[5:]), "body piece 6 is empty"),
        "no pieces": (file(body=[]), "the body of a version 3 certificate has no pieces"),
        "a piece not bytes": (file(body=pieces[:2] + ["text"] + pieces[2:], checksum=False),
                              "body piece 3 is not bytes"),
        "a piece a number": (file(body=pieces[:2] + [7] + pieces[2:], checksum=False), "body piece 3 is not bytes"),
        "a piece missing": (file(body=pieces[:50] + pieces[51:], checksum=False), "checksum mismatch"),
        "the last piece missing, checksum redone": (file(body=pieces[:-1]), "body is truncated"),
        "a piece after the stream": (file(body=pieces + [b"more"]), "bytes after the end of the compressed body"),
        "damaged across two pieces": (file(body=across), "body does not decompress"),
        "version 2 with pieces": (file(version=2, checksum=False), "the body of a version 2 certificate must be bytes"),
        "version 3 with one bin": (file(body=body), "the body of a version 3 certificate must be a list of pieces"),
        "version 4": (file(version=4), "certificate format version 4; this tool reads versions 2 and 3"),
    }


CASES = ["a piece changed", "a piece empty", "no pieces", "a piece not bytes", "a piece a number", "a piece missing",
         "the last piece missing, checksum redone", "a piece after the stream", "damaged across two pieces",
         "version 2 with pieces", "version 3 with one bin", "version 4"]


@pytest.mark.parametrize("case", CASES)
def test_damaged_pieces_are_refused_by_both_readers(files, tmp_path, case, monkeypatch):
    data, expected = damaged(files[1].read_bytes())[case]
    path = tmp_path / "bad.cert"
    path.write_bytes(data)
    with pytest.raises(FreecellError, match=f"^{path}: {expected}"):
        certificate.read(str(path))
    monkeypatch.setattr(certificate, "_SMALL", 100)       # certgen info's reader, the pieces left on disk
    with pytest.raises(FreecellError, match=f"^{path}: {expected}"):
        certificate.summarize(str(path))
    if EXE is not None:
        p = subprocess.run([EXE, str(path)], capture_output=True, text=True)
        assert p.returncode == 2 and p.stdout == "", (p.stdout, p.stderr)
        assert p.stderr.count("\n") == 1 and p.stderr.startswith(f"error: {path}: {expected}"), p.stderr


def test_a_piece_past_the_bound_is_refused(files, monkeypatch):
    """A piece longer than 2**30 bytes is refused (here with the Python reader's bound lowered to 1000)."""
    monkeypatch.setattr(certificate, "PIECE_MAX", 1000)
    with pytest.raises(FreecellError, match=r"body piece 1 holds 1,024 bytes, more than the 1,000 a piece holds$"):
        certificate.read(str(files[1]))


def test_a_damaged_file_on_the_command_line_is_one_line(files, tmp_path):
    data, expected = damaged(files[1].read_bytes())["a piece empty"]
    path = tmp_path / "bad.cert"
    path.write_bytes(data)
    for args in (["info"], ["check"], ["check", "--reference"]):
        p = cli(*args, str(path))
        assert p.returncode == 2 and p.stderr == f"error: {path}: {expected}\n", (args, p.stderr)


def test_a_stream_of_version_3_is_read_up_to_its_end(files):
    """Read from a pipe (not mapped, not left on disk), a version 3 file is accepted by both readers, and a
    byte after it is refused."""
    import io
    data = files[1].read_bytes()
    assert certificate._read_stream(io.BytesIO(data), "pipe").states == 84767
    with pytest.raises(FreecellError, match="bytes after the end of the certificate"):
        certificate._read_stream(io.BytesIO(data + b"x"), "pipe")
    if EXE is not None:
        for extra, code, words in ((b"", 0, "valid for deal 11982"), (b"x", 2, "bytes after the end")):
            p = subprocess.run([EXE, "/dev/stdin"], input=data + extra, capture_output=True, timeout=120)
            assert p.returncode == code and words.encode() in p.stdout + p.stderr, p


def test_a_piece_over_2_to_the_30_bytes_is_refused_by_both_readers(files, tmp_path):
    """A piece of 2**30 + 1 bytes (a sparse file: nothing is written but its ends) is refused from its length,
    before its bytes are read, by the fast checker and by certgen info's reader."""
    top = msgpack.unpackb(files[1].read_bytes())
    n = certificate.PIECE_MAX + 1
    pack = lambda v: msgpack.packb(v, use_bin_type=True)   # noqa: E731
    path = tmp_path / "long.cert"
    with open(path, "wb") as f:
        f.write(b"\x85" + pack("format") + pack(top["format"]) + pack("version") + pack(3) + pack("header")
                + pack(top["header"]) + pack("body") + b"\x91\xc6" + n.to_bytes(4, "big"))
        f.seek(n, 1)
        f.write(pack("sha256") + pack(top["sha256"]))
    expected = "body piece 1 holds 1,073,741,825 bytes, more than the 1,073,741,824 a piece holds"
    with pytest.raises(FreecellError, match=f"^{path}: {expected}$"):
        certificate.summarize(str(path))
    if EXE is not None:
        p = subprocess.run([EXE, str(path)], capture_output=True, text=True)
        assert p.returncode == 2 and p.stderr == f"error: {path}: {expected}\n", p.stderr


def _map(pairs):
    """A msgpack map (at most 15 pairs) from (key, raw value bytes or a value to pack), keys in order and
    repeated as given: msgpack.packb of a dict cannot repeat a key."""
    out = bytes([0x80 | len(pairs)])
    for k, v in pairs:
        out += msgpack.packb(k) + (v if isinstance(v, (bytearray, _Raw)) else msgpack.packb(v, use_bin_type=True))
    return out


class _Raw(bytes):
    """Bytes to put into _map as they are (an already packed value)."""


@pytest.mark.parametrize("case", ["top header", "top sha256", "top version", "header states", "rules cells",
                                  "source deal"])
def test_a_key_twice_is_refused_by_both_readers(files, tmp_path, case):
    """A map with a key twice: a decoder keeping the first value and one keeping the last would read two
    different certificates from the same bytes (both readers kept the last one and accepted the file)."""
    v2, _, _ = files
    top = msgpack.unpackb(v2.read_bytes())
    h = msgpack.unpackb(top["header"])
    where, key = case.split()

    def header_bytes(source_pairs, rules_pairs, extra=()):
        pairs = [("source", _Raw(_map(source_pairs))), ("rules", _Raw(_map(rules_pairs))), ("start", h["start"]),
                 ("states", h["states"]), ("encoding", h["encoding"]), ("info", h["info"]), *extra]
        return _map(pairs)

    src = list(h["source"].items())
    rules = list(h["rules"].items())
    if where == "source":
        src = [("deal", 1)] + src                                   # deal 1 first, then the real 11982
    if where == "rules":
        rules = [("cells", 8)] + rules
    hbytes = header_bytes(src, rules, [("states", 5)] if where == "header" else [])
    sha = hashlib.sha256(hbytes + top["body"]).hexdigest()
    pairs = [("format", top["format"]), ("version", 2), ("header", hbytes), ("body", top["body"]), ("sha256", sha)]
    if where == "top":
        fake = {"header": b"not this one", "sha256": "0" * 64, "version": 3}[key]
        pairs = [(key, fake)] + pairs
    path = tmp_path / "twice.cert"
    path.write_bytes(_map(pairs))
    expected = {"top": "the file's map", "header": "the header must have exactly the keys",
                "rules": "bad rules in header", "source": "bad source in header: a key twice"}[where]
    for reader in (certificate.read, certificate.summarize, lambda p: certificate.summarize(p, records=False)):
        with pytest.raises(FreecellError) as e:
            reader(str(path))
        assert expected in str(e.value), (reader, str(e.value))
    if EXE is not None:
        p = subprocess.run([EXE, str(path)], capture_output=True, text=True)
        assert p.returncode == 2 and p.stderr.count("\n") == 1 and expected in p.stderr, p.stderr


def test_a_big_file_in_another_layout_is_refused_without_reading_it_whole(tmp_path, monkeypatch):
    """A regular file the on-disk reader cannot follow is read whole to name its fault, except above
    WHOLE_MAX: then it is refused at once (an 8 GiB file of zeros got `certgen info` killed for memory)."""
    path = tmp_path / "zeros.cert"
    with open(path, "wb") as f:
        f.truncate(certificate.WHOLE_MAX + 1)                     # sparse: no disk used
    monkeypatch.setattr(certificate, "decode", lambda *a, **k: pytest.fail("the file was read whole"))
    for reader in (certificate.summarize, lambda p: certificate.summarize(p, records=False)):
        with pytest.raises(FreecellError, match="are not laid out as a certificate is written"):
            reader(str(path))
