"""The certificate file, format versions 2 and 3 (docs/CERTIFICATE.md): one msgpack map
``{format, version, header, body, sha256}``.

A certificate claims to be a *fence*: a set of positions that contains the start position, is closed
under the rules' moves and contains no won position. This module only stores and loads it; whether the
claim holds is for certgen.checker (Python) and FreeCell.Cert (Lean) to decide.

``header`` is the msgpack encoding of the header map (source, rules, start, states, encoding, info);
``body`` is zlib over the positions as P64 records (solver/packed.py), sorted and distinct: one bin in
version 2, a list of bins (pieces, whose concatenation is the zlib stream) in version 3, written only when
the stream passes the 2**32 - 1 bytes a bin holds; ``sha256`` covers the header bytes followed by the body
bytes, so a damaged header or body is refused before anything in it is used. The body is inflated in a
streaming way, never past the ``states × 64`` bytes the header declares, and every record is checked to
be a position, in order, as it arrives.
"""
import hashlib
import os
import stat
import tempfile
import zlib
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import msgpack

from solver import packed
from solver.atomic import temp_folder_for, write_atomic, write_atomic_with
from solver.deals import MAX_DEAL
from solver.errors import FreecellError
from solver.progress import bar
from solver.rules import Rules

from .names import rules_text

FORMAT = "freecell-proof-certificate"
VERSION = 2                     # what a body that fits one msgpack bin is written as (every certificate so far)
PIECES_VERSION = 3              # the body a list of bins: written only for a body past BODY_MAX
VERSIONS = (VERSION, PIECES_VERSION)
ENCODING = "p64-sorted-zlib"
TOP_KEYS = ("format", "version", "header", "body", "sha256")
HEADER_KEYS = ("source", "rules", "start", "states", "encoding", "info")
# The most records a header may declare. The in-memory search numbers its positions with 31 bits (its
# certificates stay below 2**31: solver.limits.IN_MEMORY_MAX_STATES); the disk search and the streamed writer number
# none, so a certificate from the disk search may hold more: 2**40 (64 TiB of records inflated) is the bound
# (= solver.limits.DISK_MAX_STATES; build/fccheck has the same). A version 2 body, one msgpack bin, holds
# at most BODY_MAX compressed bytes (about 980 M records at 4.4 bytes a record); a longer one is written as
# version 3, pieces of PIECE bytes (the last one shorter). A reader takes pieces of 1..PIECE_MAX bytes.
MAX_STATES = 2 ** 40
BODY_MAX = 2 ** 32 - 1
PIECE = 2 ** 30                 # a writer's piece (tests make it small)
PIECE_MAX = 2 ** 30             # the longest piece a reader takes (the format's bound: never changed)
# The body's zlib level, by the number of records (readers do not care). Measured on deal 1474422072's
# 2,951,466 sorted records (`scripts/bench.py --zlib`): level 9 0.22 M records a processor second, 4.40 bytes a
# record; level 6 0.86 M/s, 4.38 B; level 1 3.85 M/s, 6.31 B. Level 9 would take over an hour at 10**9 records
# and is no smaller: up to LEVEL9_MAX records the body stays as it always was (level 9), above it level 6.
LEVEL9_MAX = 10_000_000


def body_level(states: int) -> int:
    """The zlib level of a body of `states` records: 9 up to LEVEL9_MAX, else 6."""
    return 9 if states <= LEVEL9_MAX else 6
_CHUNK = 1 << 20                # bytes inflated at a time


class _Described:
    """What a certificate says about its start (shared by Certificate and Summary)."""

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


@dataclass
class Certificate(_Described):
    source: Dict           # how the start position was given: {"kind": "ms", "deal": N} | {"kind": "board", ...}
    rules: Dict            # {"cells": 4, "foundation_return": False} (+ "column_order": True: up to column order;
                           # + "autoplay": "safe" beside it: each position after its safe automatic moves)
    start: bytes           # P64 of the start position
    records: List[bytes]   # P64 records, sorted and distinct
    info: Dict = field(default_factory=dict)  # informative only (search time, max_home, mutation applied, …)

    @property
    def states(self) -> int:
        return len(self.records)


@dataclass
class Summary(_Described):
    """A certificate without its records (summarize, write_search): memory flat in the number of states."""
    source: Dict
    rules: Dict
    start: bytes
    states: int
    info: Dict = field(default_factory=dict)
    records_sha256: Optional[str] = None    # summarize: of the records read (None: not read)


