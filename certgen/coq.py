"""The Coq text: a certificate (or a winning line) rendered as a Coq module, and the driver that states its
theorem apart; certgen/coqcheck.py has `coqc` check them (and holds the library, coq/FreeCell/, to its pins).

What this module writes, with jinja2 (templates in certgen/templates/coq/, through
certgen/templating.py), into `<out>/coq/`:

  <Stem>.v        a certificate: its positions as arrays of primitive integers, `certificate_ok`
                  (`checkFast … = true`, evaluated by the kernel's virtual machine, `vm_compute`) and
                  the theorem `forall s, Reachable rules start s -> ~ Won s`.
                  A certificate up to column order (header rules `"column_order": true`): the same
                  theorem through `checkFastUpTo` and `unwinnable_of_fast_up_to_column_order`; with safe
                  automatic moves (`"autoplay": "safe"` beside it) through `checkFastAuto` and
                  `unwinnable_of_fast_auto` (the template DealAuto.v.j2)
  Mutant<…>.v     a mutated certificate: `checkFast … = false`
  Win<Stem>.v     a winning line: `exists s, Reachable rules start s /\\ Won s` by replaying move
                  indices into `moves` (the same indices the Lean module replays)
  check/<Stem>.v  the driver (templates/coq/Check.v.j2; no user text): the statement by full paths, the
                  rules and the start (a deal by number, any other start as a literal position) written
                  out, elaborated before the module is loaded; `Definition checked : statement := <module>.<theorem>` and
                  `Print Assumptions checked`. Only its report is read (coqcheck.parse_assumptions), and
                  "proven" is said only when the kernel accepted it and the report lists nothing but
                  the primitives of coqcheck.PRIMITIVE_SIGNATURES with exactly those types.

User text reaches the modules only through certgen.usertext.user_text, inside comments.

The data: each position is a run of 6-bit symbols, ten to a 63-bit integer (lowest bits first):
two symbols of mask (bit i: column i differs from the previous position's, bit 8: the free cells
do), then for each column that differs `d` (the start column's cards gone from its top), its cards
above the rest of the start column (top first, card key + 1) and a 0, then, if they differ, the
free-cell cards and a 0. The first position is relative to the start position (up to column order:
to the start with its columns in the checkers' order, `canon`, which most members keep). The positions are
cut into arrays of at most CHUNK_WORDS integers (one long array literal is much slower for Coq to
read). tests/certgen/test_coq.py's `decode_chunks` is the Python twin of `FreeCell.Decode.decodeCert`.
"""
import os
import re
from dataclasses import dataclass
from functools import partial
from typing import Dict, List, Optional, Sequence, Tuple

from solver import packed, spec
from solver.atomic import write_atomic
from solver.errors import FreecellError
from solver.lines import check_win
from solver.rules import Rules

from .certtext import common_bottom
from .columns import canon
from .members import _Memo, deal_of, start_of
from .names import (card_label, cert_stem, checked_stem, deal_start, default_stem, mutation_text, rules_text,
                    theorem_short_name)
from .templating import render_text as _render_template
from .usertext import user_text

CHUNK_WORDS = 4000
SYMBOLS_PER_WORD = 10
SOLUTION_ROW = 20

UNWINNABLE = "forall s, Reachable {r} {s} s -> ~ Won s"      # statements: {r} the rules, {s} the start
WINNABLE = "exists s, Reachable {r} {s} s /\\ Won s"

# The driver's last import (certgen/coqcheck.py PRIMITIVE_SIGNATURES: why)
PRIMITIVE_IMPORTS = "From Coq Require Import PrimInt63 PArray CarryType."


# -- The data: positions as 6-bit symbols in 63-bit integers ---------------------------------------------

def _parts(rec: bytes) -> List[bytes]:
    """A P64 record's 8 columns (bottom card first, each card as key + 1) and its free cells."""
    parts = rec.split(b"\0", 8)
    if len(parts) != 9:
        raise FreecellError("a certificate record does not hold 8 columns")
    parts[8] = parts[8].rstrip(b"\0")
    return parts


