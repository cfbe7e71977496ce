"""The certificate file, format version 2 (docs/CERTIFICATE.md): one msgpack map
``{format, version, header, body, sha256}``.

A certificate claims to be a *fence*: a set of positions that contains the start position, is closed
under the rules' moves and contains no won position. This module only stores and loads it; whether the
claim holds is for certgen.checker (Python) and FreeCell.Cert (Lean) to decide.

``header`` is the msgpack encoding of the header map (source, rules, start, states, encoding, info);
``body`` is zlib over the positions as P64 records (solver/packed.py), sorted and distinct; ``sha256``
covers the header bytes followed by the body bytes, so a damaged header or body is refused before
anything in it is used. The body is inflated in a streaming way, never past the ``states × 64`` bytes
the header declares, and every record is checked to be a position, in order, as it arrives.
"""
import hashlib
import os
import stat
import zlib
from dataclasses import dataclass, field
from typing import Dict, List

import msgpack

from solver import packed
from solver.atomic import write_atomic
from solver.deals import MAX_DEAL
from solver.errors import FreecellError
from solver.rules import Rules

FORMAT = "freecell-proof-certificate"
VERSION = 2
ENCODING = "p64-sorted-zlib"
TOP_KEYS = ("format", "version", "header", "body", "sha256")
HEADER_KEYS = ("source", "rules", "start", "states", "encoding", "info")
MAX_STATES = 2 ** 31 - 1        # the C core's limit on stored positions
_CHUNK = 1 << 20                # bytes inflated at a time


@dataclass
class Certificate:
    source: Dict           # how the start position was given: {"kind": "ms", "deal": N} | {"kind": "board", ...}
    rules: Dict            # {"cells": 4, "foundation_return": False}
    start: bytes           # P64 of the start position
    records: List[bytes]   # P64 records, sorted and distinct
    info: Dict = field(default_factory=dict)  # informative only (search time, max_home, mutation applied, …)

    @property
    def states(self) -> int:
        return len(self.records)

    def label(self) -> str:
        src = self.source
        if src.get("kind") == "ms":
            return f"deal {src['deal']}"
        return src.get("name") or src.get("code") or src.get("kind", "position")

    def start_digest(self) -> str:
        """The first 12 hex digits of the SHA-256 of the start record: names a board's position."""
        return hashlib.sha256(self.start).hexdigest()[:12]

    def subject(self) -> str:
        """What a proof from this certificate is about, in words: the start (deal number, deal code, or
        board name and the digest of its position) and the rules."""
        from .render import rules_text      # certgen.render imports this module (through members)
        src = self.source
        if src.get("kind") == "ms":
            start = f"deal {src['deal']}"
        elif src.get("kind") == "code":
            start = f"the deal code {src['code']}"
        else:
            name = src.get("name") or "position"
            name = "from standard input" if name == "-" else name
            start = f"the board {name} (start position {self.start_digest()})"
        return f"{start} under {rules_text(Rules.from_dict(self.rules))}"

    def start_json(self) -> Dict:
        """The start for --json: {"deal": N} | {"code": CODE} | {"board": NAME}, with the digest."""
        src = self.source
        out = {"deal": src["deal"]} if src.get("kind") == "ms" else (
            {"code": src["code"]} if src.get("kind") == "code" else {"board": src.get("name")})
        out["digest"] = self.start_digest()
        return out


def make(source, rules, start_pos, records, info=None) -> Certificate:
    recs = sorted(set(records))
    return Certificate(source=dict(source), rules=dict(rules), start=packed.pack(start_pos),
                       records=recs, info=dict(info or {}))


def _digest(header: bytes, body: bytes) -> str:
    h = hashlib.sha256(header)
    h.update(body)
    return h.hexdigest()


def encode(cert: Certificate) -> bytes:
    header = {"source": cert.source, "rules": cert.rules, "start": cert.start, "states": len(cert.records),
              "encoding": ENCODING, "info": cert.info}
    try:
        hbytes = msgpack.packb(header, use_bin_type=True)
    except (OverflowError, TypeError, ValueError) as e:   # e.g. a number msgpack cannot hold
        raise FreecellError(f"cannot store the certificate header: {e}") from None
    body = zlib.compress(b"".join(cert.records), 9)
    return msgpack.packb({"format": FORMAT, "version": VERSION, "header": hbytes, "body": body,
                          "sha256": _digest(hbytes, body)}, use_bin_type=True)


