"""Where a start position comes from: a Microsoft deal number, a board file (or stdin), a SiggySoft deal
code. One value that knows its position, its name for people, the rules it prescribes, and the file stem
its outputs are written under (certificates, Lean modules, standalone files), so that two different
starts never share an output name:

    Deal11982                 --deal 11982 (and the code SOL1-freecell-cells=4-C11982: the same start)
    Deal11982Cells5           the same deal with 5 free cells
    CodeN1Cells1              SOL1-freecell-cells=1-N1 (a code's cells=K is in the stem through the rules)
    CodeS1a2b3c4d             an -S<seed> code: 8 hex digits of the SHA-256 of the seed's text
    Board1a2b3c4dFoundationReturn
                              a board (a file or stdin): 8 hex digits of the SHA-256 of its P64 record

Sources are read once (a board on stdin can be read only once). ``to_header()`` / ``from_header()`` are
the certificate header's ``source`` map (docs/CERTIFICATE.md).
"""
from . import deals
from .board import read_board_arg
from .errors import FreecellError
from .packed import pack
from .rules import Rules

_FIELDS = ("kind", "position", "deal", "code", "path", "cells")


class Source:
    """``kind``: "ms", "code" or "board"; ``position``: the start Position (cols, cells, home); ``deal``:
    the Microsoft deal number (a deal, or a -C<n> code); ``code``: the canonical deal code; ``path``: the
    board file ("-": stdin); ``cells``: the free cells the source prescribes (a code's cells=K);
    ``extra``: more for --json (order, seed). A frozen value: equal starts from equal sources are equal."""
    __slots__ = _FIELDS + ("extra",)

    def __init__(self, kind, position, deal=None, code=None, path=None, cells=None, extra=None):
        for name, value in zip(self.__slots__, (kind, position, deal, code, path, cells, extra or {})):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError("a Source is a value: make a new one")

    def _key(self):
        return tuple(getattr(self, f) for f in _FIELDS)

    def __eq__(self, other):
        return isinstance(other, Source) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"Source({self.kind!r}, {self.tag!r})"

    # -- names ------------------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """For people: "deal 11982", "board FILE", "board from stdin", or the code."""
        if self.deal is not None:
            return f"deal {self.deal}"
        if self.kind == "board":
            return "board from stdin" if self.path == "-" else f"board {self.path}"
        return self.code

    @property
    def tag(self) -> str:
        """For machines (--json "source"): "ms:11982", "board:FILE", "board:-", or the code."""
        if self.code is not None:
            return self.code
        return f"ms:{self.deal}" if self.kind == "ms" else f"board:{self.path}"

    def stem(self, rules: Rules) -> str:
        """The file stem of this start's outputs under ``rules`` (spec rules only); see the module doc."""
        import hashlib          # not on `python -m solver deal`'s start-up path
        if self.deal is not None:
            head = f"Deal{self.deal}"
        elif self.kind == "code":
            part = self.code.rsplit("-", 1)[-1]           # N<n> or S<seed>
            head = "Code" + (part if part[0] == "N" else "S" + hashlib.sha256(part.encode()).hexdigest()[:8])
        else:
            head = "Board" + hashlib.sha256(pack(self.position)).hexdigest()[:8]
        return head + rules.stem()

    # -- rules ------------------------------------------------------------------------------------------

    def rules(self, cells=None, foundation_return: bool = False, autoplay: str = "none",
              canonical: bool = False, supermoves: bool = False, hand: int = 0) -> Rules:
        """The rules: ``cells`` as asked, else the source's own (a code's cells=K), else 4; they must agree,
        and the position's free-cell cards must fit."""
        if cells is not None and self.cells is not None and cells != self.cells:
            raise FreecellError(f"--cells {cells} contradicts the deal code's cells={self.cells}")
        if cells is None:
            cells = self.cells if self.cells is not None else 4
        used = len(self.position[1])
        if used > cells:
            card_s = "card" if used == 1 else "cards"
            raise FreecellError(f"the position has {used} {card_s} in the free cells but the rules have {cells} "
                                f"(use --cells {used} or more)")
        return Rules(cells=cells, foundation_return=foundation_return, autoplay=autoplay, canonical=canonical,
                     supermoves=supermoves, hand=hand)

    # -- the certificate header's form -------------------------------------------------------------------

    def to_header(self) -> dict:
        if self.deal is not None:
            out = {"kind": "ms", "deal": self.deal}
            if self.code is not None:
                out["code"] = self.code
            return out
        if self.kind == "code":
            return {"kind": "code", "code": self.code}
        return {"kind": "board", "name": self.path}

    @classmethod
    def from_header(cls, header: dict, position) -> "Source":
        """The source a certificate header names, with the header's start position."""
        kind = header.get("kind")
        if kind == "ms":
            return cls("ms", position, deal=int(header["deal"]), code=header.get("code"))
        if kind == "code":
            return cls("code", position, code=str(header.get("code", "")))
        return cls("board", position, path=str(header.get("name") or "board"))


def load(deal=None, board=None, code=None) -> Source:
    """The :class:`Source` for exactly one of a deal number (raw text or int), a board file and a code."""
    if sum(x is not None for x in (deal, board, code)) != 1:
        raise FreecellError("give exactly one of a deal number, --board FILE or --code CODE")
    if deal is not None:
        n = deals.parse_deal_number(deal)
        order = deals.deal_order(n)
        return Source("ms", deals.position_from_order(order), deal=n, extra={"order": order})
    if board is not None:
        return Source("board", read_board_arg(board), path=board)
    from . import games, siggysoft  # hashlib and the SHA-512 stream: only for codes
    dc = games.freecell_code(code)
    extra = {"order": deals.deal_order(dc.number)} if dc.seed is None else \
        {"seed": dc.seed.hex(), "order": siggysoft.shuffle(dc.seed)}
    if dc.kind == "C":
        return Source("ms", dc.position, deal=dc.number, code=dc.code, cells=dc.cells, extra=extra)
    return Source("code", dc.position, code=dc.code, cells=dc.cells, extra=extra)
