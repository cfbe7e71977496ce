"""The Coq check: render a certificate (or a winning line) as a Coq file and have `coqc` check it.

The Coq library is `coq/FreeCell/` (README, "Coq: the same theorem, checked here"): `Spec.v` (trusted, the twin of
lean/FreeCell/Spec.lean), `Cert.v` (`checkCert`, `cert_sound`, `replay`, all proved, no axiom),
`Decode.v` (untrusted: how the data below becomes positions, and the hash that files them),
`Columns.v` (proved, no axiom: moves commute with reordering the columns, the lemma behind enumerating
positions up to column order), `Autoplay.v` (proved, no axiom: playing a card home by the horne, safe or
twos rule never loses a win, without foundation returns; `unwinnable_of_autoplay_fence`,
`unwinnable_of_safe_autoplay_fence`, `unwinnable_of_twos_autoplay_fence` and their column-order forms, the
fences a search with automatic moves can use) and `CertUpTo.v` (proved, no axiom: `checkCertUpTo`, the check of a
certificate up to column order, and `unwinnable_of_cert_up_to_column_order`). It is compiled into `<out>/coq/lib/` (never
into the source tree) and reused while its sources and `coqc` are unchanged.

What this module writes, with jinja2 (templates in certgen/templates/coq/), into `<out>/coq/`:

  <Stem>.v        a certificate: its positions as arrays of primitive integers, `certificate_ok`
                  (`checkCert … = true`, evaluated by the kernel's virtual machine, `vm_compute`) and
                  the theorem `forall s, Reachable rules start s -> ~ Won s`; `Print Assumptions`.
                  A certificate up to column order (header rules `"column_order": true`): the same
                  theorem through `checkCertUpTo` and `unwinnable_of_cert_up_to_column_order`; with safe
                  automatic moves (`"autoplay": "safe"` beside it) through `CertAuto.v`'s `checkCertAuto` and
                  `unwinnable_of_cert_auto` (the template DealAuto.v.j2)
  Mutant<…>.v     a mutated certificate: `checkCert … = false`
  Win<Stem>.v     a winning line: `exists s, Reachable rules start s /\\ Won s` by replaying move
                  indices into `moves` (the same indices the Lean module replays)

The data: each position is a run of 6-bit symbols, ten to a 63-bit integer (lowest bits first):
two symbols of mask (bit i: column i differs from the previous position's, bit 8: the free cells
do), then for each column that differs `d` (the start column's cards gone from its top), its cards
above the rest of the start column (top first, card key + 1) and a 0, then, if they differ, the
free-cell cards and a 0. The first position is relative to the start position (up to column order:
to the start with its columns in the checkers' order, `canon`, which most members keep). The positions are
cut into arrays of at most CHUNK_WORDS integers (one long array literal is much slower for Coq to
read). `decode_chunks` is the Python twin of `FreeCell.Decode.decodeCert`.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from solver import packed, spec
from solver.atomic import write_atomic
from solver.errors import FreecellError
from solver.lines import check_win
from solver.progress import bar
from solver.rules import Rules

from .columns import canon
from .paths import COQ_SRC, shown
from .render import card_label, cert_stem, default_stem, mutation_text, rules_text, theorem_short_name
from .render import render_text as _render_template
LIBRARY = ("Spec", "Cert", "Decode", "Columns", "Autoplay", "CertUpTo", "CertAuto")  # in dependency order
CHUNK_WORDS = 4000
SYMBOLS_PER_WORD = 10
SOLUTION_ROW = 20

# What `Print Assumptions` may list besides nothing at all: Coq's primitive 63-bit integers and arrays
# (declared with `Primitive` in Coq's PrimInt63 and PArray, implemented by the kernel). The data is
# held in them; the proofs (Cert.v) use none.
PRIMITIVES = frozenset({
    "int", "array", "add", "sub", "mul", "div", "mod", "lsl", "lsr", "land", "lor", "lxor", "eqb",
    "ltb", "leb", "compare", "get", "set", "make", "length", "default", "copy",
    "PArray.get", "PArray.set", "PArray.make", "PArray.length", "PArray.default", "PArray.copy",
})
CLOSED = "Closed under the global context"


# -- The data: positions as 6-bit symbols in 63-bit integers ---------------------------------------------

def _split(rec: bytes) -> Tuple[List[bytes], bytes]:
    """A P64 record's columns (bottom card first, each card as key + 1) and free cells."""
    parts = rec.split(b"\0", 8)
    if len(parts) != 9:
        raise FreecellError("a certificate record does not hold 8 columns")
    return parts[:8], parts[8].rstrip(b"\0")


