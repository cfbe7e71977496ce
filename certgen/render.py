"""Render Lean files from certificates and winning lines (jinja2 templates in certgen/templates/).

What is rendered (see docs/TRUST.md for what each part means for trust):

  lean/FreeCell/Generated/<Stem>.lean        one module per certificate: the positions as a text
                                             literal, `certificate_ok` (native_decide) and the theorem
                                             `∀ s, Reachable rules start s → ¬ Won s`
  lean/FreeCell/Generated/Mutant<Stem>….lean a mutated certificate: `checkCert … = false`
  lean/FreeCell/Generated/Win<Stem>.lean     a winning line: `∃ s, Reachable rules start s ∧ Won s`
  <anywhere>/<Stem>.lean                     a standalone file holding Spec.lean verbatim (`lean F.lean`)
  lean/Audit.lean                            `#print axioms` for every generated theorem

The certificate text (one position per line, decoded in Lean by FreeCell.Decode):
  for each of the 8 columns: a digit k (0..9), then letters; the column is those cards (top card
  first) followed by the bottom k cards of the start position's same column; then, if there are
  free-cell cards, '|' and their letters (sorted by key). Card index i = (rank-1)*4 + suit is the
  letter 'A'+i for i < 26 and 'a'+(i-26) after. Foundations are not written: each suit's height is
  13 minus its cards in the columns and cells.

Every file is written atomically (a temporary file in the same folder, then os.replace).
"""
import hashlib
import os
import re
from typing import Dict, Iterable, List, Optional, Sequence

from solver.atomic import write_atomic
from solver import spec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
LEAN_SRC = os.path.join(ROOT, "lean")
GENERATED = os.path.join(LEAN_SRC, "FreeCell", "Generated")
AUDIT_FILE = os.path.join(LEAN_SRC, "Audit.lean")
SPEC_FILE = os.path.join(LEAN_SRC, "FreeCell", "Spec.lean")
CERT_FILE = os.path.join(LEAN_SRC, "FreeCell", "Cert.lean")
DECODE_FILE = os.path.join(LEAN_SRC, "FreeCell", "Decode.lean")
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


def encode_state(start: spec.State, s: spec.State) -> str:
    """One line of certificate text for `s`, relative to the start position `start`."""
    if len(s.cols) != 8 or len(start.cols) != 8:
        raise ValueError("a position has 8 columns")
    out = []
    for start_col, col in zip(start.cols, s.cols):
        k = _common_bottom(start_col, col)
        out.append(str(k) + "".join(card_letter(c) for c in col[:len(col) - k]))
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
    return "\n".join(sorted(encode_state(start, s) for s in states))


# -- Winning lines -------------------------------------------------------------------------------------

def move_indices(rules: spec.Rules, start: spec.State, path: Sequence[spec.State]) -> List[int]:
    """The indices into `spec.moves` (FreeCell.moves) of the steps of `path`, a list of positions
    each one move from the one before. `path` may begin with `start` itself or with its successor."""
    states = list(path)
    if states and states[0] == start:
        states = states[1:]
    out, s = [], start
    for n, t in enumerate(states, 1):
        succ = spec.moves(rules, s)
        try:
            out.append(succ.index(t))
        except ValueError:
            raise ValueError(f"step {n} of the line is not a legal move") from None
        s = t
    return out


def replay(rules: spec.Rules, start: spec.State, indices: Sequence[int]) -> Optional[spec.State]:
    """Python twin of FreeCell.replay."""
    s = start
    for i in indices:
        succ = spec.moves(rules, s)
        if not 0 <= i < len(succ):
            return None
        s = succ[i]
    return s


def check_win(rules: spec.Rules, start: spec.State, indices: Sequence[int]) -> bool:
    """Python twin of FreeCell.checkWin."""
    t = replay(rules, start, indices)
    return t is not None and spec.won(t)


# -- Names ---------------------------------------------------------------------------------------------

def rules_suffix(rules: spec.Rules) -> str:
    return (f"Cells{rules.cells}" if rules.cells != 4 else "") + \
           ("FoundationReturn" if rules.foundation_return else "")


def _camel(text: str) -> str:
    parts = re.split(r"[^A-Za-z0-9]+", text)
    out = "".join(p[:1].upper() + p[1:] for p in parts if p)
    return out or "Position"


def source_stem(source: Dict) -> str:
    """The part of a module name that says where the start came from."""
    kind = source.get("kind")
    if kind == "ms":
        return f"Deal{int(source['deal'])}"
    if kind == "code":
        return "Code" + hashlib.sha256(str(source.get("code", "")).encode()).hexdigest()[:10]
    name = os.path.splitext(os.path.basename(str(source.get("name") or "board")))[0]
    stem = _camel(name)
    return "Board" + (stem if stem[0].isalpha() else "X" + stem)