def records_sha256(records) -> str:
    """The SHA-256 of a certificate's records, sorted (as the body holds them) and uncompressed, one after the
    other: it names the set whatever the zlib level or the format version (``certgen info --json``)."""
    h = hashlib.sha256()
    for rec in records:
        h.update(rec)
    return h.hexdigest()


def make(source, rules, start_pos, records, info=None) -> Certificate:
    recs = sorted(set(records))
    return Certificate(source=dict(source), rules=dict(rules), start=packed.pack(start_pos),
                       records=recs, info=dict(info or {}))


def _digest(header: bytes, body: bytes) -> str:
    h = hashlib.sha256(header)
    h.update(body)
    return h.hexdigest()


def _header_bytes(source, rules, start, states, info) -> bytes:
    header = {"source": source, "rules": rules, "start": start, "states": states, "encoding": ENCODING,
              "info": info}
    try:
        return msgpack.packb(header, use_bin_type=True)
    except (OverflowError, TypeError, ValueError) as e:   # e.g. a number msgpack cannot hold
        raise FreecellError(f"cannot store the certificate header: {e}") from None


def _spans(size: int):
    """The version and the (offset, length) pieces of a body of `size` compressed bytes: version 2, one bin,
    up to BODY_MAX bytes; version 3 past it, pieces of PIECE bytes, the last one what is left."""
    if size <= BODY_MAX:
        return VERSION, [(0, size)]
    return PIECES_VERSION, [(o, min(PIECE, size - o)) for o in range(0, size, PIECE)]


def encode(cert: Certificate) -> bytes:
    hbytes = _header_bytes(cert.source, cert.rules, cert.start, len(cert.records), cert.info)
    body = zlib.compress(b"".join(cert.records), body_level(len(cert.records)))
    version, spans = _spans(len(body))
    value = body if version == VERSION else [body[o:o + n] for o, n in spans]
    return msgpack.packb({"format": FORMAT, "version": version, "header": hbytes, "body": value,
                          "sha256": _digest(hbytes, body)}, use_bin_type=True)


def write(path: str, cert: Certificate) -> None:
    """Write atomically (solver/atomic.py)."""
    write_atomic(path, encode(cert))


def _bin_head(n: int) -> bytes:
    """The msgpack head of a bin of n bytes, as msgpack.packb writes it (the smallest form)."""
    if n < 1 << 8:
        return b"\xc4" + n.to_bytes(1, "big")
    if n < 1 << 16:
        return b"\xc5" + n.to_bytes(2, "big")
    return b"\xc6" + n.to_bytes(4, "big")


def _array_head(n: int) -> bytes:
    """The msgpack head of an array of n items, as msgpack.packb writes it (the smallest form)."""
    if n < 16:
        return bytes([0x90 | n])
    if n < 1 << 16:
        return b"\xdc" + n.to_bytes(2, "big")
    return b"\xdd" + n.to_bytes(4, "big")


def _pieces_of(f, offset=0, length=None):
    """The bytes of the open file f from offset (length of them, or to its end), a piece at a time."""
    f.seek(offset)
    left = length
    while left is None or left > 0:
        piece = f.read(_CHUNK if left is None else min(left, _CHUNK))
        if not piece:
            return
        if left is not None:
            left -= len(piece)
        yield piece


_BATCH = 1 << 16                # records exported from the core at a time


def write_search(path, source, rules, start_pos, search, info=None, progress=False, level=None) -> Summary:
    """Write the certificate of a finished enumeration straight from the C core (solver.search.Search, or
    solver.disksearch.DiskSearch: anything with ``len`` and ``sorted_batches``) through
    :func:`write_sorted`. The bytes are those of ``write(path, make(...))``; no list of records is built. The
    core's records are distinct (one a position of a set; its counting modes, which may repeat one, go
    through certgen/upto.py, which drops repeats)."""
    return write_sorted(path, source, rules, start_pos, search.sorted_batches(_BATCH), len(search), info, progress,
                        level)