def _common_bottom(start_col: bytes, col: bytes) -> int:
    """The largest k such that the bottom k cards of `col` are those of `start_col`."""
    k = 0
    while k < len(col) and k < len(start_col) and col[k] == start_col[k]:
        k += 1
    return k


def record_symbols(start: List[bytes], prev: Tuple[List[bytes], bytes], rec: bytes) -> List[int]:
    """The symbols of the P64 record `rec`, relative to the previous record (split) and the start."""
    cols, cells = _split(rec)
    mask, body = 0, []
    for i, (start_col, prev_col, col) in enumerate(zip(start, prev[0], cols)):
        if col != prev_col:
            mask |= 1 << i
            k = _common_bottom(start_col, col)
            body.append(len(start_col) - k)
            body += reversed(col[k:])
            body.append(0)
    if cells != prev[1]:
        mask |= 1 << 8
        body += cells
        body.append(0)
    if any(x > 52 for x in body):
        raise FreecellError("a certificate record holds a card number out of range")
    return [mask & 63, mask >> 6] + body


def pack_words(symbols: Sequence[int]) -> List[int]:
    words = []
    for i in range(0, len(symbols), SYMBOLS_PER_WORD):
        w = 0
        for j, x in enumerate(symbols[i:i + SYMBOLS_PER_WORD]):
            w |= x << (6 * j)
        words.append(w)
    return words


def chunks(start: spec.State, records: Sequence[bytes],
           chunk_words: int = CHUNK_WORDS) -> List[Tuple[int, List[int]]]:
    """The positions (P64 records) as (count, words) chunks: each a whole number of positions and at
    most `chunk_words` words (a position longer than that gets a chunk of its own)."""
    start_rec = packed.pack(spec.to_position(start))
    start_cols = _split(start_rec)[0]
    out, cur, count, prev = [], [], 0, _split(start_rec)
    limit = chunk_words * SYMBOLS_PER_WORD
    for rec in records:
        syms = record_symbols(start_cols, prev, rec)
        if count and len(cur) + len(syms) > limit:
            out.append((count, pack_words(cur)))
            cur, count = [], 0
        cur += syms
        count += 1
        prev = _split(rec)
    if count:
        out.append((count, pack_words(cur)))
    return out