def stem_of(source: Dict, rules: spec.Rules) -> str:
    return source_stem(source) + rules_suffix(rules)


def _rules_from_dict(rules) -> spec.Rules:
    if isinstance(rules, spec.Rules):
        return rules
    return spec.Rules(cells=int(rules.get("cells", 4)), foundation_return=bool(rules.get("foundation_return")))


def module_stem(deal=None, source=None, args=None) -> str:
    """The module stem for a prove run, from the CLI's source (as certgen.cli passes it)."""
    from .certificate import source_from_header
    src = source_from_header({"deal": deal, "source": source})
    cells = getattr(args, "cells", None) if args is not None else None
    rules = spec.Rules(cells=4 if cells in (None, "") else int(cells),
                       foundation_return=bool(getattr(args, "foundation_return", False)))
    return stem_of(src, rules)


def mutation_stem(info: Dict) -> str:
    m = (info or {}).get("mutation") or {}
    kind = str(m.get("kind", "mutated"))
    stem = _camel(kind)
    if kind.startswith("random"):
        seed = m.get("seed", 0)
        stem += f"Seed{seed}" if isinstance(seed, int) and seed >= 0 else ""
    return stem


def cert_stem(cert, mutant: bool = False) -> str:
    stem = stem_of(cert.source, _rules_from_dict(cert.rules))
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


# -- Lean text -----------------------------------------------------------------------------------------

def rules_lean(rules: spec.Rules) -> str:
    """The rules as Lean writes them in a theorem statement."""
    if rules == spec.STANDARD:
        return "Rules.standard"
    fields = []
    if rules.cells != 4:
        fields.append(f"cells := {int(rules.cells)}")
    if rules.foundation_return:
        fields.append("foundationReturn := true")
    return "{ " + ", ".join(fields) + " }"


def rules_text(rules: spec.Rules) -> str:
    if rules == spec.STANDARD:
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


def comment_safe(text: str) -> str:
    """Text from a certificate's header as it may appear inside a Lean comment or docstring: one line of
    printable characters, with no comment delimiter (`-/`, `/-`) that could end or open one."""
    text = "".join(ch if ch.isprintable() else " " for ch in str(text))
    while "-/" in text or "/-" in text:
        text = text.replace("-/", "- /").replace("/-", "/ -")
    return text


def _title(deal: Optional[int], label: Optional[str]) -> str:
    if deal is not None:
        return f"Microsoft FreeCell deal #{int(deal)}"
    return f"The position {comment_safe(label)}" if label else "The position `start`"


def _strip_imports(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("import "))


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _env():
    import jinja2
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                              autoescape=False)


def render_text(template: str, **context) -> str:
    return _env().get_template(template).render(generator=GENERATOR, lean_version=LEAN_VERSION, **context)


# -- State-level rendering (no certificate file needed) -----------------------------------------------

def cert_context(states: Iterable[spec.State], start: spec.State, rules: spec.Rules = spec.STANDARD,
                 deal: Optional[int] = None, stem: Optional[str] = None, label: Optional[str] = None,
                 mutation: Optional[str] = None) -> Dict:
    """Everything the certificate templates (Deal, Mutant, Standalone) need."""
    states = list(states)
    if stem is None:
        source = {"kind": "ms", "deal": deal} if deal is not None else {"kind": "board", "name": label or "board"}
        stem = stem_of(source, rules)
    ctx = {
        "name": stem,
        "namespace": f"{MODULE_PREFIX}.{stem}",
        "module": f"{MODULE_PREFIX}.{stem}",
        "title": _title(deal, label),
        "rules_lean": rules_lean(rules),
        "rules_text": rules_text(rules),
        "theorem_name": theorem_short_name(deal),
        "state_count": len(states),
        "cert_text": cert_text(start, states),
        "mutant": mutation is not None,
        "mutation": mutation or "",
    }
    ctx.update(_start_context(start, deal))
    return ctx


def write_deal(states, start, rules=spec.STANDARD, deal=None, lean_dir=None, stem=None, label=None) -> str:
    ctx = cert_context(states, start, rules, deal, stem, label)
    path = os.path.join(lean_dir or GENERATED, ctx["name"] + ".lean")
    return write_atomic(path, render_text("Deal.lean.j2", **ctx))


def write_mutant(states, start, rules=spec.STANDARD, deal=None, lean_dir=None, stem=None, label=None,
                 mutation="mutated") -> str:
    ctx = cert_context(states, start, rules, deal, stem, label, mutation=mutation)
    path = os.path.join(lean_dir or GENERATED, ctx["name"] + ".lean")
    return write_atomic(path, render_text("Mutant.lean.j2", **ctx))


