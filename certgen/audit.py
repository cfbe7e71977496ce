"""`make audit` (`python -m certgen audit`): the checks that make a faked proof fail.

1. compare: every module in lean/FreeCell/Generated/ is rendered again from what it was made of — a
   Deal or Mutant module from its certificate (found by module name among the certificates in `--certs`
   folders, default out/), a Win module from the move list in its `-- render:` line (replayed in Python
   first), the shipped Kernel and SpecGuards modules from nothing — and the text must be identical. A
   hand-edited module (say one that adds `@[implemented_by]` or changes a statement) fails here.
2. scan: the library's Lean files (lean/FreeCell/**.lean) and lakefile.lean, comments and strings left
   out, must not contain what could fake a proof without showing in `#print axioms`: attributes (`@[…]`
   such as `implemented_by`, `extern`, `csimp`), `axiom`, `sorry`, `unsafe`, `partial`, `opaque`,
   meta-programming (`macro`, `elab`, `syntax`, `#eval`, `run_cmd`, `initialize`, `import Lean`), any
   `set_option` other than `maxHeartbeats 0 in` (e.g. `debug.skipKernelTC`); imports only of `FreeCell.*`
   and `Std.Data.HashSet`; and lakefile.lean only the words it has now (no `moreLeanArgs`,
   `leanOptions`, `moreLinkArgs`, …). Nor what could change what a generated statement means without
   changing its text (`shadowing`): a `namespace` other than the file's own (`FreeCell`, or the module's
   `FreeCell.Generated.<Stem>`), a declaration of a name Spec.lean declares (or of `true`, `List`, …) or of
   a dotted name (`def Generated.X.Won`), `notation`, `instance` (but Cert.lean's `Hashable State`),
   `deriving` (but in Spec.lean), `local`, `scoped`, `open`, `export`, `attribute`, `class`, `_root_` (but in
   generated modules), and any `#` command but a generated module's `#guard`. The hand-written files
   (Spec, Cert, Decode, Hand) are also pinned by their SHA-256 (LIBRARY_DIGESTS): any other edit is named.
3. lean (needs Lean): `lake build`, then `#print axioms` on every theorem named by an `-- audit:` line,
   and each answer must be exactly right: at most Lean's three standard axioms, plus — for a theorem
   proved through `native_decide` — exactly one axiom, the one that call adds to the declaration named in
   the `-- audit:` line (`<module>.certificate_ok._native.native_decide.ax_…`, or `solution_ok`,
   `mutant_rejected`). Kernel-only theorems may have no other axiom at all.

Exit status: 0 all passed; 1 a check failed; 3 the first two passed but Lean is not available (nothing was
checked by Lean).
"""
import hashlib
import json
import os
import re
import sys
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from solver import spec
from solver.atomic import write_atomic
from solver.errors import FreecellError
from solver.rules import Rules

from . import certificate, lake, render
from .names import MODULE_PREFIX, STEM, cert_stem
from .paths import AUDIT_FILE, GENERATED, LEAN_SRC, OUT, ROOT
from .templating import read_text, render_text

LAKEFILE = os.path.join(ROOT, "lakefile.lean")
DEFAULT_CERT_DIRS = (OUT,)
STANDARD_AXIOMS = ("propext", "Classical.choice", "Quot.sound")
AUDIT_MARK = re.compile(r"^-- audit: (\S+) \((?:native_decide in (\S+)|kernel only)\)$", re.M)
RENDER_MARK = re.compile(r"^-- render: (\{.*\})$", re.M)
LEAN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


class AuditError(ValueError):
    """A module or library file that the audit refuses (the message says why)."""


# -- Lean's lexical structure: code, comments, strings -------------------------------------------------

_IDENT_CHAR = re.compile(r"[\w'!?]")
_CHAR_LITERAL = re.compile(r"'(?:\\(?:x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f]+\}|.)|[^'\\\n])'")
_RAW_STRING = re.compile(r'r(#*)"')
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)


def _line_of(text: str, i: int) -> int:
    return text.count("\n", 0, i) + 1