def write_sorted(path, source, rules, start_pos, batches, total, info=None, progress=False, level=None) -> Summary:
    """Write a certificate atomically from ``batches``: bytes of whole P64 records, ascending and distinct over
    all the batches (they are written as they come: a repeat left in makes a file that every reader refuses,
    "not sorted and distinct"), ``total`` records in all (for the bar and the zlib level, :func:`body_level`).
    They are compressed into a temporary body file next to `path`; then the file is assembled around it (the
    body's length is known only then): version 2, or version 3 (the body in pieces) when the body passes
    BODY_MAX (:func:`_spans`). ``level``: the zlib level (default :func:`body_level`). Returns the
    certificate's Summary, with the :func:`records_sha256` of the records written."""
    start = packed.pack(start_pos)
    with tempfile.TemporaryFile(dir=temp_folder_for(path)) as body:
        z, size, kept = zlib.compressobj(body_level(total) if level is None else level), 0, 0
        digest = hashlib.sha256()
        with bar(progress, total=total, unit=" records", unit_scale=True, desc="write") as b:
            for blob in batches:
                kept += len(blob) // packed.SIZE
                digest.update(blob)
                piece = z.compress(blob)
                body.write(piece)
                size += len(piece)
                b.update(len(blob) // packed.SIZE)
        piece = z.flush()
        body.write(piece)
        size += len(piece)
        hbytes = _header_bytes(dict(source), dict(rules), start, kept, dict(info or {}))
        h = hashlib.sha256(hbytes)
        for chunk in _pieces_of(body):
            h.update(chunk)
        version, spans = _spans(size)
        packb = lambda v: msgpack.packb(v, use_bin_type=True)   # noqa: E731
        head = (b"\x85" + packb("format") + packb(FORMAT) + packb("version") + packb(version)
                + packb("header") + packb(hbytes) + packb("body")
                + (b"" if version == VERSION else _array_head(len(spans))))
        tail = packb("sha256") + packb(h.hexdigest())

        def emit(f):
            f.write(head)
            for offset, length in spans:
                f.write(_bin_head(length))
                for chunk in _pieces_of(body, offset, length):
                    f.write(chunk)
            f.write(tail)
        write_atomic_with(path, emit)
    return Summary(source=dict(source), rules=dict(rules), start=start, states=kept, info=dict(info or {}),
                   records_sha256=digest.hexdigest())


REBUILD = "rebuild it with this version (`python -m certgen build`)"


class _Map(dict):
    """A msgpack map as decoded here: a dict that remembers a key met twice (``twice``; a decoder keeping the
    first value and one keeping the last would read two different certificates from the same bytes)."""
    twice = None


def _map_of(pairs):
    m = _Map()
    for k, v in pairs:
        if k in m and m.twice is None:
            m.twice = k
        m[k] = v
    return m


def decode(data: bytes, name: str = "certificate") -> Certificate:
    """Read a certificate (version 2 or 3): format, version and checksum first, then the header, then the body,
    inflated a piece at a time. Every problem is one FreecellError line naming `name`."""
    def bad(why):
        return FreecellError(f"{name}: {why}")

    return _from_top(_unpack_top(data, bad), bad)


def _unreadable(e):
    """The words for a file msgpack cannot read, as build/fccheck says them (no Python exception's name)."""
    extra = ": extra data" if isinstance(e, msgpack.ExtraData) else ""
    return f"not a readable certificate (corrupt or truncated msgpack{extra})"


def _unpack_top(data, bad):
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False, object_pairs_hook=_map_of)
    except Exception as e:  # msgpack raises several types for damaged input
        raise bad(_unreadable(e)) from None


def _from_top(top, bad) -> Certificate:
    h = _check_top(top, bad)
    records = _inflate(top["body"], h["states"], bad)
    return Certificate(source=h["source"], rules=h["rules"], start=h["start"], records=records, info=h["info"])


READS = "this tool reads versions 2 and 3"


