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


_BELOW_KINGS = (1 << 48) - 1     # mask bits of the cards of rank 1..12 (bit i: card index i)


def _mask(seg: bytes) -> int:
    """The cards of a column (or of the free cells) as a bit mask; -1 for a byte that is no card or a
    card twice."""
    m = 0
    for b in seg:
        bit = 1 << (b - 1) if 1 <= b <= 52 else 0
        if not bit or m & bit:
            return -1
        m |= bit
    return m


def validator():
    """A function ``problem(rec)`` for many records: None when ``rec`` is the P64 record of a valid
    position, else a few words saying what is wrong (fewer than 8 column ends, a byte that is no card,
    a card twice, free cells with a gap or out of order, or a card in play above a card already on its
    foundation -- the heights are derived, so the missing cards of a suit must be its lowest). Columns
    repeat across the records of a certificate, so their card masks are cached (per validator)."""
    masks = {}

    def problem(rec: bytes):
        if len(rec) != SIZE:
            return f"{len(rec)} bytes, expected {SIZE}"
        parts = rec.split(b"\0", 8)
        if len(parts) < 9:
            return "fewer than 8 column ends"
        cells = parts[8] = parts[8].rstrip(b"\0")
        if b"\0" in cells:
            return "a gap in the free cells"
        mask = 0
        for seg in parts:
            m = masks.get(seg)
            if m is None:
                m = masks[seg] = _mask(seg)
            if m < 0 or mask & m:
                return "a byte that is no card, or a card twice"
            mask |= m
        if len(cells) > 1 and (len(cells) > 8 or cells != bytes(sorted(cells))):
            return "more than 8 free cells, or free cells out of order"
        if ((mask & _BELOW_KINGS) << 4) & ~mask:
            return "a card in play above a card of its suit on the foundation"
        return None

    return problem


def problem(rec: bytes):
    """What is wrong with one P64 record (None: nothing); see :func:`validator`."""
    return validator()(rec)


def unpack(rec: bytes):
    """The Position tuple (cols bottom to top, sorted cells, home) of a P64 record; a one-line
    FreecellError for a record that is not a valid position."""
    why = problem(rec)
    if why is not None:
        raise FreecellError(f"packed position: {why}")
    parts = rec.split(b"\0", 8)
    cols = tuple(tuple(b - 1 for b in p) for p in parts[:8])
    cells = tuple(b - 1 for b in parts[8].rstrip(b"\0"))
    counts = [13, 13, 13, 13]
    for b in rec.replace(b"\0", b""):
        counts[(b - 1) % 4] -= 1
    return cols, cells, tuple(counts)
