"""Render Lean files from certificates and winning lines (jinja2 templates in certgen/templates/).

What is rendered (see docs/TRUST.md for what each part means for trust):

  lean/FreeCell/Generated/<Stem>.lean        one module per certificate: the positions as a text
                                             literal, `certificate_ok` (native_decide) and the theorem
                                             `∀ s, Reachable rules start s → ¬ Won s`
  lean/FreeCell/Generated/Mutant<Stem>….lean a mutated certificate: `checkCert … = false`
  lean/FreeCell/Generated/Win<Stem>.lean     a winning line: `∃ s, Reachable rules start s ∧ Won s`
  <anywhere>/<Stem>.lean                     a standalone file holding Spec.lean verbatim (`lean F.lean`)
  lean/Audit.lean                            `#print axioms` for every generated theorem

File names come from the start's Source (solver/source.py: Deal11982, CodeN1Cells1, Board1a2b3c4d, ...),
so a certificate, its module and its standalone file always agree.

The certificate text (one position per line, decoded in Lean by FreeCell.Decode):
  for each of the 8 columns: a digit k (0..9), then letters; the column is those cards (top card
  first) followed by the bottom k cards of the start position's same column; then, if there are
  free-cell cards, '|' and their letters (sorted by key). Card index i = (rank-1)*4 + suit is the
  letter 'A'+i for i < 26 and 'a'+(i-26) after. Foundations are not written: each suit's height is
  13 minus its cards in the columns and cells.

Every file is written atomically (solver/atomic.py).
"""
import os
import re
from typing import Dict, Iterable, List, Optional, Sequence

import jinja2

from solver import packed, spec
from solver.atomic import write_atomic
from solver.lines import check_win
from solver.rules import STANDARD, Rules
from solver.source import Source

from .members import Members, decode
from .paths import AUDIT_FILE, CERT_LEAN, DECODE_LEAN, GENERATED, SPEC_LEAN, TEMPLATES

LEAN_VERSION = "4.35.0"
GENERATOR = "freecell-proof certgen"
MODULE_PREFIX = "FreeCell.Generated"
SOLUTION_ROW = 20  # move indices per line in a rendered winning line

RANKS = "A23456789TJQK"
SUITS = "♣♦♥♠"


# -- Cards and the certificate text -------------------------------------------------------------------

def card_letter(c: spec.Card) -> str:
    i = spec.key(c)
    if not (1 <= c.rank <= 13 and 0 <= c.suit <= 3):
        raise ValueError(f"not a card: {c!r}")
    return chr(65 + i) if i < 26 else chr(97 + i - 26)


