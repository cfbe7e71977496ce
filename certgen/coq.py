"""The Coq text: a certificate (or a winning line) rendered as a Coq module, and the driver that states its
theorem apart; certgen/coqcheck.py has `coqc` check them (and holds the library, coq/FreeCell/, to its pins).

What this module writes, with jinja2 (templates in certgen/templates/coq/, through
certgen/templating.py), into `<out>/coq/`:

  <Stem>.v        a certificate's theorem, holding no positions: `search_ok` (`checkSearch hashKey rules
                  start = true`: coq/FreeCell/Search.v's search from the start, run by the kernel's virtual
                  machine, `vm_compute`, ends with every position reached expanded and none won) and the
                  theorem `forall s, Reachable rules start s -> ~ Won s` (`unwinnable_of_search`).
                  A certificate up to column order (header rules `"column_order": true`): the same search
                  with each position's columns put in order (`checkSearchUpTo`,
                  `unwinnable_of_search_up_to_column_order`); with safe automatic moves (`"autoplay": "safe"`
                  beside it) each position also after its safe automatic moves (`checkSearchAuto`,
                  `unwinnable_of_search_auto`). The certificate itself is checked by the fast checker before
                  (certgen/prove.py); of it the module keeps the start, the rules and, in a comment, how many
                  positions it holds
  Win<Stem>.v     a winning line: `exists s, Reachable rules start s /\\ Won s` by replaying move
                  indices into `moves` (the same indices the Lean module replays)
  check/<Stem>.v  the driver (templates/coq/Check.v.j2; no user text): the statement by full paths, the
                  rules and the start (a deal by number, any other start as a literal position) written
                  out, elaborated before the module is loaded; `Definition checked : statement := <module>.<theorem>` and
                  `Print Assumptions checked`. Only its report is read (coqcheck.parse_assumptions), and
                  "proven" is said only when the kernel accepted it and the report lists nothing but
                  the primitives of coqcheck.PRIMITIVE_SIGNATURES with exactly those types.

User text reaches the modules only through certgen.usertext.user_text, inside comments.
"""
import os
import re
from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

from solver import spec
from solver.atomic import write_atomic
from solver.lines import check_win
from solver.rules import Rules

from .members import deal_of, start_of
from .names import card_label, cert_stem, checked_stem, deal_start, default_stem, rules_text, theorem_short_name
from .templating import render_text as _render_template
from .usertext import user_text

SOLUTION_ROW = 20

UNWINNABLE = "forall s, Reachable {r} {s} s -> ~ Won s"      # statements: {r} the rules, {s} the start
WINNABLE = "exists s, Reachable {r} {s} s /\\ Won s"

# The driver's last import (certgen/coqcheck.py PRIMITIVE_SIGNATURES: why)
PRIMITIVE_IMPORTS = "From Coq Require Import PrimInt63 PArray CarryType."


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

# The three forms of the search (coq/FreeCell/Search.v): (its check, its theorem, whether the theorem takes
# Columns.v's 8-column hypothesis), by (column_order, autoplay)
FORMS = {
    (False, False): ("checkSearch", "unwinnable_of_search", False),
    (True, False): ("checkSearchUpTo", "unwinnable_of_search_up_to_column_order", True),
    (True, True): ("checkSearchAuto", "unwinnable_of_search_auto", False),
}


@dataclass
class CertInputs:
    start: spec.State
    state_count: int
    rules: Rules
    deal: Optional[int]
    label: Optional[str]
    column_order: bool = False     # a certificate up to column order: checkSearchUpTo
    autoplay: bool = False         # ... with safe automatic moves: checkSearchAuto


def cert_inputs(cert) -> CertInputs:
    """The start position (the header's, which must be the one of the deal or deal code it names:
    certgen.members.start_of), how many positions and the rules of a certificate read by
    certgen.certificate.read."""
    header_start, deal = start_of(cert), deal_of(cert)
    rules = Rules.from_dict(cert.rules)         # the spec's rules, and column_order
    return CertInputs(header_start, len(cert.records), rules.plain(), deal,
                      None if deal is not None else cert.label(), rules.column_order,
                      rules.column_order and rules.autoplay == "safe")


def cert_context(inputs: CertInputs, stem: str) -> Dict:
    check, theorem, eight = FORMS[inputs.column_order, inputs.autoplay]
    ctx = {
        "column_order": inputs.column_order,
        "autoplay": inputs.autoplay,
        "check": check,
        "theorem": theorem,
        "name": checked_stem(stem),
        "theorem_name": theorem_short_name(inputs.deal),
        "state_count": inputs.state_count,
    }
    ctx.update(_rules_context(inputs.rules))
    ctx.update(_coq_start(inputs.start, inputs.deal, inputs.label))
    # Columns.v's 8-column hypothesis: a lemma for a deal, computed (`eq_refl`) for a written-out start
    ctx["eight_columns"] = None if not eight else \
        f"(msDeal_8_columns {int(inputs.deal)})" if inputs.deal is not None else "eq_refl"
    return ctx


def coq_dir(out_dir: str) -> str:
    return os.path.join(os.path.abspath(out_dir), "coq")


def cert_module(cert, stem: Optional[str] = None) -> Tuple[str, Dict]:
    """The text of a certificate's Coq module and its template context: what render_cert writes and audit_file
    compares."""
    ctx = cert_context(cert_inputs(cert), stem or cert_stem(cert))
    return render_text("Deal.v.j2", **ctx), ctx


def render_cert(cert, out_dir: str, stem: Optional[str] = None) -> Tuple[str, Dict]:
    """Write <out_dir>/coq/<Stem>.v for a certificate. Returns the path and the template context."""
    text, ctx = cert_module(cert, stem)
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
