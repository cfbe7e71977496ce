"""The independent checker: the three fence conditions, decided by the Python transliteration of the
Lean spec (solver/spec.py), never by the C core.

  1. the start position is in the set;
  2. every successor (`spec.moves`) of every member is in the set;
  3. no member is won.

These are the conditions `checkCert` decides in Lean. The members are visited breadth-first from the
start position first (so a missing position is usually met early), then the members the start does not
reach; every member is checked exactly once, and the check stops at the first failure.
"""
from collections import deque
from dataclasses import dataclass
from typing import Optional

from solver import packed, spec
from solver.errors import FreecellError

from .certificate import Certificate


@dataclass
class CheckResult:
    ok: bool
    states: int
    checked: int                  # members whose successors were checked
    successors: int               # successor positions looked up
    failure: Optional[str] = None  # "start" | "successor" | "won" | "start-mismatch"
    message: str = ""
    missing: Optional[spec.State] = None
    parent: Optional[spec.State] = None
    won_state: Optional[spec.State] = None
    subject: str = ""             # what was checked: the start (deal, code or board digest) and the rules
    start: Optional[dict] = None  # the start for --json: {"deal": N} | {"code": …} | {"board": …}, "digest"
    rules: Optional[dict] = None


def rules_of(cert: Certificate) -> spec.Rules:
    return spec.Rules(cells=cert.rules["cells"], foundation_return=cert.rules["foundation_return"])


class StartMismatch(FreecellError, ValueError):
    """The header's start position is not the deal it names (check: invalid; mutate, render: exit 2)."""


def start_of(cert: Certificate) -> spec.State:
    """The start position, regenerated from the deal number or the deal code when there is one (not
    taken on trust): a header whose source does not generate its start is refused."""
    header_start = spec.from_position(packed.unpack(cert.start))
    src = cert.source
    if src.get("kind") == "ms":
        s0 = spec.ms_deal(int(src["deal"]))
        if s0 != header_start:
            raise StartMismatch(f"the header's start position is not msDeal {src['deal']}")
    if "code" in src:
        from solver import siggysoft
        try:
            dc = siggysoft.parse_code(src["code"])
        except FreecellError as e:
            raise StartMismatch(f"the header's deal code is not one: {e}") from None
        if spec.from_position(dc.position) != header_start or \
                (src.get("kind") == "ms" and (dc.kind, dc.number) != ("C", src["deal"])):
            raise StartMismatch(f"the header's start position is not the one of the deal code {src['code']}")
        if dc.cells != cert.rules["cells"]:
            raise StartMismatch(f"the header's rules have {cert.rules['cells']} free cells, its deal code "
                                f"{src['code']} says cells={dc.cells}")
    return header_start


def describe(s: spec.State) -> str:
    from solver.cards import card_name
    cols = " / ".join(" ".join(card_name(spec.key(c)) for c in reversed(col)) or "-" for col in s.cols)
    cells = " ".join(card_name(spec.key(c)) for c in s.cells) or "-"
    return f"[cols: {cols} | cells: {cells} | home: {' '.join(map(str, s.home))}]"


_SUIT_OF_BYTE = bytes.maketrans(bytes(range(1, 53)), bytes((i % 4) + 1 for i in range(52)))


def from_p64(rec: bytes) -> spec.State:
    """A P64 record as a spec State (the fast path of packed.unpack + spec.from_position, for records
    the certificate reader has already checked to be positions)."""
    parts = rec.split(b"\0", 8)
    cards = spec.CARDS
    cols = tuple(tuple(cards[b - 1] for b in reversed(p) if 0 < b <= 52) for p in parts[:8])
    cells_b = parts[8].rstrip(b"\0") if len(parts) > 8 else b""
    cells = tuple(sorted((cards[b - 1] for b in cells_b if 0 < b <= 52), key=spec.key))
    suits = rec.translate(_SUIT_OF_BYTE)
    home = tuple(13 - suits.count(k + 1) for k in range(4))
    return spec.State(cols, cells, home)


def check(cert: Certificate, progress: bool = False) -> CheckResult:
    r = rules_of(cert)
    n = cert.states
    named = {"subject": cert.subject(), "start": cert.start_json(), "rules": dict(cert.rules)}
    try:
        s0 = start_of(cert)
    except ValueError as e:
        return CheckResult(False, n, 0, 0, "start-mismatch", str(e), **named)
    members = {from_p64(rec) for rec in cert.records}
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=n, unit="states", desc="check", leave=False)
    try:
        if s0 not in members:
            return CheckResult(False, n, 0, 0, "start", "the start position is not in the certificate",
                               missing=s0, **named)
        visited = {s0}
        order = deque([s0])
        rest = iter(members)
        checked = looked = 0
        while True:
            if order:
                s = order.popleft()
            else:  # members the start does not reach must be closed too
                s = next((m for m in rest if m not in visited), None)
                if s is None:
                    break
                visited.add(s)
            if spec.won(s):
                return CheckResult(False, n, checked, looked, "won", "the certificate contains a won position",
                                   won_state=s, **named)
            for t in spec.moves(r, s):
                looked += 1
                if t not in members:
                    return CheckResult(False, n, checked, looked, "successor",
                                       "a successor of a member is not in the certificate", missing=t, parent=s,
                                       **named)
                if t not in visited:
                    visited.add(t)
                    order.append(t)
            checked += 1
            if bar is not None and checked % 4096 == 0:
                bar.update(4096)
        return CheckResult(True, n, checked, looked, None,
                           f"valid for {named['subject']}: {n:,} state{'' if n == 1 else 's'}; the start position is in the set, every "
                           f"one of the {looked:,} successors of its members is in it, and none of them is won",
                           **named)
    finally:
        if bar is not None:
            bar.close()


def report(res: CheckResult) -> str:
    """The checker's verdict in plain words, naming what was checked; one line (two for a missing
    successor)."""
    if res.ok:
        return res.message
    head = f"invalid for {res.subject}: " if res.subject else "invalid: "
    if res.failure == "successor":
        return (f"{head}{res.message}: missing {describe(res.missing)}\n"
                f"  reached in one move from the member {describe(res.parent)}")
    if res.failure == "won":
        return f"{head}{res.message}: {describe(res.won_state)}"
    if res.failure == "start":
        return f"{head}{res.message}: {describe(res.missing)}"
    return f"{head}{res.message}"
