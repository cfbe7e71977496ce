"""The certificate file: a msgpack map holding a header and the set of positions (docs/CERTIFICATE.md).

A certificate claims to be a *fence*: a set of positions that contains the start position, is closed
under the rules' moves and contains no won position. This module only stores and loads it; whether the
claim holds is for certgen.checker (Python) and FreeCell.Cert (Lean) to decide.

Body: the positions as P64 records (solver/packed.py), sorted and distinct, concatenated and compressed
with zlib. The header carries the SHA-256 of the (compressed) body, so a damaged file is refused before
any record is read.
"""
import hashlib
import zlib
from dataclasses import dataclass, field
from typing import Dict, List

import msgpack

from solver import packed
from solver.atomic import write_atomic
from solver.errors import FreecellError

FORMAT = "freecell-proof-certificate"
VERSION = 1
ENCODING = "p64-sorted-zlib"


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


def make(source, rules, start_pos, records, info=None) -> Certificate:
    recs = sorted(set(records))
    return Certificate(source=dict(source), rules=dict(rules), start=packed.pack(start_pos),
                       records=recs, info=dict(info or {}))


def encode(cert: Certificate) -> bytes:
    body = zlib.compress(b"".join(cert.records), 9)
    header = {
        "format": FORMAT,
        "version": VERSION,
        "source": cert.source,
        "rules": cert.rules,
        "start": cert.start,
        "states": len(cert.records),
        "encoding": ENCODING,
        "body_sha256": hashlib.sha256(body).hexdigest(),
        "info": cert.info,
    }
    return msgpack.packb({"header": header, "body": body}, use_bin_type=True)


def write(path: str, cert: Certificate) -> None:
    """Write atomically (solver/atomic.py)."""
    write_atomic(path, encode(cert))


def decode(data: bytes, name: str = "certificate") -> Certificate:
    def bad(why):
        return FreecellError(f"{name}: {why}")

    try:
        top = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as e:  # msgpack raises several types for damaged input
        raise bad(f"not a readable certificate (corrupt or truncated msgpack: {type(e).__name__})") from None
    if not isinstance(top, dict) or not isinstance(top.get("header"), dict):
        raise bad("not a freecell-proof certificate (no header)")
    h = top["header"]
    if h.get("format") != FORMAT:
        raise bad(f"not a freecell-proof certificate (format {h.get('format')!r})")
    if h.get("version") != VERSION:
        raise bad(f"certificate format version {h.get('version')!r}; this tool reads version {VERSION}")
    if h.get("encoding") != ENCODING:
        raise bad(f"unknown body encoding {h.get('encoding')!r}")
    body = top.get("body")
    if not isinstance(body, bytes):
        raise bad("no body")
    if hashlib.sha256(body).hexdigest() != h.get("body_sha256"):
        raise bad("body checksum mismatch (the file is damaged)")
    try:
        raw = zlib.decompress(body)
    except zlib.error:
        raise bad("body does not decompress (the file is damaged)") from None
    n = h.get("states")
    if not isinstance(n, int) or len(raw) != n * packed.SIZE:
        raise bad(f"body holds {len(raw)} bytes, expected {n} states of {packed.SIZE} bytes")
    records = [raw[i:i + packed.SIZE] for i in range(0, len(raw), packed.SIZE)]
    if any(records[i] >= records[i + 1] for i in range(len(records) - 1)):
        raise bad("records are not sorted and distinct")
    source, rules, start = h.get("source"), h.get("rules"), h.get("start")
    if not isinstance(source, dict) or not isinstance(rules, dict) or not isinstance(start, bytes):
        raise bad("header lacks source, rules or start")
    cells = rules.get("cells")
    if not isinstance(cells, int) or isinstance(cells, bool) or not 0 <= cells <= 8 \
            or not isinstance(rules.get("foundation_return"), bool):
        raise bad(f"bad rules in header: {rules!r}")
    kind = source.get("kind")
    if kind not in ("ms", "code", "board"):
        raise bad(f"bad source in header: kind {kind!r}")
    deal = source.get("deal")
    if kind == "ms" and (not isinstance(deal, int) or isinstance(deal, bool) or not 1 <= deal <= 2**33 - 1):
        raise bad(f"bad source in header: deal {deal!r} (a deal number is 1..8589934591)")
    if not isinstance(h.get("info") or {}, dict):
        raise bad("bad info in header (not a map)")
    try:
        packed.unpack(start)
    except FreecellError as e:
        raise bad(f"bad start position in header: {e}") from None
    return Certificate(source=source, rules=rules, start=start, records=records, info=h.get("info") or {})


def read(path: str) -> Certificate:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise FreecellError(f"cannot read certificate {path}: {e.strerror or e}") from None
    return decode(data, name=path)

