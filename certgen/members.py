"""A certificate's positions as spec States (solver/spec.py), decoded once: the checker checks them and the
renderer writes them, from the same list.

The start position is regenerated from the deal number or the deal code when the header names one (never
taken on trust: a header whose start differs is a :class:`StartMismatch`). The records were checked to be
positions by the certificate reader (certgen/certificate.py) as they were inflated.

The decoded positions are :class:`State` values: spec States in every respect (a subclass; equality and
hashing are the tuple's, so a State equals the spec.State of the same position) but for one thing, the
structure update ``_replace`` (what spec.moves uses for Lean's ``{ s with … }``), written out here for
the three fields, since the generic one of ``typing.NamedTuple`` is a fifth of the checker's time.
tests/certgen/test_checker.py compares ``spec.moves`` on both kinds.
"""
from dataclasses import dataclass
from typing import List, Optional

from solver import packed, siggysoft, spec
from solver.errors import FreecellError
from solver.progress import bar
from solver.rules import Rules

from .certificate import Certificate

_SUIT_OF_BYTE = bytes.maketrans(bytes(range(1, 53)), bytes((i % 4) + 1 for i in range(52)))


class State(spec.State):
    """A spec.State with a direct structure update (see the module docstring)."""
    __slots__ = ()

    def _replace(self, cols=None, cells=None, home=None):
        return tuple.__new__(State, (self[0] if cols is None else cols, self[1] if cells is None else cells,
                                     self[2] if home is None else home))


class StartMismatch(FreecellError, ValueError):
    """The header's start position is not the deal it names (check: invalid; mutate, render: exit 2)."""


def rules_of(cert: Certificate) -> Rules:
    return Rules.from_dict(cert.rules)


def deal_of(cert: Certificate) -> Optional[int]:
    """The Microsoft deal number the header names, or None."""
    return int(cert.source["deal"]) if cert.source.get("kind") == "ms" else None


def start_of(cert: Certificate) -> spec.State:
    """The start position, regenerated from the deal number or the deal code when there is one (not
    taken on trust): a header whose source does not generate its start is refused."""
    header_start = spec.from_position(packed.unpack(cert.start))
    src = cert.source
    deal = deal_of(cert)
    if deal is not None and spec.ms_deal(deal) != header_start:
        raise StartMismatch(f"the header's start position is not msDeal {deal}")
    if "code" in src:
        try:
            dc = siggysoft.parse_code(src["code"])
        except FreecellError as e:
            raise StartMismatch(f"the header's deal code is not one: {e}") from None
        if spec.from_position(dc.position) != header_start or \
                (deal is not None and (dc.kind, dc.number) != ("C", deal)):
            raise StartMismatch(f"the header's start position is not the one of the deal code {src['code']}")
        if dc.cells != cert.rules["cells"]:
            raise StartMismatch(f"the header's rules have {cert.rules['cells']} free cells, its deal code "
                                f"{src['code']} says cells={dc.cells}")
    return header_start


class _Memo(dict):
    """A dict that fills itself: ``memo[key]`` computes ``make(key)`` once."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        value = self[key] = self.make(key)
        return value


def _column(p: bytes):
    """A column's P64 bytes (bottom to top, card index + 1) as spec Cards, top card first."""
    return tuple(spec.CARDS[b - 1] for b in reversed(p) if 0 < b <= 52)


def _cells(tail: bytes):
    return tuple(sorted((spec.CARDS[b - 1] for b in tail.rstrip(b"\0") if 0 < b <= 52), key=spec.key))


class Decoder:
    """P64 records -> spec States. Columns repeat from position to position, so each distinct column (and
    set of free cells) is turned into cards once, and equal columns of different States are one object."""

    def __init__(self):
        self._cols = _Memo(_column)
        self._cells = _Memo(_cells)

    def state(self, rec: bytes) -> spec.State:
        parts = rec.split(b"\0", 8)
        suits = rec.translate(_SUIT_OF_BYTE)
        home = (13 - suits.count(1), 13 - suits.count(2), 13 - suits.count(3), 13 - suits.count(4))
        cells = self._cells[parts[8]] if len(parts) > 8 else ()
        return tuple.__new__(State, (tuple(map(self._cols.__getitem__, parts[:8])), cells, home))


@dataclass
class Members:
    rules: Rules
    start: spec.State
    states: List[spec.State]       # in the certificate's record order
    deal: Optional[int]            # the Microsoft deal number, or None (the start is then written out)


def decode(cert: Certificate, progress: bool = False) -> Members:
    """The certificate's rules, start (checked against the deal it names) and positions."""
    start = start_of(cert)
    d = Decoder()
    states = []
    step = 1 << 14
    with bar(progress and cert.states > 4 * step, total=cert.states, unit=" states", desc="decode") as b:
        for i in range(0, cert.states, step):
            states.extend(d.state(rec) for rec in cert.records[i:i + step])
            b.update(min(step, cert.states - i))
    return Members(rules_of(cert), start, states, deal_of(cert))