def _check_top(top, bad):
    """Everything but the records: the top map, the body's form, the checksum, the header. Returns the
    header map."""
    if not isinstance(top, dict):
        raise bad("not a freecell-proof certificate (not a map)")
    if getattr(top, "twice", None) is not None:
        raise bad(f"the file's map has the key {top.twice!r} twice")
    old = top.get("header")
    if "format" not in top and isinstance(old, dict) and old.get("format") == FORMAT:
        raise bad(f"certificate format version {old.get('version')!r}, which has no checksum over its "
                  f"header; {READS}: {REBUILD}")
    if top.get("format") != FORMAT:
        raise bad(f"not a freecell-proof certificate (format {top.get('format')!r})")
    version = top.get("version")
    if type(version) is not int or version not in VERSIONS:
        raise bad(f"certificate format version {version!r}; {READS}"
                  + (f": {REBUILD}" if type(version) is int and version < VERSION else ""))
    if set(top) != set(TOP_KEYS):
        raise bad(f"the file's map must have exactly the keys {', '.join(TOP_KEYS)}")
    hbytes, body, claimed = top["header"], top["body"], top["sha256"]
    if not isinstance(hbytes, bytes) or not isinstance(claimed, str):
        raise bad("header and body must be bytes and sha256 text")
    _check_body_form(version, body, bad)
    sha = hashlib.sha256(hbytes)
    for chunk in _chunks(body):
        sha.update(chunk)
    if sha.hexdigest() != claimed:
        raise bad("checksum mismatch (the file is damaged)")
    try:
        h = msgpack.unpackb(hbytes, raw=False, strict_map_key=False, object_pairs_hook=_map_of)
    except Exception:
        raise bad("the header is not readable msgpack") from None
    if not isinstance(h, dict) or set(h) != set(HEADER_KEYS) or h.twice is not None:
        raise bad(f"the header must have exactly the keys {', '.join(HEADER_KEYS)}")
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
        raise bad(f"bad start position in header: {str(e).replace('packed position: ', '', 1)}") from None
    return h


RULE_KEYS = ("cells", "foundation_return", "column_order", "autoplay")


def _check_rules(rules, bad):
    """``cells`` (0..8) and ``foundation_return`` (a bool), ``column_order`` only as ``True`` (a certificate
    up to the order of the columns; absent: fixed columns), and ``autoplay`` only as ``"safe"`` beside
    ``"column_order": true`` without foundation returns (each position taken after its safe automatic moves;
    absent: none), nothing else."""
    cells = rules.get("cells")
    if not {"cells", "foundation_return"} <= set(rules) <= set(RULE_KEYS) \
            or getattr(rules, "twice", None) is not None \
            or not isinstance(cells, int) or isinstance(cells, bool) \
            or not 0 <= cells <= 8 or not isinstance(rules.get("foundation_return"), bool) \
            or rules.get("column_order", True) is not True \
            or ("autoplay" in rules and (rules["autoplay"] != "safe" or not isinstance(rules["autoplay"], str)
                                         or "column_order" not in rules or rules["foundation_return"])):
        raise bad("bad rules in header: cells (0..8), foundation_return (true or false), column_order (true, or "
                  "absent) and autoplay (\"safe\" beside column_order without foundation returns, or absent), nothing else")


def _printable(text, limit=300):
    return isinstance(text, str) and 0 < len(text) <= limit and text.isprintable()


def check_source(source, bad):
    if getattr(source, "twice", None) is not None or len(source) > 1024:
        raise bad("bad source in header: a key twice (or over 1,024 keys)")
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


DEFLATE_MAX_RATIO = 1032       # deflate expands at most 1032:1 (zlib's documented limit)


def _check_body_form(version, body, bad):
    """Version 2: the body is one bin. Version 3: a list of 1 or more bins, each 1..PIECE_MAX bytes."""
    if version == VERSION:
        if not isinstance(body, (bytes, _FileBody)):
            raise bad("the body of a version 2 certificate must be bytes (one bin)")
        return
    if not isinstance(body, list):
        raise bad("the body of a version 3 certificate must be a list of pieces (bins)")
    if not body:
        raise bad("the body of a version 3 certificate has no pieces")
    for i, piece in enumerate(body, 1):
        if not isinstance(piece, (bytes, _FileBody)):
            raise bad(f"body piece {i} is not bytes")
        n = piece.length if isinstance(piece, _FileBody) else len(piece)
        if n == 0:
            raise bad(f"body piece {i} is empty")
        if n > PIECE_MAX:
            raise bad(f"body piece {i} holds {n:,} bytes, more than the {PIECE_MAX:,} a piece holds")


def _chunks(body):
    """The bytes of a body of checked form (bytes or a _FileBody, or a list of them), a chunk at a time."""
    for piece in body if isinstance(body, list) else [body]:
        if isinstance(piece, _FileBody):
            yield from piece.pieces()
        else:
            yield piece