def write(path: str, cert: Certificate) -> None:
    """Write atomically (solver/atomic.py)."""
    write_atomic(path, encode(cert))


REBUILD = "rebuild it with this version (`python -m certgen build`)"


def decode(data: bytes, name: str = "certificate") -> Certificate:
    """Read a version 2 certificate: format, version and checksum first, then the header, then the body,
    inflated a piece at a time. Every problem is one FreecellError line naming `name`."""
    def bad(why):
        return FreecellError(f"{name}: {why}")

    return _from_top(_unpack_top(data, bad), bad)


def _unpack_top(data, bad):
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as e:  # msgpack raises several types for damaged input
        raise bad(f"not a readable certificate (corrupt or truncated msgpack: {type(e).__name__})") from None


def read_header(path: str) -> Dict:
    """The header of the certificate file at `path` after the cheap checks: format, version, the SHA-256
    over header and body, the header's fields; the body is not inflated (a survey resuming checks its
    certificates this way). Every problem is one FreecellError line naming `path`."""
    not_a_directory(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise FreecellError(f"cannot read certificate {path}: {e.strerror or e}") from None
    def bad(why):
        return FreecellError(f"{path}: {why}")
    return _header_of(_unpack_top(data, bad), bad)


def _from_top(top, bad) -> Certificate:
    h = _header_of(top, bad)
    records = _inflate(top["body"], h["states"], bad)
    return Certificate(source=h["source"], rules=h["rules"], start=h["start"], records=records, info=h["info"])


def _header_of(top, bad) -> Dict:
    if not isinstance(top, dict):
        raise bad("not a freecell-proof certificate (not a map)")
    old = top.get("header")
    if "format" not in top and isinstance(old, dict) and old.get("format") == FORMAT:
        raise bad(f"certificate format version {old.get('version')!r}, which has no checksum over its "
                  f"header; this tool reads version {VERSION}: {REBUILD}")
    if top.get("format") != FORMAT:
        raise bad(f"not a freecell-proof certificate (format {top.get('format')!r})")
    if top.get("version") != VERSION:
        raise bad(f"certificate format version {top.get('version')!r}; this tool reads version {VERSION}"
                  + (f": {REBUILD}" if isinstance(top.get("version"), int) and top["version"] < VERSION else ""))
    if set(top) != set(TOP_KEYS):
        raise bad(f"the file's map has the keys {sorted(map(str, top))}, expected {list(TOP_KEYS)}")
    hbytes, body, digest = top["header"], top["body"], top["sha256"]
    if not isinstance(hbytes, bytes) or not isinstance(body, bytes) or not isinstance(digest, str):
        raise bad("header and body must be bytes and sha256 text")
    if _digest(hbytes, body) != digest:
        raise bad("checksum mismatch (the file is damaged)")
    try:
        h = msgpack.unpackb(hbytes, raw=False, strict_map_key=False)
    except Exception as e:
        raise bad(f"the header is not readable msgpack ({type(e).__name__})") from None
    if not isinstance(h, dict) or set(h) != set(HEADER_KEYS):
        raise bad(f"the header must have exactly the keys {list(HEADER_KEYS)}")
    if h["encoding"] != ENCODING:
        raise bad(f"unknown body encoding {h['encoding']!r}")
    n = h["states"]
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_STATES:
        raise bad(f"bad state count in header: {n!r}")
    source, rules, start = h["source"], h["rules"], h["start"]
    if not isinstance(source, dict) or not isinstance(rules, dict) or not isinstance(start, bytes):
        raise bad("header lacks source, rules or start")
    _check_rules(rules, bad)
    check_source(source, bad)
    if not isinstance(h["info"], dict):
        raise bad("bad info in header (not a map)")
    try:
        packed.unpack(start)
    except FreecellError as e:
        raise bad(f"bad start position in header: {e}") from None
    return h


def _check_rules(rules, bad):
    cells = rules.get("cells")
    if set(rules) != {"cells", "foundation_return"} or not isinstance(cells, int) or isinstance(cells, bool) \
            or not 0 <= cells <= 8 or not isinstance(rules.get("foundation_return"), bool):
        raise bad(f"bad rules in header: {rules!r}")


def _printable(text, limit=300):
    return isinstance(text, str) and 0 < len(text) <= limit and text.isprintable()


def check_source(source, bad):
    kind = source.get("kind")
    if kind not in ("ms", "code", "board"):
        raise bad(f"bad source in header: kind {kind!r}")
    deal = source.get("deal")
    if kind == "ms" and (not isinstance(deal, int) or isinstance(deal, bool) or not 1 <= deal <= MAX_DEAL):
        raise bad(f"bad source in header: deal {deal!r} (a deal number is 1..{MAX_DEAL})")
    if (kind == "code" or "code" in source) and not _printable(source.get("code")):
        raise bad(f"bad source in header: code {source.get('code')!r}")
    if kind == "board" and "name" in source and not _printable(source["name"]):
        raise bad(f"bad source in header: board name {source['name']!r} (one printable line)")


def _inflate(body, states, bad) -> List[bytes]:
    """The body's records: inflated a piece at a time, never past states × 64 bytes, each record checked
    to be a position and greater than the one before, so a damaged or hostile body (a zip bomb) is
    refused as soon as it shows."""
    size = packed.SIZE
    limit = states * size
    problem = packed.validator()
    d = zlib.decompressobj()
    records, prev, pending, produced = [], b"", b"", 0
    data = body
    try:
        while True:
            chunk = d.decompress(data, _CHUNK)
            data = d.unconsumed_tail
            produced += len(chunk)
            if produced > limit:
                raise bad(f"body holds more than {limit:,} bytes, expected {states} states of {size} bytes")
            buf = pending + chunk if pending else chunk
            end = len(buf) - len(buf) % size
            for i in range(0, end, size):
                rec = buf[i:i + size]
                if rec <= prev:
                    raise bad(f"records are not sorted and distinct (record {len(records) + 1})")
                why = problem(rec)
                if why is not None:
                    raise bad(f"record {len(records) + 1} is not a position ({why})")
                records.append(rec)
                prev = rec
            pending = buf[end:]
            if d.eof or (not chunk and not data):
                break
    except zlib.error:
        raise bad("body does not decompress (the file is damaged)") from None
    if not d.eof:
        raise bad("body is truncated (the file is damaged)")
    if d.unused_data:
        raise bad("bytes after the end of the compressed body")
    if produced != limit:
        raise bad(f"body holds {produced:,} bytes, expected {states} states of {size} bytes")
    return records


def not_a_directory(path: str) -> str:
    """`path`, unless it is a folder: then one line saying a certificate is a file (not "read error")."""
    if os.path.isdir(path):
        raise FreecellError(f"{path} is a directory, not a certificate file")
    return path


def read(path: str) -> Certificate:
    """Read and decode the certificate at `path`. A regular file is read whole; anything else (a FIFO,
    a device) is read as a stream up to the end of its one msgpack object, so `/dev/zero` is refused at
    its first byte instead of read forever."""
    not_a_directory(path)
    try:
        with open(path, "rb") as f:
            if stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                data = f.read()
            else:
                return _read_stream(f, path)
    except OSError as e:
        raise FreecellError(f"cannot read certificate {path}: {e.strerror or e}") from None
    return decode(data, name=path)


def _read_stream(f, name) -> Certificate:
    def bad(why):
        return FreecellError(f"{name}: {why}")

    unpacker = msgpack.Unpacker(f, raw=False, strict_map_key=False, max_buffer_size=2 ** 32 - 1)
    try:
        top = unpacker.unpack()
    except OSError:
        raise
    except Exception as e:
        raise bad(f"not a readable certificate (corrupt or truncated msgpack: {type(e).__name__})") from None
    if not isinstance(top, dict):
        raise bad("not a freecell-proof certificate (not a map)")
    try:
        unpacker.unpack()
    except msgpack.OutOfData:
        return _from_top(top, bad)
    except Exception:
        pass
    raise bad("bytes after the end of the certificate")

