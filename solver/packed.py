"""P64: the 64-byte packed form of a position, shared by the C core, certificates and Python.

For columns 0..7 in order: the column's cards bottom to top, each as one byte (card index + 1), then a
0x00 terminator; then the free-cell cards in ascending order as (card index + 1); then 0x00 up to 64
bytes. Foundation heights are not stored: for each suit they are the number of its cards that are in
no column and no cell. Equal positions have equal bytes. (52 cards + 8 terminators = 60 bytes at most.)
"""
from .errors import FreecellError

SIZE = 64


def pack(pos) -> bytes:
    cols, cells, _home = pos
    out = bytearray()
    for col in cols:
        out += bytes(c + 1 for c in col)
        out.append(0)
    out += bytes(c + 1 for c in sorted(cells))
    if len(out) > SIZE:
        raise FreecellError("position does not fit in 64 bytes")
    return bytes(out) + bytes(SIZE - len(out))


def unpack(rec: bytes):
    """The Position tuple (cols bottom to top, sorted cells, home) of a P64 record."""
    if len(rec) != SIZE:
        raise FreecellError(f"packed position has {len(rec)} bytes, expected {SIZE}")
    cols, pos = [], 0
    for _ in range(8):
        end = rec.index(0, pos)
        cols.append(tuple(b - 1 for b in rec[pos:end]))
        pos = end + 1
    cells = tuple(b - 1 for b in rec[pos:].rstrip(b"\0"))
    if 0 in rec[pos:].rstrip(b"\0"):
        raise FreecellError("packed position: a gap in the free cells")
    counts = [13, 13, 13, 13]
    seen = set()
    for c in [c for col in cols for c in col] + list(cells):
        if not 0 <= c < 52 or c in seen:
            raise FreecellError("packed position: a card is out of range or appears twice")
        seen.add(c)
        counts[c % 4] -= 1
    return tuple(cols), cells, tuple(counts)