def lean_tokens(text: str) -> List[Tuple[str, str]]:
    """Split Lean source into pieces `(kind, text)`, kind one of "code", "comment" (`-- …` to the end of
    the line), "block" (`/- … -/`, nested as Lean nests them; doc comments `/-- … -/` and `/-! … -/`
    included), "string" (`"…"` with its escapes, or a raw string `r#"…"#`) and "char" (`'x'`). Adjacent
    code is merged. An unterminated comment or string raises AuditError."""
    out: List[Tuple[str, str]] = []
    i, n, code = 0, len(text), []

    def emit(kind, piece):
        if code:
            out.append(("code", "".join(code)))
            code.clear()
        out.append((kind, piece))

    while i < n:
        ch = text[i]
        prev_ident = i > 0 and bool(_IDENT_CHAR.match(text[i - 1]))
        if text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            emit("comment", text[i:j])
            i = j
        elif text.startswith("/-", i):
            depth, j = 1, i + 2
            while depth:
                if j >= n:
                    raise AuditError(f"a comment opened on line {_line_of(text, i)} is never closed")
                if text.startswith("/-", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("-/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            emit("block", text[i:j])
            i = j
        elif ch == '"' or (ch == "r" and not prev_ident and _RAW_STRING.match(text, i)):
            if ch == '"':
                m = _STRING.match(text, i)
                j = m.end() - 1 if m else n
            else:
                hashes = _RAW_STRING.match(text, i).group(1)
                end = text.find('"' + hashes, i + len(hashes) + 2)
                j = n if end < 0 else end + len(hashes)
            if j >= n:
                raise AuditError(f"a string opened on line {_line_of(text, i)} is never closed")
            emit("string", text[i:j + 1])
            i = j + 1
        elif ch == "'" and not prev_ident and _CHAR_LITERAL.match(text, i):
            m = _CHAR_LITERAL.match(text, i)
            emit("char", m.group(0))
            i = m.end()
        else:
            code.append(ch)
            i += 1
    if code:
        out.append(("code", "".join(code)))
    return out


def lean_code(text: str) -> str:
    """The code of a Lean file: comments, strings and characters each replaced by one space."""
    return "".join(piece if kind == "code" else " " for kind, piece in lean_tokens(text))


# -- 2. The library scan -------------------------------------------------------------------------------

DENIED_WORDS = frozenset("""
    axiom sorry admit unsafe partial opaque implemented_by extern csimp export never_extract
    macro macro_rules syntax elab elab_rules notation infix infixl infixr prefix postfix
    declare_syntax_cat attribute initialize builtin_initialize run_cmd run_elab run_meta
    local scoped open class binder_predicate unif_hint _root_
""".split())
# The generated statements name these from the root (render.SPEC_ROOT, `_root_.Bool.true`, …); a library
# file declaring one of them in another namespace is refused all the same. And `Generated`: a structure or an
# inductive type of that name in `FreeCell` would put its fields or constructors in `FreeCell.Generated`.
RESERVED_NAMES = frozenset("true false Bool List Nat String Std HashSet Not Exists And Generated".split())
DECLARATION = re.compile(r"\b(?:def|abbrev|theorem|lemma|structure|inductive|class|opaque|axiom|instance|example)"
                         r"\s+(?!:)([^\s:({\[⟨]+)")
# The only instance the library declares: how the certificate's hash set hashes a position (docs/TRUST.md:
# any hash is lawful, no theorem's meaning depends on it).
ALLOWED_INSTANCES = {"FreeCell/Cert.lean": ("instance : Hashable State := ⟨hashState⟩",)}
# SHA-256 of the hand-written Lean files. An edit of any of them is refused until it has been read and its
# digest written here (tests/certgen/test_lean_trust.py checks that these are the shipped files).
LIBRARY_DIGESTS = {
    "FreeCell/Spec.lean": "49f8cdb12bafbab522a1ccd701c6298984dffc6811741ad3527806fbe68c2bed",
    "FreeCell/Cert.lean": "65aba564dba419de009686cffc47527fc6c19d611e1ab4e7aff6d945a92b0d13",
    "FreeCell/Decode.lean": "9ad5d5ba39bd5e2109168f229318b766206b962084d66d23b54a976b6f1b8536",
    "FreeCell/Hand.lean": "45b493951e0d31de70d4f7a311f8162bec66630a9bff47c5ba29b764f5f1a186",
}
ALLOWED_IMPORTS = re.compile(r"FreeCell(?:\.[A-Za-z][A-Za-z0-9]*)+\Z|Std\.Data\.HashSet\Z")
HEARTBEATS = re.compile(r"set_option\s+maxHeartbeats\s+0\s+in\b")
# Every word lakefile.lean may use: a new Lake field (moreLeanArgs, leanOptions, moreLinkArgs, extern_lib,
# require, …) could change what is compiled or how, so it has to be added here on purpose.
LAKEFILE_WORDS = frozenset("""
    import Lake open DSL package def precompileOpt Option String get_config? precompile isSome
    default_target lean_lib where srcDir roots globs precompileModules submodules
    FreeCell FreeCellGenerated FreeCellHand Spec Cert Decode Generated Hand
""".split())
_WORD = re.compile(r"#?[A-Za-z_][A-Za-z0-9_'!?]*(?:\.[A-Za-z_][A-Za-z0-9_'!?]*)*")


def trusted_names(spec_text: str) -> frozenset:
    """The last part of every name Spec.lean declares (`Won`, `msDeal`, `standard` of `Rules.standard`, …)."""
    return frozenset(m.group(1).split(".")[-1] for m in DECLARATION.finditer(lean_code(spec_text)))


def _shadowing(name: str, rel: str, code: str, trusted: frozenset) -> List[str]:
    """What in library file `rel` (relative to lean/) could change the meaning of a generated statement."""
    generated = rel.startswith("FreeCell/Generated/")
    spec = rel == "FreeCell/Spec.lean"
    own = f"{MODULE_PREFIX}.{os.path.basename(rel)[:-len('.lean')]}" if generated else "FreeCell"
    problems = []
    for m in re.finditer(r"\bnamespace\s+(\S+)", code):
        if m.group(1) != own:
            problems.append(f"{name}: `namespace {m.group(1)}` (only `namespace {own}` here: another namespace "
                            f"could declare a name a generated statement would find first)")
    if not spec:
        for m in DECLARATION.finditer(code):
            declared = m.group(1)
            if "." in declared or "«" in declared:
                problems.append(f"{name}: a declaration of the dotted name `{declared}` (it could land in "
                                f"another namespace)")
            elif declared in trusted or declared in RESERVED_NAMES:
                problems.append(f"{name}: a declaration of `{declared}`, a name the statements use")
        if re.search(r"\bderiving\b", code):
            problems.append(f"{name}: `deriving` (an instance; only Spec.lean derives)")
    allowed = ALLOWED_INSTANCES.get(rel, ())
    for m in re.finditer(r"\binstance\b", code):
        line = code[m.start():].split("\n", 1)[0].strip()
        if line not in allowed and not code[:m.start()].rstrip().endswith("deriving"):
            problems.append(f"{name}: `{line}` (an instance could change what a numeral or a coercion in a "
                            f"statement means)")
    for m in re.finditer(r"(?<![\w#])#([A-Za-z_][\w!]*)", code):
        if not (generated and m.group(1) == "guard"):
            problems.append(f"{name}: `#{m.group(1)}` (a command run while Lean reads the file)")
    return problems


def _digest_problem(name: str, rel: str, data: bytes) -> List[str]:
    if rel.startswith("FreeCell/Generated/"):
        return []
    want = LIBRARY_DIGESTS.get(rel)
    if want is None:
        return [f"{name}: a hand-written Lean file the audit does not pin (certgen/audit.py LIBRARY_DIGESTS)"]
    got = hashlib.sha256(data).hexdigest()
    if got != want:
        return [f"{name}: its SHA-256 is {got[:16]}…, not the {want[:16]}… the audit pins: an edited library "
                f"file (read the change, then pin it in certgen/audit.py LIBRARY_DIGESTS)"]
    return []


def scan_lean(name: str, text: str, rel: Optional[str] = None, trusted: frozenset = frozenset()) -> List[str]:
    """Problems with one library file (empty: none); `rel`, its path relative to lean/, turns on the
    checks of what could shadow a statement's names (`trusted`: Spec.lean's names)."""
    try:
        code = lean_code(text)
    except AuditError as e:
        return [f"{name}: {e}"]
    problems = _shadowing(name, rel, code, trusted) if rel else []
    if "@[" in code:
        problems.append(f"{name}: an attribute `@[…]` (the library uses none; `implemented_by`, `extern` or "
                        f"`csimp` would replace what native_decide runs)")
    for m in re.finditer(r"^import\s+(\S+)", code, re.M):
        if not ALLOWED_IMPORTS.match(m.group(1)):
            problems.append(f"{name}: `import {m.group(1)}` (only FreeCell.* and Std.Data.HashSet)")
    for m in re.finditer(r"\bset_option\b", code):
        if not HEARTBEATS.match(code, m.start()):
            line = code[m.start():].split("\n", 1)[0]
            problems.append(f"{name}: `{line.strip()}` (only `set_option maxHeartbeats 0 in`)")
    words = {w for m in _WORD.finditer(code) for w in [m.group(0), *m.group(0).split(".")]}
    denied = DENIED_WORDS - {"_root_"} if rel and rel.startswith("FreeCell/Generated/") else DENIED_WORDS
    for w in sorted(words & denied):
        problems.append(f"{name}: `{w}`")
    return problems


def scan_library(lean_src: Optional[str] = None, lakefile: Optional[str] = None) -> List[str]:
    """Problems in the library's Lean files and in lakefile.lean (empty: none)."""
    lean_src = lean_src or LEAN_SRC
    lakefile = lakefile or LAKEFILE
    problems = []
    try:
        trusted = trusted_names(read_text(os.path.join(lean_src, "FreeCell", "Spec.lean")))
    except (AuditError, OSError):
        trusted = frozenset()      # the pin names a missing or damaged Spec.lean
    found = set()
    for folder, _, files in sorted(os.walk(os.path.join(lean_src, "FreeCell"))):
        for f in sorted(files):
            if f.endswith(".lean"):
                path = os.path.join(folder, f)
                rel = os.path.relpath(path, lean_src).replace(os.sep, "/")
                name = os.path.relpath(path, os.path.dirname(lean_src))
                with open(path, "rb") as fh:
                    data = fh.read()
                found.add(rel)
                mine = scan_lean(name, data.decode("utf-8", "replace"), rel, trusted)
                if len(mine) > 1:           # one line a file: the first thing wrong, and how many more
                    mine = [f"{mine[0]} (and {len(mine) - 1} more)"]
                problems += mine or _digest_problem(name, rel, data)
    for rel in sorted(set(LIBRARY_DIGESTS) - found):
        problems.append(f"lean/{rel}: missing (the audit pins it)")
    try:
        code = lean_code(read_text(lakefile))
    except AuditError as e:
        return problems + [f"lakefile.lean: {e}"]
    except OSError as e:
        return problems + [f"lakefile.lean: cannot read it ({e.strerror})"]
    code = re.sub(r"«[^»]*»", " ", code)   # the package's name
    for w in sorted({part for m in _WORD.finditer(code) for part in m.group(0).split(".")} - LAKEFILE_WORDS):
        problems.append(f"lakefile.lean: `{w}` (not among the words the audit knows; see LAKEFILE_WORDS "
                        f"in certgen/audit.py)")
    return problems


# -- 1. Re-rendering every generated module -----------------------------------------------------------

def certificates_by_stem(cert_dirs: Iterable[str]) -> Dict[str, List[str]]:
    """{module stem: [certificate paths]} for the certificates in `cert_dirs` (a mutated certificate under
    the name of its Mutant module); a certificate up to column order has no Lean module (Lean has no proof of
    the column lemma: render.refuse_column_order) and is left out."""
    out: Dict[str, List[str]] = {}
    for d in cert_dirs:
        names = sorted(os.listdir(d)) if os.path.isdir(d) else []
        for name in names:
            if not name.endswith(".cert"):
                continue
            path = os.path.join(d, name)
            try:
                cert = certificate.read(path)
            except (FreecellError, ValueError, OSError):
                continue
            if Rules.from_dict(cert.rules).column_order:
                continue
            stem = cert_stem(cert, mutant=bool((cert.info or {}).get("mutation")))
            out.setdefault(stem, []).append(path)
    return out


def render_inputs(text: str) -> Dict:
    m = RENDER_MARK.search(text)
    if not text.startswith(render.GENERATED_MARK) or not m:
        raise AuditError("not rendered by certgen (no `-- Generated by certgen/render.py` header and "
                         "`-- render:` line)")
    try:
        inputs = json.loads(m.group(1))
    except ValueError:
        raise AuditError("its `-- render:` line is not JSON") from None
    if not isinstance(inputs, dict):
        raise AuditError("its `-- render:` line is not a JSON object")
    return inputs


def _rules(obj) -> Rules:
    return Rules(cells=int(obj["cells"]), foundation_return=bool(obj["foundation_return"]))


def expected_texts(stem: str, text: str, certs: Dict[str, List[str]]) -> List[str]:
    """What certgen renders for the module `stem` from the inputs it names (several candidates when
    several certificates have its name). Raises AuditError when there is nothing to render it from."""
    inputs = render_inputs(text)
    kind = inputs.get("kind")
    try:
        if kind in ("deal", "mutant"):
            paths = certs.get(stem)
            if not paths:
                raise AuditError("no certificate with this module's name in the certificate folders "
                                 "(`make prove` writes them to out/; or pass --certs DIR)")
            return [render.cert_module_text(certificate.read(p), mutant=kind == "mutant") for p in paths]
        if kind == "win":
            deal = inputs.get("deal")
            start = spec.ms_deal(int(deal)) if deal is not None else spec.from_position(
                (tuple(tuple(c) for c in inputs["start"][0]), tuple(inputs["start"][1]), tuple(inputs["start"][2])))
            if inputs.get("stem") != stem:
                raise AuditError(f"its `-- render:` line names another module ({inputs.get('stem')!r})")
            return [render.win_text(inputs["moves"], start, _rules(inputs["rules"]), deal, stem,
                                    inputs.get("label"), bool(inputs.get("kernel")))]
        if kind == "kernel":
            rules = _rules(inputs["rules"])
            if render.kernel_stem(int(inputs["deal"]), rules) != stem:
                raise AuditError("its file name is not the one its `-- render:` line gives")
            return [render.kernel_text(int(inputs["deal"]), rules)]
        if kind == "guards":
            if stem != render.GUARDS_STEM:
                raise AuditError(f"a guard module must be {render.GUARDS_STEM}.lean")
            return [render.guards_text()]
    except (KeyError, TypeError, IndexError) as e:
        raise AuditError(f"its `-- render:` line lacks or garbles {e}") from None
    raise AuditError(f"unknown kind of module {kind!r} in its `-- render:` line")


def _first_difference(a: str, b: str) -> int:
    la, lb = a.splitlines(), b.splitlines()
    for k, (x, y) in enumerate(zip(la, lb), 1):
        if x != y:
            return k
    return min(len(la), len(lb)) + 1


def compare_generated(lean_dir: Optional[str] = None, cert_dirs: Iterable[str] = DEFAULT_CERT_DIRS,
                      progress: Callable[[str], None] = lambda s: None) -> Tuple[int, List[str]]:
    """Render every module of `lean_dir` again and compare. Returns (modules that match, problems)."""
    lean_dir = lean_dir or GENERATED
    names = sorted(n for n in os.listdir(lean_dir) if n.endswith(".lean")) if os.path.isdir(lean_dir) else []
    certs = None
    matched, problems = 0, []
    for name in names:
        stem = name[:-len(".lean")]
        text = read_text(os.path.join(lean_dir, name))
        progress(name)
        try:
            if certs is None and render_inputs(text).get("kind") in ("deal", "mutant"):
                certs = certificates_by_stem(cert_dirs)
            candidates = expected_texts(stem, text, certs or {})
        except AuditError as e:
            problems.append(f"{name}: {e}")
            continue
        except (FreecellError, ValueError) as e:   # the renderer refused the inputs (a line that does not win, …)
            problems.append(f"{name}: its inputs do not render: {e}")
            continue
        if text in candidates:
            matched += 1
        else:
            line = max(_first_difference(text, c) for c in candidates)
            problems.append(f"{name}: differs from what certgen renders from its inputs (first at line {line})")
    return matched, problems


# -- 3. #print axioms ----------------------------------------------------------------------------------

def audit_marks(text: str) -> List[Tuple[str, Optional[str]]]:
    """(theorem, declaration whose native_decide axiom it may use, or None for kernel only)."""
    return [(m.group(1), m.group(2)) for m in AUDIT_MARK.finditer(text)]


def render_audit(lean_dir: Optional[str] = None, out_path: Optional[str] = None) -> Tuple[str, Dict]:
    """Write lean/Audit.lean: `#print axioms` for every theorem with an `-- audit:` line in the generated
    modules. Returns the path and {theorem: declaration with a native_decide axiom, or None}."""
    lean_dir = lean_dir or GENERATED
    modules, expected = [], {}
    names = sorted(n for n in os.listdir(lean_dir) if n.endswith(".lean")) if os.path.isdir(lean_dir) else []
    for n in names:
        text = read_text(os.path.join(lean_dir, n))
        if not text.startswith(render.GENERATED_MARK) or not STEM.match(n[:-len(".lean")]):
            continue
        marks = [(t, d) for t, d in audit_marks(text) if LEAN_NAME.match(t) and (d is None or LEAN_NAME.match(d))]
        if marks:
            modules.append(f"{MODULE_PREFIX}.{n[:-len('.lean')]}")
            expected.update(marks)
    path = write_atomic(out_path or AUDIT_FILE,
                        render_text("Audit.lean.j2", modules=modules, theorems=list(expected)))
    return path, expected


def check_axioms_output(text: str, expected: Dict[str, Optional[str]]) -> Dict[str, List[str]]:
    """Read the output of the `#print axioms` lines. Returns {theorem: [problems]} for every expected or
    printed theorem; an empty list means its axioms are exactly right: a subset of the standard three,
    plus, when `expected[theorem]` names a declaration, exactly one `<declaration>._native.native_decide.ax_…`."""
    printed: Dict[str, List[str]] = {}
    for m in re.finditer(r"'([^']+)' depends on axioms: \[([^\]]*)\]", text):
        printed[m.group(1)] = [a.strip() for a in m.group(2).replace("\n", " ").split(",") if a.strip()]
    for m in re.finditer(r"'([^']+)' does not depend on any axioms", text):
        printed[m.group(1)] = []
    out = {}
    for thm in sorted(set(expected) | set(printed)):
        if thm not in expected:
            out[thm] = ["printed, but no generated module names it"]
            continue
        if thm not in printed:
            out[thm] = ["not printed by Lean"]
            continue
        decl = expected[thm]
        native = re.compile(re.escape(decl) + r"\._native\.native_decide\.ax(?:_[0-9]+)+\Z") if decl else None
        own = [a for a in printed[thm] if native is not None and native.match(a)]
        problems = [a for a in printed[thm] if a not in STANDARD_AXIOMS and a not in own]
        if decl and len(own) != 1:
            problems.append(f"{len(own)} native_decide axioms of {decl} (expected exactly one)")
        out[thm] = problems
    return out


# -- The whole audit -----------------------------------------------------------------------------------

def run(cert_dirs: Optional[Iterable[str]], say: Callable[[str], None], lean_dir: Optional[str] = None) -> int:
    """`make audit`. Returns the exit status."""
    cert_dirs = list(cert_dirs or DEFAULT_CERT_DIRS)
    say("1/3 compare: every generated module against what certgen renders from its inputs")
    matched, problems = compare_generated(lean_dir, cert_dirs)
    say("2/3 scan: the library's Lean files and lakefile.lean")
    problems += scan_library()
    if problems:
        for p in problems:
            say(f"  {p}")
        say(f"audit failed: {len(problems)} problem(s), before Lean was asked anything")
        return 1
    say(f"  {matched} generated modules are exactly what certgen renders; the library has nothing that "
        f"could fake a proof")
    path, expected = render_audit(lean_dir)
    say(f"3/3 lean: lake build, then #print axioms for {len(expected)} theorems ({os.path.relpath(path, ROOT)})")
    status, words = lake.build([], say)
    if status != 0:
        print(f"{words}: no axioms were printed, nothing was audited by Lean.", file=sys.stderr)
        return status
    proc = lake.env_lean(path)
    sys.stdout.write(proc.stdout)
    found = check_axioms_output(proc.stdout, expected)
    bad = {k: v for k, v in found.items() if v}
    if proc.returncode != 0 or not expected or bad:
        say(f"audit failed: {bad or proc.stderr.strip() or 'no theorems to audit'}")
        return 1
    kernel = sum(1 for d in expected.values() if d is None)
    say(f"audit: {len(expected)} theorems rest on Lean's standard axioms and, for {len(expected) - kernel} of "
        f"them, their own native_decide axiom only ({kernel} on the kernel alone)")
    return 0