def decode_chunks(start: spec.State, data: Sequence[Tuple[int, Sequence[int]]]) -> List[spec.State]:
    """Python twin of FreeCell.Decode.decodeCert (as a list, in order), step for step."""
    out, prev = [], start
    for count, words in data:
        syms = [(w >> (6 * j)) & 63 for w in words for j in range(SYMBOLS_PER_WORD)]
        pos = 0

        def take_cards():
            nonlocal pos
            cards = []
            while syms[pos] != 0:
                i = syms[pos] - 1
                cards.append(spec.Card(i // 4 + 1, i % 4))
                pos += 1
            pos += 1
            return tuple(cards)

        for _ in range(count):
            mask = syms[pos] | (syms[pos + 1] << 6)
            pos += 2
            cols = []
            for i, (start_col, prev_col) in enumerate(zip(start.cols, prev.cols)):
                if not mask >> i & 1:
                    cols.append(prev_col)
                    continue
                d = syms[pos]
                pos += 1
                cols.append(take_cards() + tuple(start_col[d:]))
            cells = take_cards() if mask >> 8 & 1 else prev.cells
            cards = [c for col in cols for c in col] + list(cells)
            s = spec.State(tuple(cols), cells, tuple(13 - sum(1 for c in cards if c.suit == k) for k in range(4)))
            out.append(s)
            prev = s
    return out


# -- Coq text ------------------------------------------------------------------------------------------

def rules_coq(rules) -> str:
    """The rules (solver.rules.Rules or spec.Rules) as a Coq term."""
    if (rules.cells, rules.foundation_return, rules.hand) == (4, False, 0):
        return "standard"
    return f"(rules {int(rules.cells)} {'true' if rules.foundation_return else 'false'} {int(rules.hand)})"


def _card_coq(c: spec.Card) -> str:
    return f"card {int(c.rank)} {int(c.suit)}"


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


def _start_context(start: spec.State, deal: Optional[int], label: Optional[str]) -> Dict:
    """How the templates name the start position: `(msDeal N)`, or `start` written out card by card."""
    if deal is None:
        return {"start_coq": "start", "start_def": state_coq(start), "title": f"The position {label or 'start'}"}
    if spec.ms_deal(deal) != start:
        raise FreecellError(f"the start position is not msDeal {deal}")
    return {"start_coq": f"(msDeal {int(deal)})", "start_def": None, "title": f"Microsoft FreeCell deal #{int(deal)}"}


def render_text(template: str, **context) -> str:
    """A template of certgen/templates/coq/, rendered by certgen.render's jinja2 environment."""
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
    """The start position (the header's, which must be msDeal N when the source is deal N), the
    positions (P64 records) and the rules of a certificate read by certgen.certificate.read."""
    header_start = spec.from_position(packed.unpack(cert.start))
    deal = int(cert.source["deal"]) if cert.source.get("kind") == "ms" else None
    if deal is not None and spec.ms_deal(deal) != header_start:
        raise FreecellError(f"the certificate's start position is not msDeal {deal}")
    rules = Rules.from_dict(cert.rules)         # the spec's rules, and column_order
    return CertInputs(header_start, list(cert.records), rules.plain(), deal,
                      None if deal is not None else cert.label(), rules.column_order,
                      rules.column_order and rules.autoplay == "safe")


def cert_context(inputs: CertInputs, stem: str, mutation: Optional[str] = None,
                 chunk_words: int = CHUNK_WORDS) -> Dict:
    data = chunks(inputs.reference, inputs.records, chunk_words)
    ctx = {
        "column_order": inputs.column_order,
        "check": "checkCertUpTo" if inputs.column_order else "checkCert",
        "name": stem,
        "rules_coq": rules_coq(inputs.rules),
        "rules_text": rules_text(inputs.rules),
        "theorem_name": theorem_short_name(inputs.deal),
        "state_count": len(inputs.records),
        "chunks": [{"count": n, "words": "; ".join(map(str, ws))} for n, ws in data],
        "word_count": sum(len(ws) for _, ws in data),
        "mutant": mutation is not None,
        "mutation": mutation or "",
    }
    ctx.update(_start_context(inputs.start, inputs.deal, inputs.label))
    ctx["reference_coq"] = f"(canon {ctx['start_coq']})" if inputs.column_order else ctx["start_coq"]
    # Columns.v's 8-column hypothesis: a lemma for a deal, computed (`eq_refl`) for a written-out start
    ctx["eight_columns"] = f"(msDeal_8_columns {int(inputs.deal)})" if inputs.deal is not None else "eq_refl"
    return ctx


def coq_dir(out_dir: str) -> str:
    return os.path.join(os.path.abspath(out_dir), "coq")


def render_cert(cert, out_dir: str, mutant: bool = False, chunk_words: int = CHUNK_WORDS,
                stem: Optional[str] = None) -> Tuple[str, Dict]:
    """Write <out_dir>/coq/<Stem>.v for a certificate (`mutant`: a file proving that the check says
    false). Returns the path and the template context."""
    inputs = cert_inputs(cert)
    ctx = cert_context(inputs, stem or cert_stem(cert, mutant=mutant),
                       mutation_text(cert) if mutant else None, chunk_words)
    path = os.path.join(coq_dir(out_dir), ctx["name"] + ".v")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, render_text("DealAuto.v.j2" if inputs.autoplay else "Deal.v.j2", **ctx))
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
        "name": stem or "Win" + default_stem(start, rules, deal),
        "rules_coq": rules_coq(rules),
        "rules_text": rules_text(rules),
        "theorem_name": theorem_short_name(deal, "winnable"),
        "move_count": len(indices),
        "solution_rows": ["; ".join(str(i) for i in indices[k:k + SOLUTION_ROW])
                          for k in range(0, len(indices), SOLUTION_ROW)],
    }
    ctx.update(_start_context(start, deal, label))
    path = os.path.join(coq_dir(out_dir), ctx["name"] + ".v")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, render_text("Win.v.j2", **ctx))
    return path, ctx