def standalone_text(ctx: Dict, file_name: str, lean_src: Optional[str] = None) -> str:
    src = lean_src or LEAN_SRC
    return render_text(
        "Standalone.lean.j2", file_name=file_name,
        spec_text=_read(os.path.join(src, "FreeCell", "Spec.lean")),
        cert_lean_text=_strip_imports(_read(os.path.join(src, "FreeCell", "Cert.lean"))),
        decode_lean_text=_strip_imports(_read(os.path.join(src, "FreeCell", "Decode.lean"))),
        **ctx)


def write_standalone(states, start, out_path, rules=spec.STANDARD, deal=None, stem=None, label=None,
                     mutation=None, lean_src=None) -> str:
    ctx = cert_context(states, start, rules, deal, stem, label, mutation=mutation)
    return write_atomic(out_path, standalone_text(ctx, os.path.basename(out_path), lean_src))


def win_context(indices: Sequence[int], start: spec.State, rules: spec.Rules = spec.STANDARD,
                deal: Optional[int] = None, stem: Optional[str] = None, label: Optional[str] = None,
                kernel: bool = False) -> Dict:
    indices = [int(i) for i in indices]
    if not check_win(rules, start, indices):
        raise ValueError("the move list does not replay to a won position under these rules")
    if stem is None:
        source = {"kind": "ms", "deal": deal} if deal is not None else {"kind": "board", "name": label or "board"}
        stem = "Win" + stem_of(source, rules)
    rows = [", ".join(str(i) for i in indices[k:k + SOLUTION_ROW]) for k in range(0, len(indices), SOLUTION_ROW)]
    ctx = {
        "name": stem,
        "namespace": f"{MODULE_PREFIX}.{stem}",
        "module": f"{MODULE_PREFIX}.{stem}",
        "title": _title(deal, label),
        "rules_lean": rules_lean(rules),
        "rules_text": rules_text(rules),
        "theorem_name": theorem_short_name(deal, "winnable"),
        "move_count": len(indices),
        "solution_rows": rows,
        "kernel": bool(kernel),
    }
    ctx.update(_start_context(start, deal))
    return ctx


def render_win(indices: Sequence[int], lean_dir: Optional[str] = None, *, rules: spec.Rules = spec.STANDARD,
               deal: Optional[int] = None, start: Optional[spec.State] = None, stem: Optional[str] = None,
               label: Optional[str] = None, kernel: bool = False) -> str:
    """Render the winnability module for a winning line given as move indices (see move_indices).
    `kernel=True` checks the line with `decide +kernel` (no compiler trusted, but slow: the kernel
    evaluates every `moves` along the line) instead of `native_decide`. Returns the path."""
    if start is None:
        if deal is None:
            raise ValueError("give a deal number or a start position")
        start = spec.ms_deal(deal)
    ctx = win_context(indices, start, rules, deal, stem, label, kernel)
    path = os.path.join(lean_dir or GENERATED, ctx["name"] + ".lean")
    return write_atomic(path, render_text("Win.lean.j2", **ctx))


# -- Certificate-level rendering (what certgen.cli calls) ---------------------------------------------

def _cert_inputs(cert):
    from .checker import from_p64, rules_of, start_of
    start = start_of(cert)  # regenerated from the deal number when there is one
    deal = int(cert.source["deal"]) if cert.source.get("kind") == "ms" else None
    states = [from_p64(rec) for rec in cert.records]
    label = cert.label() if deal is None else None
    return states, start, rules_of(cert), deal, label


def _mutation_text(cert) -> str:
    m = (cert.info or {}).get("mutation") or {}
    text = str(m.get("kind", "unknown"))
    if text.startswith("random"):
        text += f", seed {m.get('seed', 0)}"
    return comment_safe(text)


def render_deal(cert, lean_dir: Optional[str] = None) -> str:
    """Render a certificate's module into lean_dir (default lean/FreeCell/Generated). Returns the path."""
    states, start, rules, deal, label = _cert_inputs(cert)
    return write_deal(states, start, rules, deal, lean_dir, cert_stem(cert), label)


def render_mutant(cert, lean_dir: Optional[str] = None) -> str:
    """Render the module expecting `checkCert … = false` for a mutated certificate."""
    states, start, rules, deal, label = _cert_inputs(cert)
    return write_mutant(states, start, rules, deal, lean_dir, cert_stem(cert, mutant=True), label,
                        mutation=_mutation_text(cert))


def render_standalone(cert, out_path: str, mutant: bool = False) -> str:
    """Render one self-contained .lean file (spec, check, decoder, data, theorem) at out_path."""
    states, start, rules, deal, label = _cert_inputs(cert)
    return write_standalone(states, start, out_path, rules, deal, cert_stem(cert, mutant), label,
                            mutation=_mutation_text(cert) if mutant else None)


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