class _Symbols:
    """P64 records -> their symbols, each relative to the record before it and to the start's columns.
    Positions share most of their columns, so each distinct column (at its index) and set of free cells is
    turned into its symbols once."""

    def __init__(self, start_rec: bytes):
        self.prev = _parts(start_rec)
        self._cols = [_Memo(partial(_column_symbols, col)) for col in self.prev[:8]]
        self._cells = _Memo(lambda cells: _in_range([*cells, 0]))

    def record(self, rec: bytes) -> List[int]:
        """The symbols of ``rec``, relative to the previous record given (first: the start)."""
        parts, prev = _parts(rec), self.prev
        mask, body = 0, []
        for i in range(9):
            if parts[i] != prev[i]:
                mask |= 1 << i
                body += self._cols[i][parts[i]] if i < 8 else self._cells[parts[8]]
        self.prev = parts
        return [mask & 63, mask >> 6] + body


def _in_range(symbols: List[int]) -> List[int]:
    if any(x > 52 for x in symbols):
        raise FreecellError("a certificate record holds a card number out of range")
    return symbols


def _column_symbols(start_col: bytes, col: bytes) -> List[int]:
    """A column that differs from the previous position's: `d` (the start column's cards gone from its top),
    its cards above the rest of the start column (top first), 0. Both are P64 columns (bottom card first)."""
    k = common_bottom(start_col, col)
    return _in_range([len(start_col) - k, *col[k:][::-1], 0])


def pack_words(symbols: Sequence[int]) -> List[int]:
    """The symbols ten to an integer, lowest bits first (two at a time, then five pairs a word)."""
    s = list(symbols) + [0] * (-len(symbols) % SYMBOLS_PER_WORD)
    pairs = [a | b << 6 for a, b in zip(s[0::2], s[1::2])]
    return [a | b << 12 | c << 24 | d << 36 | e << 48 for a, b, c, d, e in zip(*(pairs[i::5] for i in range(5)))]


def chunks(start: spec.State, records: Sequence[bytes],
           chunk_words: int = CHUNK_WORDS) -> List[Tuple[int, List[int]]]:
    """The positions (P64 records) as (count, words) chunks: each a whole number of positions and at
    most `chunk_words` words (a position longer than that gets a chunk of its own)."""
    symbols = _Symbols(packed.pack(spec.to_position(start)))
    out, cur, count = [], [], 0
    limit = chunk_words * SYMBOLS_PER_WORD
    for rec in records:
        syms = symbols.record(rec)
        if count and len(cur) + len(syms) > limit:
            out.append((count, pack_words(cur)))
            cur, count = [], 0
        cur += syms
        count += 1
    if count:
        out.append((count, pack_words(cur)))
    return out


# -- Coq text ------------------------------------------------------------------------------------------

SPEC = "FreeCell.Spec"        # the trusted library's full path, as the driver names it


def rules_coq(rules) -> str:
    """The rules (solver.rules.Rules or spec.Rules) as a Coq term."""
    if (rules.cells, rules.foundation_return, rules.hand) == (4, False, 0):
        return "standard"
    return f"(rules {int(rules.cells)} {'true' if rules.foundation_return else 'false'} {int(rules.hand)})"


def _rules_context(rules) -> Dict:
    """How the templates write the rules: in the module, and by full path in the driver."""
    full = f"({SPEC}.rules {int(rules.cells)} {'true' if rules.foundation_return else 'false'} {int(rules.hand)})"
    return {"rules_coq": rules_coq(rules), "rules_full": full, "rules_text": rules_text(rules)}


def _card_coq(c: spec.Card, prefix: str = "") -> str:
    return f"{prefix}card {int(c.rank)} {int(c.suit)}"