# -- Running coqc --------------------------------------------------------------------------------------

def find_coqc() -> Optional[str]:
    return shutil.which("coqc")


def coqc_version(coqc: str) -> str:
    p = subprocess.run([coqc, "--version"], capture_output=True, text=True)
    return p.stdout.strip().replace("\n", " ")


@dataclass
class CoqRun:
    ok: bool
    seconds: float
    max_rss_kib: int
    output: str
    log: str
    assumptions: Optional[List[str]] = None   # None: no `Print Assumptions` output; []: closed
    extra: Dict = field(default_factory=dict)

    @property
    def only_primitives(self) -> bool:
        return self.assumptions is not None and all(a in PRIMITIVES for a in self.assumptions)


def parse_assumptions(output: str) -> Optional[List[str]]:
    """The names `Print Assumptions` listed (its last report in `output`); [] for a closed theorem,
    None when there is no report."""
    i_closed = output.rfind(CLOSED)
    i_axioms = output.rfind("Axioms:")
    if i_closed < 0 and i_axioms < 0:
        return None
    if i_closed > i_axioms:
        return []
    names = []
    for line in output[i_axioms + len("Axioms:"):].splitlines()[1:]:
        m = re.match(r"^(\S+) : ", line)
        if m:
            names.append(m.group(1))
        elif line and not line[0].isspace():
            break
    return names


def _run(cmd: List[str], log_path: str, cwd: str, progress_label: Optional[str] = None) -> CoqRun:
    """Run `cmd` with its output in `log_path`; wall time and the peak memory of that one process."""
    t0 = time.perf_counter()
    shown_bar = bool(progress_label) and sys.stderr.isatty()
    with open(log_path, "wb") as log, bar(shown_bar, desc=progress_label or "", bar_format="{desc}: {elapsed}") as b:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
        status, rss = None, 0
        while status is None:
            pid, st, ru = os.wait4(p.pid, os.WNOHANG) if shown_bar else os.wait4(p.pid, 0)
            if pid == 0:
                b.refresh()
                time.sleep(0.5)
                continue
            status, rss = st, ru.ru_maxrss
        p.returncode = os.waitstatus_to_exitcode(status)
    with open(log_path, encoding="utf-8", errors="replace") as f:
        out = f.read()
    return CoqRun(ok=p.returncode == 0, seconds=time.perf_counter() - t0, max_rss_kib=rss, output=out,
                  log=log_path, assumptions=parse_assumptions(out))


def library_dir(out_dir: str) -> str:
    return os.path.join(coq_dir(out_dir), "lib")


def build_library(coqc: str, out_dir: str) -> Optional[str]:
    """Compile coq/FreeCell/*.v into <out_dir>/coq/lib (unless a stamp says it is current: same sources,
    same coqc). Returns None, or the first lines of coqc's complaint."""
    lib = library_dir(out_dir)
    os.makedirs(lib, exist_ok=True)
    digest = hashlib.sha256(coqc_version(coqc).encode())
    for name in LIBRARY:
        with open(os.path.join(COQ_SRC, name + ".v"), "rb") as f:
            digest.update(f.read())
    stamp = os.path.join(lib, "stamp")
    want = digest.hexdigest()
    if os.path.exists(stamp) and open(stamp).read().strip() == want and \
            all(os.path.exists(os.path.join(lib, n + ".vo")) for n in LIBRARY):
        return None
    if os.path.exists(stamp):
        os.remove(stamp)
    for name in LIBRARY:
        cmd = [coqc, "-q", "-Q", COQ_SRC, "FreeCell", "-Q", lib, "FreeCell",
               "-o", os.path.join(lib, name + ".vo"), os.path.join(COQ_SRC, name + ".v")]
        p = subprocess.run(cmd, cwd=lib, capture_output=True, text=True)
        if p.returncode != 0:
            refuse_if_disk_full(lib)
            return f"coqc {name}.v failed: " + " ".join((p.stdout + p.stderr).split())[:400]
    write_atomic(stamp, want + "\n")
    return None