def card_of_letter(ch: str) -> spec.Card:
    """The card a letter stands for (FreeCell.cardOfChar)."""
    i = ord(ch) - 65 if ch.isupper() else ord(ch) - 97 + 26
    return spec.Card(i // 4 + 1, i % 4)


def card_label(c: spec.Card) -> str:
    return RANKS[c.rank - 1] + SUITS[c.suit]


def _common_bottom(start_col: Sequence, col: Sequence) -> int:
    """The largest k (at most 9) such that the bottom k cards of `col` are those of `start_col`."""
    k = 0
    while (k < 9 and k < len(col) and k < len(start_col)
           and col[len(col) - 1 - k] == start_col[len(start_col) - 1 - k]):
        k += 1
    return k


def _encode_column(start_col: Sequence, col: Sequence) -> str:
    k = _common_bottom(start_col, col)
    return str(k) + "".join(card_letter(c) for c in col[:len(col) - k])


def encode_state(start: spec.State, s: spec.State, memo: Optional[Dict] = None) -> str:
    """One line of certificate text for `s`, relative to the start position `start`. ``memo``: a dict
    kept over many calls with the same start (columns repeat from position to position)."""
    if len(s.cols) != 8 or len(start.cols) != 8:
        raise ValueError("a position has 8 columns")
    memo = {} if memo is None else memo
    out = []
    for i, col in enumerate(s.cols):
        part = memo.get((i, col))
        if part is None:
            part = memo[(i, col)] = _encode_column(start.cols[i], col)
        out.append(part)
    if s.cells:
        out.append("|" + "".join(card_letter(c) for c in s.cells))
    return "".join(out)


def _is_letter(ch: str) -> bool:  # Char.isAlpha: ASCII letters only
    return "A" <= ch <= "Z" or "a" <= ch <= "z"


def decode_state(start: spec.State, line: str) -> spec.State:
    """Python twin of FreeCell.decodeState, step for step (used to test the encoding; Lean decodes
    with its own, untrusted, decoder)."""
    cols, pos = [], 0
    for start_col in start.cols:               # decodeCols: one column per start column ...
        if pos >= len(line):                   # ... while the line lasts
            break
        k = max(ord(line[pos]) - 48, 0)        # d.toNat - 48 (Nat subtraction)
        pos += 1
        top = []
        while pos < len(line) and _is_letter(line[pos]):  # takeCards
            top.append(card_of_letter(line[pos]))
            pos += 1
        drop = max(len(start_col) - k, 0)      # start.drop (start.length - k)
        cols.append(tuple(top) + tuple(start_col[drop:]))
    cells = []
    for ch in line[pos + 1:]:                  # takeCards (rest.drop 1)
        if not _is_letter(ch):
            break
        cells.append(card_of_letter(ch))
    cards = [c for col in cols for c in col] + cells
    home = tuple(13 - sum(1 for c in cards if c.suit == k) for k in range(4))
    return spec.State(cols=tuple(cols), cells=tuple(cells), home=home)


def cert_text(start: spec.State, states: Iterable[spec.State]) -> str:
    """The certificate text: one line per position, sorted (the order does not matter)."""
    memo = {}
    return "\n".join(sorted(encode_state(start, s, memo) for s in states))


# -- Names ---------------------------------------------------------------------------------------------

def _camel(text: str) -> str:
    parts = re.split(r"[^A-Za-z0-9]+", text)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def default_stem(start: spec.State, rules: Rules, deal: Optional[int] = None) -> str:
    """The stem of a start given as a position (a Microsoft deal when ``deal`` is given)."""
    src = Source("ms", spec.to_position(start), deal=deal) if deal is not None else \
        Source("board", spec.to_position(start))
    return src.stem(rules)


def mutation_stem(info: Dict) -> str:
    m = (info or {}).get("mutation") or {}
    kind = str(m.get("kind", "mutated"))
    stem = _camel(kind) or "Mutated"
    if kind.startswith("random"):
        stem += f"Seed{int(m.get('seed', 0))}"
    return stem


def cert_stem(cert, mutant: bool = False) -> str:
    """The file stem of a certificate's outputs: its Source's (solver/source.py), from the header."""
    stem = Source.from_header(cert.source, packed.unpack(cert.start)).stem(Rules.from_dict(cert.rules))
    return f"Mutant{stem}{mutation_stem(cert.info)}" if mutant else stem


def module_name(cert, mutant: bool = False) -> str:
    """The Lean module (and `lake build` target) of a certificate's rendered module."""
    return f"{MODULE_PREFIX}.{cert_stem(cert, mutant)}"


def theorem_short_name(deal: Optional[int], kind: str = "unwinnable") -> str:
    return f"freecell_{deal}_{kind}" if deal is not None else f"position_{kind}"


def theorem_name(cert) -> str:
    """The full name of a certificate's theorem."""
    deal = int(cert.source["deal"]) if cert.source.get("kind") == "ms" else None
    return f"{module_name(cert)}.{theorem_short_name(deal)}"


def win_module(stem: str) -> str:
    """The Lean module (and `lake build` target) of a rendered winning line."""
    return f"{MODULE_PREFIX}.{stem}"


# -- Lean text -----------------------------------------------------------------------------------------

def rules_lean(rules: Rules) -> str:
    """The rules as Lean writes them in a theorem statement."""
    if rules == STANDARD:
        return "Rules.standard"
    fields = []
    if rules.cells != 4:
        fields.append(f"cells := {int(rules.cells)}")
    if rules.foundation_return:
        fields.append("foundationReturn := true")
    return "{ " + ", ".join(fields) + " }"


def rules_text(rules: Rules) -> str:
    if rules == STANDARD:
        return "the standard rules (4 free cells, nothing back from the foundations)"
    cells = f"{rules.cells} free cell" + ("" if rules.cells == 1 else "s")
    back = "foundation returns allowed" if rules.foundation_return else "nothing back from the foundations"
    return f"the rules with {cells} and {back}"


def _card_lean(c: spec.Card) -> str:
    return f"⟨{int(c.rank)}, {int(c.suit)}⟩"


def state_lean(s: spec.State) -> str:
    """A position written out card by card (the body of `def start : State :=`), one column a line,
    each with a comment naming its cards."""
    lines = ["  { cols := ["]
    for i, col in enumerate(s.cols):
        body = "[" + ", ".join(_card_lean(c) for c in col) + "]"
        close = "]," if i == len(s.cols) - 1 else ","
        names = " ".join(card_label(c) for c in col) or "empty"
        lines.append(f"      {body}{close}  -- column {i + 1}, top first: {names}")
    cells = "[" + ", ".join(_card_lean(c) for c in s.cells) + "]"
    cell_names = " ".join(card_label(c) for c in s.cells) or "none"
    lines.append(f"    cells := {cells},  -- free cells: {cell_names}")
    lines.append("    home := [" + ", ".join(str(int(h)) for h in s.home) + "] }")
    return "\n".join(lines)


def _start_context(start: spec.State, deal: Optional[int]) -> Dict:
    if deal is not None:
        if spec.ms_deal(deal) != start:
            raise ValueError(f"the start position is not msDeal {deal}")
        return {"start_lean": f"(msDeal {int(deal)})", "start_def": None}
    return {"start_lean": "start", "start_def": state_lean(start)}


def _title(deal: Optional[int], label: Optional[str]) -> str:
    if deal is not None:
        return f"Microsoft FreeCell deal #{int(deal)}"
    return f"The position {label}" if label else "The position `start`"


def _strip_imports(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("import "))


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _env():
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                              autoescape=False)


