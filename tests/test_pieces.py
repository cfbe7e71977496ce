"""Certificate format version 3: the body as a list of pieces (msgpack bins), written only when the
compressed body passes the 2**32 - 1 bytes one bin holds (about 980 M records). Tested on deal #11982's
real certificate (84,767 records, a body of 388,597 bytes) written through the streamed writer with the
bound and the piece size made small (1 KiB pieces), read by both readers: the Python one
(certgen/certificate.py, whole or with the body left on disk) and the fast checker (checker/fccheck.c)."""
import hashlib
import json
import os
import subprocess

import msgpack
import pytest

from certgen import certificate, checker, fastcheck
from solver import packed
from solver.errors import FreecellError

from conftest import _run
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
        got = [subprocess.run([EXE, "--json", str(p)], capture_output=True, text=True) for p in (v2, v3)]
        assert [g.returncode for g in got] == [0, 0], got
        assert untimed(got[0].stdout) == untimed(got[1].stdout)
        assert untimed(got[1].stdout)["valid"] is True


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
    reference checker's verdict on the version 2 file: the run's one, conftest.reference11982)."""
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