DISK_FULL = 16 << 20        # bytes free below which a failed coqc is taken as a full disk


def refuse_if_disk_full(folder: str):
    """After coqc failed: a FreecellError when ``folder``'s file system is (nearly) full -- coqc writing a
    truncated .vo fails with some other complaint (a full tmpfs gave "No such assumption" on Columns.v), so
    its words would name a proof failure that is not one."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return
    if st.f_bavail * st.f_frsize < DISK_FULL:
        raise FreecellError(f"{folder}: no space left on the device (coqc could not write its files there): "
                            f"nothing was checked by Coq")


def run_coqc(coqc: str, path: str, out_dir: str, progress: bool = False) -> CoqRun:
    """coqc on a generated file, against the library in <out_dir>/coq/lib."""
    lib = library_dir(out_dir)
    log = os.path.splitext(path)[0] + ".log"
    cmd = [coqc, "-q", "-noglob", "-Q", lib, "FreeCell", os.path.basename(path)]
    return _run(cmd, log, os.path.dirname(os.path.abspath(path)),
                progress_label=f"coqc {os.path.basename(path)}" if progress else None)


def assumptions_words(run: CoqRun) -> str:
    if run.assumptions is None:
        return "no Print Assumptions output"
    if not run.assumptions:
        return "closed under the global context (no axioms)"
    if run.only_primitives:
        return "no axioms; only Coq's primitive integers and arrays (" + ", ".join(run.assumptions) + ")"
    return "ASSUMES " + ", ".join(a for a in run.assumptions if a not in PRIMITIVES)


# -- Checking a file: what certgen.prove.prove_coq calls ---------------------------------------------------

def _mib(kib: int) -> str:
    return f"{kib / 1024:,.0f} MiB"


def prove_cert(cert, out_dir: str, coqc: Optional[str], progress: bool = False,
               say: Callable = print) -> Tuple[int, Optional[CoqRun]]:
    """Render a certificate's Coq file and run coqc on it. (exit status, run): 0 proven, 1 not, 3 no coqc."""
    path, ctx = render_cert(cert, out_dir)
    n = len(ctx["chunks"])
    say(f"  wrote {shown(path)} ({ctx['state_count']:,} positions in {ctx['word_count']:,} integers, "
        f"{n} array{'' if n == 1 else 's'})")
    return check_file(path, ctx, out_dir, coqc, "forall s, Reachable {r} {s} s -> ~ Won s", progress, say)


def check_file(path: str, ctx: Dict, out_dir: str, coqc: Optional[str], statement: str, progress: bool = False,
               say: Callable = print) -> Tuple[int, Optional[CoqRun]]:
    """coqc on a rendered file (the library first), and plain words on what Coq did (or did not)."""
    statement = statement.format(r=ctx["rules_coq"], s=ctx["start_coq"])
    say(f"4/4 coq: coqc {shown(path)}")
    if coqc is None:
        print("coqc is not on PATH (Debian: apt-get install coq): the Coq file is kept, and NOTHING was "
              "checked by Coq.", file=sys.stderr)
        return 3, None
    err = build_library(coqc, out_dir)
    if err:
        say(f"the Coq library does not compile: {err}: NOT proven")
        return 1, None
    run = run_coqc(coqc, path, out_dir, progress)
    figures = f"coqc {run.seconds:.1f} s, peak {_mib(run.max_rss_kib)}"
    if not run.ok:
        refuse_if_disk_full(os.path.dirname(os.path.abspath(path)))
        last = [l for l in run.output.strip().splitlines() if l.strip()][-1:] or ["no output"]
        say(f"coqc failed ({figures}; {last[0].strip()}; log {shown(run.log)}): NOT proven")
        return 1, run
    if run.assumptions is None or not run.only_primitives:
        say(f"coqc succeeded but the theorem's assumptions are not Coq's own ({assumptions_words(run)}): "
            f"NOT proven")
        return 1, run
    say(f"proven by Coq: {ctx['theorem_name']} : {statement} ({figures}; {assumptions_words(run)})")
    return 0, run