def render_text(template: str, **context) -> str:
    return _env().get_template(template).render(generator=GENERATOR, lean_version=LEAN_VERSION, **context)


# -- State-level rendering (no certificate file needed) -----------------------------------------------

def _names(stem: str, deal: Optional[int], label: Optional[str], rules: Rules, kind: str) -> Dict:
    """The context every template shares: names, title, rules, theorem name."""
    return {
        "name": stem,
        "namespace": f"{MODULE_PREFIX}.{stem}",
        "module": f"{MODULE_PREFIX}.{stem}",
        "title": _title(deal, label),
        "rules_lean": rules_lean(rules),
        "rules_text": rules_text(rules),
        "theorem_name": theorem_short_name(deal, kind),
    }


def cert_context(states: Iterable[spec.State], start: spec.State, rules: Rules = STANDARD,
                 deal: Optional[int] = None, stem: Optional[str] = None, label: Optional[str] = None,
                 mutation: Optional[str] = None) -> Dict:
    """Everything the certificate templates (Deal, Mutant, Standalone) need; the certificate text is
    encoded here, once for every file rendered from the context."""
    states = list(states)
    ctx = _names(stem or default_stem(start, rules, deal), deal, label, rules, "unwinnable")
    ctx.update(state_count=len(states), cert_text=cert_text(start, states), mutant=mutation is not None,
               mutation=mutation or "")
    ctx.update(_start_context(start, deal))
    return ctx


def write_module(ctx: Dict, lean_dir: Optional[str] = None) -> str:
    """The Deal (or, for a mutant's context, Mutant) module of a certificate context. Returns the path."""
    path = os.path.join(lean_dir or GENERATED, ctx["name"] + ".lean")
    return write_atomic(path, render_text("Mutant.lean.j2" if ctx["mutant"] else "Deal.lean.j2", **ctx))


def write_deal(states, start, rules=STANDARD, deal=None, lean_dir=None, stem=None, label=None) -> str:
    return write_module(cert_context(states, start, rules, deal, stem, label), lean_dir)


def write_mutant(states, start, rules=STANDARD, deal=None, lean_dir=None, stem=None, label=None,
                 mutation="mutated") -> str:
    return write_module(cert_context(states, start, rules, deal, stem, label, mutation=mutation), lean_dir)


def standalone_text(ctx: Dict, file_name: str) -> str:
    return render_text(
        "Standalone.lean.j2", file_name=file_name, spec_text=_read(SPEC_LEAN),
        cert_lean_text=_strip_imports(_read(CERT_LEAN)), decode_lean_text=_strip_imports(_read(DECODE_LEAN)),
        **ctx)


def write_standalone_ctx(ctx: Dict, out_path: str) -> str:
    return write_atomic(out_path, standalone_text(ctx, os.path.basename(out_path)))


def write_standalone(states, start, out_path, rules=STANDARD, deal=None, stem=None, label=None,
                     mutation=None) -> str:
    return write_standalone_ctx(cert_context(states, start, rules, deal, stem, label, mutation=mutation), out_path)


def win_context(indices: Sequence[int], start: spec.State, rules: Rules = STANDARD,
                deal: Optional[int] = None, stem: Optional[str] = None, label: Optional[str] = None,
                kernel: bool = False) -> Dict:
    indices = [int(i) for i in indices]
    if not check_win(rules.spec(), start, indices):
        raise ValueError("the move list does not replay to a won position under these rules")
    rows = [", ".join(str(i) for i in indices[k:k + SOLUTION_ROW]) for k in range(0, len(indices), SOLUTION_ROW)]
    ctx = _names(stem or "Win" + default_stem(start, rules, deal), deal, label, rules, "winnable")
    ctx.update(move_count=len(indices), solution_rows=rows, kernel=bool(kernel))
    ctx.update(_start_context(start, deal))
    return ctx