def state_coq(s: spec.State) -> str:
    """A position written out card by card (the body of `Definition start : State :=`)."""
    lines = ["  state"]
    for i, col in enumerate(s.cols):
        body = "[" + "; ".join(_card_coq(c) for c in col) + "]"
        names = " ".join(card_label(c) for c in col) or "empty"
        lines.append(f"    {'[' if i == 0 else ' '}{body}{']' if i == len(s.cols) - 1 else ';'}"
                     f"  (* column {i + 1}, top first: {names} *)")
    cell_names = " ".join(card_label(c) for c in s.cells) or "none"
    lines.append("    [" + "; ".join(_card_coq(c) for c in s.cells) + f"]  (* free cells: {cell_names} *)")
    lines.append("    [" + "; ".join(str(int(h)) for h in s.home) + "]")
    return "\n".join(lines)


def state_literal(s: spec.State) -> str:
    """A position as the driver writes it: full paths and numbers, nothing else."""
    card = f"{SPEC}."
    cols = ";\n     ".join("[" + "; ".join(_card_coq(c, card) for c in col) + "]" for col in s.cols)
    cells = "; ".join(_card_coq(c, card) for c in s.cells)
    return f"({SPEC}.state\n    [{cols}]\n    [{cells}]\n    [{'; '.join(str(int(h)) for h in s.home)}])"


def _coq_start(start: spec.State, deal: Optional[int], label: Optional[str]) -> Dict:
    """How the templates name the start position: `(msDeal N)`, or `start` written out card by card;
    `start_full`: the driver's (a deal by its number, any other start as a literal position)."""
    if deal_start(start, deal) is None:
        return {"start_coq": "start", "start_def": state_coq(start), "start_full": state_literal(start),
                "title": f"The position {user_text(label or 'start')}"}
    return {"start_coq": f"(msDeal {int(deal)})", "start_def": None, "start_full": f"({SPEC}.msDeal {int(deal)}%N)",
            "title": f"Microsoft FreeCell deal #{int(deal)}"}


def render_text(template: str, **context) -> str:
    """A template of certgen/templates/coq/ (certgen/templating.py)."""
    return _render_template("coq/" + template, **context)


# -- From a certificate file ---------------------------------------------------------------------------

@dataclass
class CertInputs:
    start: spec.State
    records: List[bytes]
    rules: Rules
    deal: Optional[int]
    label: Optional[str]
    column_order: bool = False     # a certificate up to column order: checkCertUpTo
    autoplay: bool = False         # ... with safe automatic moves: checkCertAuto (CertAuto.v, DealAuto.v.j2)

    @property
    def reference(self) -> spec.State:
        """What the first position is written against (Decode.v's `decodeCert` start)."""
        return canon(self.start) if self.column_order else self.start


def cert_inputs(cert) -> CertInputs:
    """The start position (the header's, which must be the one of the deal or deal code it names:
    certgen.members.start_of), the positions (P64 records) and the rules of a certificate read by
    certgen.certificate.read."""
    header_start, deal = start_of(cert), deal_of(cert)
    rules = Rules.from_dict(cert.rules)         # the spec's rules, and column_order
    return CertInputs(header_start, list(cert.records), rules.plain(), deal,
                      None if deal is not None else cert.label(), rules.column_order,
                      rules.column_order and rules.autoplay == "safe")


def cert_context(inputs: CertInputs, stem: str, mutation: Optional[str] = None,
                 chunk_words: int = CHUNK_WORDS) -> Dict:
    data = chunks(inputs.reference, inputs.records, chunk_words)
    ctx = {
        "column_order": inputs.column_order,
        "check": "checkFastUpTo" if inputs.column_order else "checkFast",
        "name": checked_stem(stem),
        "theorem_name": theorem_short_name(inputs.deal),
        "state_count": len(inputs.records),
        "chunks": [{"count": n, "words": "; ".join(map(str, ws))} for n, ws in data],
        "word_count": sum(len(ws) for _, ws in data),
        "mutant": mutation is not None,
        "mutation": mutation or "",
    }
    ctx.update(_rules_context(inputs.rules))
    ctx.update(_coq_start(inputs.start, inputs.deal, inputs.label))
    ctx["reference_coq"] = (f"(fcanon (ofState {ctx['start_coq']}))" if inputs.column_order
                            else f"(ofState {ctx['start_coq']})")
    # Columns.v's 8-column hypothesis: a lemma for a deal, computed (`eq_refl`) for a written-out start
    ctx["eight_columns"] = f"(msDeal_8_columns {int(inputs.deal)})" if inputs.deal is not None else "eq_refl"
    return ctx


