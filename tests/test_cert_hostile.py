"""Certificates a hostile tester made (issue 10, items 6-10): every one is refused in one line or named
for what it is, and the format-2 checksum covers the header."""
import hashlib
import json
import os
import random
import re
import tracemalloc
import zlib

import msgpack
import pytest

from certgen import certificate, checker, mutate, render
from solver import deals, packed, search
from solver.errors import FreecellError
from solver.rules import Rules
from solver.solve import judge

from conftest import _one_line_error as assert_one_line_error, _run as run


def build(deal, cells, source=None):
    pos = deals.ms_deal(deal)
    rules = {"cells": cells, "foundation_return": False}
    res = search.explore(pos, Rules(**rules))
    assert judge(pos, res, Rules(**rules)) == ("unwinnable", None)
    return certificate.make(source or {"kind": "ms", "deal": deal}, rules, pos, res.records(),
                            {"max_home": res.max_home})


@pytest.fixture(scope="module")
def deal7():
    return build(7, 0)          # 7 cells-0 is unwinnable and small


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
        p = run(cmd[0], str(path), *[a.format(tmp=tmp_path) for a in cmd[1:]], module="certgen")
        line = assert_one_line_error(p)
        assert expected in line, line
    assert not (tmp_path / "m.cert").exists() and not (tmp_path / "lean").exists()


# -- item 10: the checksum covers the header; the verdict names what was proven -------------------------

def test_one_header_byte_changing_the_rules_is_refused(tmp_path, deal7):
    good = certificate.encode(deal7)
    data = good.replace(b"\xa5cells\x00", b"\xa5cells\x04")
    assert data != good and data.count(b"\xa5cells\x04") == 1
    refused_everywhere(tmp_path, data, "checksum mismatch")


def test_the_verdict_names_the_deal_and_the_rules_not_the_file_name(tmp_path, deal7):
    path = tmp_path / "Deal11982.cert"
    certificate.write(str(path), deal7)
    p = run("check", str(path), module="certgen")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("valid for deal 7 under the rules with 0 free cells and nothing back from the "
                               "foundations: ")
    p = run("check", str(path), "--json", module="certgen")
    obj = json.loads(p.stdout)
    assert obj["valid"] is True
    assert obj["start"] == {"deal": 7, "digest": hashlib.sha256(packed.pack(deals.ms_deal(7))).hexdigest()[:12]}
    assert obj["rules"] == {"cells": 0, "foundation_return": False}
    p = run("info", str(path), module="certgen")
    assert p.stdout.startswith("deal 7 under the rules with 0 free cells")
    assert json.loads(run("info", str(path), "--json", module="certgen").stdout)["start"]["deal"] == 7


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
    p = run("check", str(path), module="certgen")
    assert p.returncode == 1 and expected in p.stdout
    p = run("render", str(path), "--lean-dir", str(tmp_path / "lean"), module="certgen")
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


# -- item 6: records and starts that are no position ---------------------------------------------------

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


# -- item 7: a seed msgpack cannot hold ----------------------------------------------------------------

def test_a_huge_seed_is_one_line(tmp_path, deal7):
    path = tmp_path / "c.cert"
    certificate.write(str(path), deal7)
    p = run("mutate", str(path), "--delete", "random:1", "--seed", "1180591620717411303424",
            "--out", str(tmp_path / "m.cert"), module="certgen")
    assert "--seed must be a whole number from 0 to 18446744073709551615" in assert_one_line_error(p)
    assert not (tmp_path / "m.cert").exists()
    with pytest.raises(FreecellError):
        mutate.mutate(deal7, "random:1", seed=-1)
    assert mutate.mutate(deal7, "random:1", seed=2 ** 64 - 1)[0].states == deal7.states - 1


# -- item 8: a zip bomb --------------------------------------------------------------------------------

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


# -- item 9: the words of mutate -----------------------------------------------------------------------

def test_add_won_says_added_one_won_state(tmp_path, deal7):
    path = tmp_path / "c.cert"
    certificate.write(str(path), deal7)
    out = tmp_path / "w.cert"
    p = run("mutate", str(path), "--add-won", "--out", str(out), module="certgen")
    assert p.returncode == 0, p.stderr
    assert p.stdout == f"{out}: add-won: added 1 won state; {deal7.states + 1:,} states\n"
    p = run("mutate", str(path), "--delete", "random:2", "--out", str(out), module="certgen")
    assert p.stdout == f"{out}: random:2: deleted 2 states; {deal7.states - 2:,} states\n"
    p = run("mutate", str(path), "--delete", "add-won", "--out", str(tmp_path / "x.cert"), module="certgen")
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
    p = run("info", str(fifo), module="certgen", timeout=120)
    t.join(30)
    assert assert_one_line_error(p) == f"error: {fifo}: not a freecell-proof certificate (not a map)"


def test_render_refuses_a_certificate_that_fails_the_check(tmp_path, deal7):
    path = tmp_path / "c.cert"
    certificate.write(str(path), deal7)
    out = tmp_path / "w.cert"
    assert run("mutate", str(path), "--add-won", "--out", str(out), module="certgen").returncode == 0
    lean = tmp_path / "lean"
    p = run("render", str(out), "--lean-dir", str(lean), module="certgen")
    assert "fails the check" in assert_one_line_error(p)
    assert not lean.exists() or os.listdir(lean) == []