def _can_hold(body, states, bad):
    """Refuse a count of states that no body of this size can hold (deflate expands at most
    DEFLATE_MAX_RATIO:1, as build/fccheck refuses it), before anything is read or planned from the count."""
    held = sum(p.length if isinstance(p, _FileBody) else len(p) for p in (body if isinstance(body, list) else [body]))
    if states > (held * DEFLATE_MAX_RATIO + 1024) // packed.SIZE:
        raise bad(f"a body of {held} bytes cannot hold {states} states")


def _at(error: FreecellError, number: int) -> FreecellError:
    """``error`` (a refusal of a body) with ``at``: the number of the record it is about (:func:`_inflate`)."""
    error.at = number
    return error


def shard_ranges(first: int, n: int, shard):
    """The (lo, hi) ranges of the records first..first+n-1 (as 0..n-1) that ``shard`` ``(k, K, block)`` checks:
    those of the blocks numbered k, k+K, k+2K, ... (all of them without a shard)."""
    if shard is None:
        if n:
            yield 0, n
        return
    k, jobs, block = shard
    b = first // block
    b += (k - b) % jobs                       # the first block of this shard not before the first record
    while b * block < first + n:
        yield max(b * block, first) - first, min((b + 1) * block, first + n) - first
        b += jobs


def _inflate(body, states, bad, keep=True, feed=None, checked=True, shard=None):
    """The records of a body of checked form: first a count no body of its size can hold is refused (deflate
    expands at most DEFLATE_MAX_RATIO:1, as build/fccheck refuses it); then inflated a piece at a time, never
    past states × 64 bytes, each record checked to be a position and greater than the one before, so a damaged or hostile
    body (a zip bomb) is refused as soon as it shows. keep=False: only checked and counted (returns
    the count; memory flat in the number of states); keep="joined": the records as one bytearray of
    ``states × 64`` bytes (64 bytes a record instead of the ~100 of a bytes object in a list). ``feed`` (a
    function): called with each run of records (bytes of whole records, in order) once they are checked.
    ``checked=False`` (with keep=False): the records are not checked one by one (the body's length, its
    zlib stream and its end still are): only for records read and checked before, whose digest the caller
    compares (the sampled check's second pass). ``shard`` ``(k, K, block)`` (with keep=False): only the records
    of every K-th block of ``block`` records, from the k-th, are checked (each against the record before it,
    checked or not): K processes reading the body each with its k check every record once (the sampled
    check's first pass). A refusal names the record it is about; its ``at`` is that record's number, or for
    a fault of the stream the records inflated before it, so the refusal of K such processes with the least
    ``at`` is the one a single reading meets first."""
    size = packed.SIZE
    _can_hold(body, states, bad)
    pieces = _chunks(body)
    limit = states * size
    problem = packed.validator()
    d = zlib.decompressobj()
    records, count, prev, pending, produced = [], 0, b"", b"", 0
    joined = bytearray() if keep == "joined" else None
    pieces = iter(pieces)
    try:
        for data in pieces:
            while True:
                chunk = d.decompress(data, _CHUNK)
                data = d.unconsumed_tail
                produced += len(chunk)
                if produced > limit:
                    raise _at(bad(f"body holds more than {limit} bytes, expected {states} states of {size} bytes"),
                             states)
                buf = pending + chunk if pending else chunk
                end = len(buf) - len(buf) % size
                for lo, hi in shard_ranges(count, end // size, shard) if checked else ():
                    last = prev if lo == 0 else buf[(lo - 1) * size:lo * size]
                    for j in range(lo, hi):
                        rec = buf[j * size:(j + 1) * size]
                        if rec <= last:
                            raise _at(bad(f"records are not sorted and distinct (record {count + j + 1})"), count + j)
                        why = problem(rec)
                        if why is not None:
                            raise _at(bad(f"record {count + j + 1} is not a position ({why})"), count + j)
                        if keep is True:
                            records.append(rec)
                        last = rec
                if end:
                    count += end // size
                    prev = buf[end - size:end]
                if joined is not None:
                    joined += buf[:end]
                if feed is not None and end:
                    feed(buf[:end])
                pending = buf[end:]
                if d.eof or (not chunk and not data):
                    break
            if d.eof:
                break
    except zlib.error:
        raise _at(bad("body does not decompress (the file is damaged)"), produced // size) from None
    if not d.eof:
        raise _at(bad("body is truncated (the file is damaged)"), produced // size)
    if d.unused_data or any(pieces):
        raise _at(bad("bytes after the end of the compressed body"), produced // size)
    if produced != limit:
        raise _at(bad(f"body holds {produced} bytes, expected {states} states of {size} bytes"), produced // size)
    return joined if joined is not None else records if keep else states


class _FileBody:
    """The body of a certificate file, left on disk: its place in the open file."""

    def __init__(self, f, offset, length):
        self.f, self.offset, self.length = f, offset, length

    def pieces(self):
        return _pieces_of(self.f, self.offset, self.length)


_SMALL = 1 << 20                # a body up to this size is read by _scan_top; a longer one is left on disk


def _scan_top(f, size):
    """The top map of a certificate file, read by hand with a body (or a version 3 body's piece) over _SMALL
    left on disk (a _FileBody): only the forms the writer uses (a map of str keys; str, int and bin values,
    the body a bin or a list of bins). None for anything else -- the caller then reads the file whole,
    whose decoder names the problem."""
    def need(n):
        b = f.read(n)
        if len(b) < n:
            raise EOFError
        return b

    def value(large_on_disk=False, list_ok=False):
        t = need(1)[0]
        if t <= 0x7F:
            return t
        if 0xA0 <= t <= 0xBF or t in (0xD9, 0xDA, 0xDB):
            n = t & 0x1F if t <= 0xBF else int.from_bytes(need({0xD9: 1, 0xDA: 2, 0xDB: 4}[t]), "big")
            return need(n).decode("utf-8")
        if t in (0xCC, 0xCD, 0xCE, 0xCF):
            return int.from_bytes(need(1 << (t - 0xCC)), "big")
        if t in (0xC4, 0xC5, 0xC6):
            n = int.from_bytes(need(1 << (t - 0xC4)), "big")
            if n <= _SMALL or not large_on_disk:
                if n > size:
                    raise EOFError
                return need(n)
            at = f.tell()
            if at + n > size:
                raise EOFError
            f.seek(n, 1)
            return _FileBody(f, at, n)
        if list_ok and (0x90 <= t <= 0x9F or t in (0xDC, 0xDD)):    # a version 3 body: its pieces
            n = t & 0x0F if t <= 0x9F else int.from_bytes(need(2 if t == 0xDC else 4), "big")
            pieces = [value(large_on_disk) for _ in range(n)]
            if not all(isinstance(p, (bytes, _FileBody)) for p in pieces):
                raise ValueError(t)
            return pieces
        raise ValueError(t)

    try:
        t = need(1)[0]
        if not 0x80 <= t <= 0x8F:
            return None
        pairs = []
        for _ in range(t & 0x0F):
            key = value()
            if not isinstance(key, str):
                return None
            pairs.append((key, value(key == "body", key == "body")))
        if f.tell() != size:
            return None
    except (EOFError, ValueError, UnicodeDecodeError):
        return None
    return _map_of(pairs)


def _checked_on_disk(f, bad):
    """The regular file ``f`` laid out as the writer lays it out: (its header, checked like ``read``'s --
    format, version, SHA-256, fields --, a function giving the body's pieces), the body left on disk. None
    for any other layout (the caller reads the file whole)."""
    top = _scan_top(f, os.fstat(f.fileno()).st_size)
    if top is None:
        return None
    return _check_top(top, bad), top["body"]


def _read_once(path: str, laid_out):
    """The certificate at ``path``, opened once: ``(laid_out(h, body, bad), None)`` for a regular file laid
    out as the writer lays it out (``h`` its checked header, ``body`` its body, still on disk), else
    ``(None, the whole Certificate)``: a FIFO or a device read as a stream (a second open would wait for a
    writer forever), another regular file read whole (refused above WHOLE_MAX)."""
    def bad(why):
        return FreecellError(f"{path}: {why}")

    not_a_directory(path)
    try:
        with open(path, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None, _read_stream(f, path)
            on_disk = _checked_on_disk(f, bad)
            if on_disk is not None:
                h, body = on_disk
                return laid_out(h, body, bad), None
            _not_too_big_to_read_whole(f, bad)
            f.seek(0)
            data = f.read()
    except OSError as e:
        raise FreecellError(f"cannot read certificate {path}: {e.strerror or e}") from None
    return None, decode(data, name=path)


def summarize(path: str, records: bool = True) -> Summary:
    """``certgen info``: the header, checked like ``read`` (format, version, SHA-256, header) and the
    records checked and counted in a streaming pass over the body, which stays on disk: memory flat in
    the number of states. ``records=False`` (``--header-only``): no pass over the records (a few seconds
    instead of about 1.5 hours at 10**9): the SHA-256 and the header are checked, the count is the header's
    claim (refused when the body's size cannot hold it). A file not laid out as the writer lays it out (or not a regular file) is read whole. The Summary's
    ``records_sha256`` is that of the records read (:func:`records_sha256`; None with ``records=False``)."""
    def counted(h, body, bad):
        digest = hashlib.sha256() if records else None
        if records:
            n = _inflate(body, h["states"], bad, keep=False, feed=digest and digest.update)
        else:
            _can_hold(body, h["states"], bad)
            n = h["states"]
        return Summary(source=h["source"], rules=h["rules"], start=h["start"], states=n, info=h["info"],
                       records_sha256=digest and digest.hexdigest())

    summary, cert = _read_once(path, counted)
    if cert is None:
        return summary
    whole = _summary_of(cert)
    whole.records_sha256 = records_sha256(cert.records)
    return whole


def read_joined(path: str) -> Tuple[Summary, bytearray]:
    """The certificate at ``path`` as its header (checked like ``read``'s: format, version, SHA-256, fields)
    and its records, checked like ``read``'s, as one bytearray of ``states × 64`` bytes, sorted and distinct
    (what the sampled reference check binary-searches: certgen/sampled.py). The body is inflated from disk
    when the file is laid out as the writer lays it out; anything else is read whole."""
    def joined(h, body, bad):
        return (Summary(source=h["source"], rules=h["rules"], start=h["start"], states=h["states"], info=h["info"]),
                _inflate(body, h["states"], bad, keep="joined"))

    got, cert = _read_once(path, joined)
    return got if cert is None else (_summary_of(cert), bytearray(b"".join(cert.records)))


def stream_records(path: str, feed, checked: bool = True, shard=None) -> Summary:
    """The certificate at ``path`` read like :func:`read_joined` (the same checks, the same refusals), its
    records given to ``feed`` a run at a time (bytes of whole records, in order, each run once it is checked)
    and kept nowhere: memory flat in the number of states (a file not laid out as the writer lays it out is
    read whole, as read_joined reads it). ``checked=False``: the records are not checked one by one (a second
    pass over records checked before, whose digest the caller compares: _inflate). ``shard``: the records one
    of several processes checks (_inflate; all of them in a file read whole). Returns its header."""
    def streamed(h, body, bad):
        _inflate(body, h["states"], bad, keep=False, feed=feed, checked=checked, shard=shard)
        return Summary(source=h["source"], rules=h["rules"], start=h["start"], states=h["states"], info=h["info"])

    got, cert = _read_once(path, streamed)
    if cert is None:
        return got
    if cert.records:
        feed(b"".join(cert.records))
    return _summary_of(cert)


# A regular file not laid out as the writer lays it out is read whole to name its fault; above this size it
# is refused at once instead (a damaged multi-gigabyte file would need twice its size in memory).
WHOLE_MAX = 256 << 20


def _not_too_big_to_read_whole(f, bad):
    size = os.fstat(f.fileno()).st_size
    if size > WHOLE_MAX:
        raise bad(f"not a readable certificate: its {size:,} bytes are not laid out as a certificate is written "
                  f"(damaged, truncated or another layout)")


def _summary_of(cert: Certificate) -> Summary:
    return Summary(source=cert.source, rules=cert.rules, start=cert.start, states=cert.states, info=cert.info)


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

    unpacker = msgpack.Unpacker(f, raw=False, strict_map_key=False, max_buffer_size=2 ** 32 - 1,
                                object_pairs_hook=_map_of)
    try:
        top = unpacker.unpack()
    except OSError:
        raise
    except Exception as e:
        raise bad(_unreadable(e)) from None
    if not isinstance(top, dict):
        raise bad("not a freecell-proof certificate (not a map)")
    try:
        unpacker.unpack()
    except msgpack.OutOfData:
        return _from_top(top, bad)
    except Exception:
        pass
    raise bad("bytes after the end of the certificate")