def coq_dir(out_dir: str) -> str:
    return os.path.join(os.path.abspath(out_dir), "coq")


def cert_module(cert, mutant: bool = False, chunk_words: int = CHUNK_WORDS,
                stem: Optional[str] = None) -> Tuple[str, Dict]:
    """The text of a certificate's Coq module (`mutant`: a file proving that the check says false) and its
    template context: what render_cert writes and audit_file compares."""
    inputs = cert_inputs(cert)
    ctx = cert_context(inputs, stem or cert_stem(cert, mutant=mutant),
                       mutation_text(cert) if mutant else None, chunk_words)
    return render_text("DealAuto.v.j2" if inputs.autoplay else "Deal.v.j2", **ctx), ctx


def render_cert(cert, out_dir: str, mutant: bool = False, chunk_words: int = CHUNK_WORDS,
                stem: Optional[str] = None) -> Tuple[str, Dict]:
    """Write <out_dir>/coq/<Stem>.v for a certificate (`mutant`: a file proving that the check says
    false). Returns the path and the template context."""
    text, ctx = cert_module(cert, mutant, chunk_words, stem)
    path = os.path.join(coq_dir(out_dir), ctx["name"] + ".v")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, text)
    return path, ctx


def render_win(indices: Sequence[int], start: spec.State, rules, out_dir: str,
               deal: Optional[int] = None, label: Optional[str] = None, stem: Optional[str] = None) -> Tuple[str, Dict]:
    """Write <out_dir>/coq/Win<Stem>.v for a winning line given as indices into `moves`
    (solver.lines.step_indices). Returns the path and the template context."""
    rules = Rules(rules.cells, rules.foundation_return)
    indices = [int(i) for i in indices]
    if not check_win(rules.spec(), start, indices):
        raise ValueError("the move list does not replay to a won position under these rules")
    ctx = {
        "name": checked_stem(stem or "Win" + default_stem(start, rules, deal)),
        "theorem_name": theorem_short_name(deal, "winnable"),
        "move_count": len(indices),
        "solution_rows": ["; ".join(str(i) for i in indices[k:k + SOLUTION_ROW])
                          for k in range(0, len(indices), SOLUTION_ROW)],
    }
    ctx.update(_rules_context(rules))
    ctx.update(_coq_start(start, deal, label))
    path = os.path.join(coq_dir(out_dir), ctx["name"] + ".v")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, render_text("Win.v.j2", **ctx))
    return path, ctx


# -- The driver: the statement, checked apart from the file that proves it (certgen/coqcheck.py) -------------

IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


def full_statement(statement: str, ctx: Dict) -> str:
    """A statement (``{r}``: the rules, ``{s}``: the start; naming Reachable and Won) as the driver writes it:
    every name of the spec by its full path, the rules and the start written out (ctx's `rules_full` and
    `start_full`: numbers only)."""
    text = re.sub(r"\b(Reachable|Won)\b", SPEC + r".\1", statement)
    return text.format(r=ctx["rules_full"], s=ctx["start_full"])


def driver_text(module: str, theorem: str, statement: str) -> str:
    """The driver (templates/coq/Check.v.j2) of ``module``'s ``theorem`` (identifiers only) and a statement
    by full paths."""
    for part in module.split(".") + [theorem]:
        if not IDENT.match(part):
            raise ValueError(f"not a Coq identifier: {part!r}")
    return render_text("Check.v.j2", module=module, theorem=theorem, statement=statement,
                       primitive_imports=PRIMITIVE_IMPORTS)


def driver_path(path: str) -> str:
    """Where the driver of the module at ``path`` (<out>/coq/<Stem>.v) goes: <out>/coq/check/<Stem>.v."""
    return os.path.join(os.path.dirname(os.path.abspath(path)), "check", os.path.basename(path))