def render_win(indices: Sequence[int], lean_dir: Optional[str] = None, *, rules: Rules = STANDARD,
               deal: Optional[int] = None, start: Optional[spec.State] = None, stem: Optional[str] = None,
               label: Optional[str] = None, kernel: bool = False) -> str:
    """Render the winnability module for a winning line given as move indices (solver.lines.step_indices).
    `kernel=True` checks the line with `decide +kernel` (no compiler trusted, but slow: the kernel
    evaluates every `moves` along the line) instead of `native_decide`. Returns the path."""
    if start is None:
        if deal is None:
            raise ValueError("give a deal number or a start position")
        start = spec.ms_deal(deal)
    ctx = win_context(indices, start, rules, deal, stem, label, kernel)
    path = os.path.join(lean_dir or GENERATED, ctx["name"] + ".lean")
    return write_atomic(path, render_text("Win.lean.j2", **ctx))


# -- Certificate-level rendering (what certgen.prove calls) -------------------------------------------

def mutation_text(cert) -> str:
    m = (cert.info or {}).get("mutation") or {}
    text = str(m.get("kind", "unknown"))
    if text.startswith("random"):
        text += f", seed {m.get('seed', 0)}"
    return text


def certificate_context(cert, mutant: bool = False, members: Optional[Members] = None) -> Dict:
    """The template context of a certificate (its positions decoded once: certgen/members.py)."""
    m = members if members is not None else decode(cert)
    label = cert.label() if m.deal is None else None
    return cert_context(m.states, m.start, m.rules, m.deal, cert_stem(cert, mutant), label,
                        mutation=mutation_text(cert) if mutant else None)


def render_certificate(cert, lean_dir: Optional[str] = None, standalone: Optional[str] = None,
                       mutant: bool = False, members: Optional[Members] = None) -> List[str]:
    """The module (lean_dir, default lean/FreeCell/Generated) and, with ``standalone``, one self-contained
    .lean file, from one context: the certificate text is encoded once. Returns the paths."""
    ctx = certificate_context(cert, mutant, members)
    paths = [write_module(ctx, lean_dir)]
    if standalone:
        paths.append(write_standalone_ctx(ctx, standalone))
    return paths


def render_deal(cert, lean_dir: Optional[str] = None) -> str:
    """Render a certificate's module into lean_dir (default lean/FreeCell/Generated). Returns the path."""
    return render_certificate(cert, lean_dir)[0]


def render_mutant(cert, lean_dir: Optional[str] = None) -> str:
    """Render the module expecting `checkCert … = false` for a mutated certificate."""
    return render_certificate(cert, lean_dir, mutant=True)[0]


def render_standalone(cert, out_path: str, mutant: bool = False) -> str:
    """Render one self-contained .lean file (spec, check, decoder, data, theorem) at out_path."""
    return write_standalone_ctx(certificate_context(cert, mutant), out_path)


# -- Audit ---------------------------------------------------------------------------------------------

GENERATED_MARK = "-- Generated by certgen/render.py ("
AUDIT_MARK = re.compile(r"^-- audit: (\S+)\s*$", re.M)
STANDARD_AXIOMS = ("propext", "Classical.choice", "Quot.sound")
NATIVE_AXIOM = re.compile(r"^\S+\._native\.native_decide\.ax_[0-9_]+$")


def render_audit(lean_dir: Optional[str] = None, out_path: Optional[str] = None) -> str:
    """Write lean/Audit.lean: `#print axioms` for every theorem marked `-- audit:` in the generated
    modules. Returns the path."""
    lean_dir = lean_dir or GENERATED
    modules, theorems = [], []
    names = sorted(n for n in os.listdir(lean_dir) if n.endswith(".lean")) if os.path.isdir(lean_dir) else []
    for n in names:
        text = _read(os.path.join(lean_dir, n))
        if not text.startswith(GENERATED_MARK):
            continue
        found = AUDIT_MARK.findall(text)
        if found:
            modules.append(f"{MODULE_PREFIX}.{n[:-len('.lean')]}")
            theorems.extend(found)
    return write_atomic(out_path or AUDIT_FILE,
                             render_text("Audit.lean.j2", modules=modules, theorems=theorems))


def check_axioms_output(text: str) -> Dict[str, List[str]]:
    """Read the output of `#print axioms` lines; return {theorem: [unexpected axioms]} for every
    theorem printed (an empty list: only the standard three and native_decide's own axioms)."""
    out = {}
    for m in re.finditer(r"'([^']+)' depends on axioms: \[([^\]]*)\]", text):
        axioms = [a.strip() for a in m.group(2).replace("\n", " ").split(",") if a.strip()]
        out[m.group(1)] = [a for a in axioms if a not in STANDARD_AXIOMS and not NATIVE_AXIOM.match(a)
                           and a != "Lean.ofReduceBool"]
    for m in re.finditer(r"'([^']+)' does not depend on any axioms", text):
        out[m.group(1)] = []
    return out
