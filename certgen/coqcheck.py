"""The Coq check: `coqc` on a module certgen/coq.py renders, then on its driver, which states the theorem apart
(only "proven" when the kernel accepted both and the driver's `Print Assumptions` lists nothing but Coq's
primitives); `coqchk` on the compiled files when asked; `audit-coq`.

The Coq library is `coq/FreeCell/` (README, "Coq: the same theorem, checked here"): `Spec.v` (trusted, the twin of
lean/FreeCell/Spec.lean), `Cert.v` (`checkCert`, `cert_sound`, `replay`, all proved, no axiom),
`Columns.v` (proved, no axiom: moves commute with reordering the columns, the lemma behind enumerating
positions up to column order), `Autoplay.v` (proved, no axiom: playing a card home by the horne, safe or
twos rule never loses a win, without foundation returns; `unwinnable_of_autoplay_fence`,
`unwinnable_of_safe_autoplay_fence`, `unwinnable_of_twos_autoplay_fence` and their column-order forms, the
fences a search with automatic moves can use), `CertUpTo.v` (proved, no axiom: `checkCertUpTo`, the check of a
certificate up to column order, and `unwinnable_of_cert_up_to_column_order`), `CertAuto.v` (the same with safe
automatic moves), `Fast.v` (proved, no axiom: positions with constructor cards, whose moves are proved equal
to `Spec.v`'s through `absS`, `fmoves_abs`, and the fence checks on them) and `Search.v` (proved, no axiom:
the search the modules run, `checkSearch`, `checkSearchUpTo`, `checkSearchAuto`, and their theorems; and
`hashKey`, the key no proof looks into). It is compiled in a folder of the process's own (never in the
source tree), once a process. Each check runs in a private folder (:func:`check_file`): no compiled file
is taken from the output folder, whose writer could put a `.vo` crafted by hand there, even during a run
(Coq does not check a `.vo` again when it loads it); the compiled files are copied there afterwards.
`Spec.v` must have the digest PINNED gives it (the statement's meaning is there); `audit-coq` holds every
file to its pinned digest.

Compiled with `-Q <folder>/coq-lib FreeCell -Q <folder>/coq Generated`: a module is `Generated.<Stem>`, its
driver `Generated.check.<Stem>`. `audit_file` (`certgen audit-coq`) holds a module to the rendering of its
certificate.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from solver.atomic import write_atomic
from solver.errors import FreecellError
from solver.progress import bar
from solver.sigterm import restore_term, term_as_interrupt

from . import certificate
from .coq import IDENT, UNWINNABLE, cert_module, coq_dir, driver_path, driver_text, full_statement, render_cert
from .names import cert_stem
from .paths import COQ_SRC, on_path, shown
from .usertext import user_text

LIBRARY = ("Spec", "Cert", "Columns", "Autoplay", "CertUpTo", "CertAuto", "Fast", "Search")  # in dependency order

# What `Print Assumptions` may list, by the names and with the types Coq 8.16 prints in the driver
# (Check.v.j2): the primitive 63-bit integers and arrays (declared with `Primitive` in Coq's PrimInt63
# and PArray, implemented by the kernel), each of them and nothing else. The key (Search.v's `hashKey`)
# computes with them; the proofs use none. A name is printed as the shortest suffix that names the object in the
# driver, and the driver imports coq.PRIMITIVE_IMPORTS (Coq's own files) last, before it prints: a bare name
# is one of theirs, while an object of any other file (a `PrimInt63.v` of <out>/coq, whose axiom would
# print `PrimInt63.addc : PrimInt63.int -> ...` were Coq's file not imported) prints with a qualifier. The
# type is compared too. Every one of these types is inhabited by the kernel's own implementation, so no
# set of assumptions of these types can prove False. tests/certgen/test_coq_trust.py has coqc print them again.
PRIMITIVE_SIGNATURES = {
    "array": "Type -> Type",
    "copy": "forall A : Type, array A -> array A",
    "default": "forall A : Type, array A -> A",
    "get": "forall A : Type, array A -> int -> A",
    "length": "forall A : Type, array A -> int",
    "make": "forall A : Type, int -> A -> array A",
    "set": "forall A : Type, array A -> int -> A -> array A",
    "add": "int -> int -> int",
    "addc": "int -> int -> carry int",
    "addcarryc": "int -> int -> carry int",
    "addmuldiv": "int -> int -> int -> int",
    "asr": "int -> int -> int",
    "compare": "int -> int -> comparison",
    "compares": "int -> int -> comparison",
    "div": "int -> int -> int",
    "diveucl": "int -> int -> int * int",
    "diveucl_21": "int -> int -> int -> int * int",
    "divs": "int -> int -> int",
    "eqb": "int -> int -> bool",
    "head0": "int -> int",
    "int": "Set",
    "land": "int -> int -> int",
    "leb": "int -> int -> bool",
    "lesb": "int -> int -> bool",
    "lor": "int -> int -> int",
    "lsl": "int -> int -> int",
    "lsr": "int -> int -> int",
    "ltb": "int -> int -> bool",
    "ltsb": "int -> int -> bool",
    "lxor": "int -> int -> int",
    "mod": "int -> int -> int",
    "mods": "int -> int -> int",
    "mul": "int -> int -> int",
    "mulc": "int -> int -> int * int",
    "sub": "int -> int -> int",
    "subc": "int -> int -> carry int",
    "subcarryc": "int -> int -> carry int",
    "tail0": "int -> int",
}
CLOSED = "Closed under the global context"

# The SHA-256 of each file of coq/FreeCell/: prove-coq refuses to compile a file with another digest
# (`Spec.v` is what the theorems mean; the others could load a plugin into coqc), `audit-coq` names it. A
# change to a file of the library changes its line here in the same commit (tests/certgen/test_coq_trust.py).
PINNED = {
    "Spec": "ac89994727d688b81b6ff2c7e69e868638db83b7cde6241fee0c194a1951d2c1",
    "Cert": "0316aa01c1a09b0a2a4411ebbb0ee685bef7d06997eebf3c1a42e5f153e5f6c5",
    "Columns": "7d13a7c8bb54ce45701c0c88a121c2dd3cc231da314851fc483260f8ee950e27",
    "Autoplay": "47ab5ee62da2023265707825032d9de33a52bddffab0774f23df463dc99d9c40",
    "CertUpTo": "84a1a88413d2b8ec91cf53ec7048a7b83a66171e74584235da342e125c3d4bd6",
    "CertAuto": "f62cd753e3ae579ae60e89003cea262f179c7f7217a37079942eb2b61bec4185",
    "Fast": "80c0f4b8e5e8cfb790ea7b9addd858621d92a57cfc2384854a654f9eb6627b5c",
    "Search": "bc25adbd80ea0bcf95425bddff5fe8a27fc1380f0a29c8079f1ecf346589e546",
}


# -- Running coqc --------------------------------------------------------------------------------------

GENERATED_PREFIX = "Generated"      # the logical path of <out>/coq: Generated.<Stem>, Generated.check.<Stem>


def find_coqc() -> Optional[str]:
    return on_path("coqc")


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
    assumptions: Optional[List[Tuple[str, str]]] = None   # the driver's report: None if none (or not one)
    extra: Dict = field(default_factory=dict)

    @property
    def unexpected(self) -> List[str]:
        """The assumptions that are not a primitive with its type, as `name : type`."""
        return [f"{n} : {t}" for n, t in self.assumptions or () if PRIMITIVE_SIGNATURES.get(n) != t]

    @property
    def only_primitives(self) -> bool:
        return self.assumptions is not None and not self.unexpected


def parse_assumptions(output: str) -> Optional[List[Tuple[str, str]]]:
    """The report of one `Print Assumptions`, which must be all of ``output`` (the driver's standard output):
    [] for "Closed under the global context", else its (name, type) pairs, white space in each type made
    single spaces (a long entry is printed over several lines). None for anything else: another section
    (`Theory:`, ...), a line saying that something relies on an unsafe fixpoint or universe hierarchy or
    is assumed to be guarded, an entry that is not `name : type`, or any text before or after."""
    lines = output.strip().splitlines()
    if lines == [CLOSED]:
        return []
    if not lines or lines[0] != "Axioms:":
        return None
    entries: List[List[str]] = []
    for line in lines[1:]:
        if not line.strip():
            return None
        if line[0].isspace():
            if not entries:
                return None
            entries[-1].append(line)
        else:
            entries.append([line])
    out = []
    for parts in entries:
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_'.]*) : (.+)", " ".join(" ".join(parts).split()))
        if not m:
            return None
        out.append((m.group(1), m.group(2)))
    return out or None


def empty_folder():
    """coqc's working folder, empty and its own: coqc looks for a plugin (`Declare ML Module "x:y.plugin"`,
    recorded in a compiled module and loaded by Require) in its working folder, and a plugin runs any code
    in coqc, printing any report; so only Coq's installed plugins can be found, none put in <out>."""
    return tempfile.TemporaryDirectory(prefix="coqc-")


def _run(cmd: List[str], log_path: str, cwd: str, progress_label: Optional[str] = None) -> CoqRun:
    """Run `cmd` with its output in `log_path`; wall time and the peak memory of that one process."""
    t0 = time.perf_counter()
    shown_bar = bool(progress_label) and sys.stderr.isatty()
    with open(log_path, "wb") as log, bar(shown_bar, desc=progress_label or "", bar_format="{desc}: {elapsed}") as b:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
        status, rss = None, 0
        try:
            while status is None:
                pid, st, ru = os.wait4(p.pid, os.WNOHANG) if shown_bar else os.wait4(p.pid, 0)
                if pid == 0:
                    b.refresh()
                    time.sleep(0.5)
                    continue
                status, rss = st, ru.ru_maxrss
        except BaseException:           # Ctrl-C or SIGTERM: coqc does not run on without us
            p.kill()
            p.wait()
            raise
        p.returncode = os.waitstatus_to_exitcode(status)
    with open(log_path, encoding="utf-8", errors="replace") as f:
        out = f.read()
    return CoqRun(ok=p.returncode == 0, seconds=time.perf_counter() - t0, max_rss_kib=rss, output=out, log=log_path)


# -- The library: coq/FreeCell/*.v, compiled into <out>/coq-lib ------------------------------------------

def library_dir(out_dir: str) -> str:
    return os.path.join(os.path.abspath(out_dir), "coq-lib")


def _source(name: str) -> bytes:
    with open(os.path.join(COQ_SRC, name + ".v"), "rb") as f:
        return f.read()


def imports(text: str) -> List[str]:
    """The files of the library a Coq text names in its `From FreeCell Require …` lines."""
    return [n for m in re.finditer(r"^From FreeCell Require (?:Import |Export )?([A-Za-z ]+)\.", text, re.M)
            for n in m.group(1).split()]


def library_closure(names: Sequence[str]) -> List[str]:
    """``names`` and every file of the library they import, in LIBRARY's (dependency) order."""
    need, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in need:
            continue
        if name not in LIBRARY:
            raise FreecellError(f"FreeCell.{name} is not a file of the Coq library ({', '.join(LIBRARY)})")
        need.add(name)
        todo += imports(_source(name).decode("utf-8", "replace"))
    return [n for n in LIBRARY if n in need]


def library_changes(names: Sequence[str] = LIBRARY) -> List[str]:
    """One line for each file of coq/FreeCell/ among ``names`` whose SHA-256 is not the one PINNED gives."""
    out = []
    for name in names:
        try:
            digest = hashlib.sha256(_source(name)).hexdigest()
        except OSError:
            out.append(f"coq/FreeCell/{name}.v is missing")
            continue
        if digest != PINNED[name]:
            out.append(f"coq/FreeCell/{name}.v is not the pinned file (sha256 {digest[:16]}..., pinned "
                       f"{PINNED[name][:16]}...)")
    return out


_PRIVATE: Dict[Tuple[str, str], "tempfile.TemporaryDirectory"] = {}   # (coqc, its version): this process's library
_COMPILED: Dict[Tuple[str, str], str] = {}                              # (folder, file): the stamp it was compiled for


def build_library(coqc: str, out_dir: str, names: Sequence[str] = LIBRARY) -> Optional[str]:
    """Compile ``names`` and the files they import from coq/FreeCell/ in a folder of this process's own
    (once a process: a file is compiled again only when it, the files it imports or `coqc` changed), then
    put exactly those files into <out_dir>/coq-lib, whose earlier contents are removed: nothing compiled is
    taken from the output folder (a `Search.vo` crafted there, with its stamp, had the driver print "proven"
    for deal 1). Returns None, or the first lines of coqc's complaint."""
    lib = library_dir(out_dir)
    version = coqc_version(coqc)
    key = (os.path.abspath(coqc) if os.path.sep in coqc else coqc, version)
    if key not in _PRIVATE:
        _PRIVATE[key] = tempfile.TemporaryDirectory(prefix="coq-lib-")
    own = _PRIVATE[key].name
    stamps: Dict[str, str] = {}
    need = library_closure(names)
    for name in need:
        text = _source(name)
        digest = hashlib.sha256(version.encode() + b"\0" + text)
        for dep in library_closure(imports(text.decode("utf-8", "replace"))):
            digest.update(stamps[dep].encode())
        stamps[name] = want = digest.hexdigest()
        vo = os.path.join(own, name + ".vo")
        if _COMPILED.get((own, name)) == want and os.path.isfile(vo):
            continue
        _COMPILED.pop((own, name), None)
        cmd = [coqc, "-q", "-Q", own, "FreeCell", "-o", vo, os.path.join(COQ_SRC, name + ".v")]
        with empty_folder() as cwd:
            p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        if p.returncode != 0:
            refuse_if_disk_full(own)
            return f"coqc {name}.v failed: " + " ".join((p.stdout + p.stderr).split())[:400]
        if not os.path.isfile(vo):
            return f"coqc ({coqc}) ended with status 0 on {name}.v but wrote no {shown(vo)}"
        _COMPILED[own, name] = want
    _fresh_folder(lib)
    for name in need:
        shutil.copyfile(os.path.join(own, name + ".vo"), os.path.join(lib, name + ".vo"))
    return None


def _fresh_folder(lib: str):
    """``lib`` made an empty folder: what was there removed (a link replaced, not followed); one line when
    something cannot be removed."""
    if os.path.islink(lib) or os.path.isfile(lib):
        os.remove(lib)
    shutil.rmtree(lib, ignore_errors=True)
    os.makedirs(lib, exist_ok=True)
    left = os.listdir(lib)
    if left:
        raise FreecellError(f"{shown(os.path.join(lib, left[0]))}: could not be removed (no compiled file is taken from "
                            f"the output folder): nothing was checked by Coq")


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


def _load_path(out_dir: str) -> List[str]:
    return ["-Q", library_dir(out_dir), "FreeCell", "-Q", coq_dir(out_dir), GENERATED_PREFIX]


def run_coqc(coqc: str, path: str, out_dir: str, progress: bool = False) -> CoqRun:
    """coqc on a file of <out_dir>/coq (the module Generated.<Stem>), against the library in <out_dir>/coq-lib."""
    path = os.path.abspath(path)
    log = os.path.splitext(path)[0] + ".log"
    cmd = [coqc, "-q", "-noglob"] + _load_path(out_dir) + [path]
    with empty_folder() as cwd:
        return _run(cmd, log, cwd, progress_label=f"coqc {os.path.basename(path)}" if progress else None)


# -- The driver: the statement, checked apart from the file that proves it ----------------------------

def check_statement(coqc: str, path: str, ctx: Dict, statement: str, out_dir: str) -> CoqRun:
    """Write and compile the driver of the (compiled) module at ``path``, which must be in <out_dir>/coq;
    the run's `assumptions` are its `Print Assumptions` report, read from its standard output alone."""
    path = os.path.abspath(path)
    if os.path.dirname(path) != coq_dir(out_dir):
        raise ValueError(f"{path} is not in {coq_dir(out_dir)}")
    stem = os.path.splitext(os.path.basename(path))[0]
    drv = driver_path(path)
    os.makedirs(os.path.dirname(drv), exist_ok=True)
    write_atomic(drv, driver_text(f"{GENERATED_PREFIX}.{stem}", ctx["theorem_name"], full_statement(statement, ctx)))
    t0 = time.perf_counter()
    with empty_folder() as cwd:
        p = subprocess.run([coqc, "-q", "-noglob"] + _load_path(out_dir) + [drv], cwd=cwd,
                           capture_output=True, text=True, errors="replace")
    log = os.path.splitext(drv)[0] + ".log"
    write_atomic(log, p.stdout + p.stderr)
    return CoqRun(ok=p.returncode == 0, seconds=time.perf_counter() - t0, max_rss_kib=0, output=p.stdout + p.stderr,
                  log=log, assumptions=parse_assumptions(p.stdout) if p.returncode == 0 else None,
                  extra={"driver": drv})


def _coq_error(output: str) -> str:
    """coqc's complaint in one line: from its `Error:` on (or its last line)."""
    i = output.find("Error:")
    text = output[i:] if i >= 0 else (output.strip().splitlines() or ["no output"])[-1]
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."


def assumptions_words(run: CoqRun) -> str:
    if run.assumptions is None:
        return "no Print Assumptions report"
    if not run.assumptions:
        return "closed under the global context (no axioms)"
    if run.only_primitives:
        n = len(run.assumptions)
        return f"no axioms; only Coq's primitive integers and arrays ({n} primitive{'' if n == 1 else 's'}, each with its type)"
    return "ASSUMES " + "; ".join(run.unexpected)


# -- coqchk: the compiled files checked again, without the virtual machine ------------------------------

COQCHK_CLEAN = ("* Theory: Set is predicative", "* Constants/Inductives relying on unsafe (co)fixpoints: <none>",
                "* Inductives whose positivity is assumed: <none>")


def coqchk_axioms(output: str) -> List[str]:
    """The names coqchk's summary lists under `* Axioms:` (every axiom of the libraries it loaded)."""
    m = re.search(r"^\* Axioms:\n((?:[ \t]+\S+\n)*)", output, re.M)
    return m.group(1).split() if m else []


def run_coqchk(coqchk: str, path: str, out_dir: str, names: Sequence[str]) -> CoqRun:
    """coqchk on the library files ``names``, the module at ``path`` and its driver (each checked, Coq's
    standard library loaded unchecked); ok when coqchk accepts them and its summary names no unsafe fixpoint,
    no assumed positivity, no collapsed universe hierarchy and no axiom outside Coq's standard library
    (coqchk loads no plugin: its summary holds even if a plugin had coqc print a false report)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    cmd = [coqchk, "-silent", "-o"] + _load_path(out_dir)
    for lib in [f"FreeCell.{n}" for n in names] + [f"{GENERATED_PREFIX}.{stem}", f"{GENERATED_PREFIX}.check.{stem}"]:
        cmd += ["-norec", lib]
    run = _run(cmd, os.path.splitext(driver_path(path))[0] + ".coqchk.log", coq_dir(out_dir))
    foreign = [a for a in coqchk_axioms(run.output) if not a.startswith("Coq.")]
    run.ok = run.ok and all(line in run.output for line in COQCHK_CLEAN) and "inconsistent" not in run.output \
        and "* Axioms:" in run.output and not foreign
    if foreign:
        run.output += f"\nError: axioms outside Coq's standard library: {', '.join(foreign)}\n"
    return run


# -- Checking a file: what certgen.prove's Coq backend calls ------------------------------------------------

def _mib(kib: int) -> str:
    return f"{kib / 1024:,.0f} MiB"


def prove_cert(cert, out_dir: str, coqc: Optional[str], progress: bool = False,
               say: Callable = print, coqchk: bool = False) -> Tuple[int, Optional[CoqRun]]:
    """Render a certificate's Coq file and run coqc on it. (exit status, run): 0 proven, 1 not, 3 no coqc."""
    path, ctx = render_cert(cert, out_dir)
    say(f"  wrote {shown(path)} (no positions: Coq's search, {ctx['check']}, builds its own set; the "
        f"certificate held {ctx['state_count']:,})")
    return check_file(path, ctx, out_dir, coqc, UNWINNABLE, progress, say, coqchk)


def check_file(path: str, ctx: Dict, out_dir: str, coqc: Optional[str], statement: str, progress: bool = False,
               say: Callable = print, coqchk: bool = False, step: str = "4/4 coq") -> Tuple[int, Optional[CoqRun]]:
    """coqc on a rendered file (the library first), then its driver: the statement (``{r}`` the rules, ``{s}``
    the start) by full paths, and its assumptions; with ``coqchk``, coqchk on the compiled files. Plain words
    on what Coq did (or did not); "proven" only when all of it passed. (status, the module's run, its
    `assumptions` the driver's): 0 proven, 1 not, 3 no coqc (or no coqchk when asked for).
    All of it runs in a folder of its own (:func:`_check_privately`), on a copy of the file taken once: nothing
    compiled is read from <out_dir>, which someone may write while coqc runs (a module's `.vo` swapped between
    its coqc and the driver's would be taken as checked). What was compiled is copied into <out_dir> after."""
    say(f"{step}: coqc {shown(path)}")
    if coqc is None:
        print("coqc is not on PATH (Debian: apt-get install coq): the Coq file is kept, and NOTHING was "
              "checked by Coq.", file=sys.stderr)
        return 3, None
    checker = on_path("coqchk") if coqchk else None
    if coqchk and checker is None:
        print("coqchk is not on PATH (it comes with coqc): NOTHING was checked again by coqchk.", file=sys.stderr)
        return 3, None
    with open(path, "rb") as f:
        text = f.read()
    names = library_closure(imports(text.decode("utf-8", "replace")))
    changed = library_changes(names)
    if changed:
        why = "the statement would mean something else" if changed[0].startswith("coq/FreeCell/Spec.v") else \
            "a library file that is not the reviewed one (certgen/coqcheck.py PINNED)"
        say(f"{changed[0]}: {why}: NOT proven")
        return 1, None
    old_term = term_as_interrupt()      # SIGTERM: the Ctrl-C path (coqc stopped, the private folder removed)
    try:
        return _check_apart(path, text, ctx, out_dir, coqc, statement, names, checker, progress, say)
    finally:
        restore_term(old_term)


def _check_apart(path: str, text: bytes, ctx: Dict, out_dir: str, coqc: str, statement: str, names: List[str],
                 checker: Optional[str], progress: bool, say: Callable) -> Tuple[int, Optional[CoqRun]]:
    """:func:`check_file` past its checks of the module's imports (``text``, the module read once): the private
    folder, the checks in it, the copy into <out_dir>."""
    said: List[str] = []
    with tempfile.TemporaryDirectory(prefix="coq-check-") as work:
        mine = os.path.join(coq_dir(work), os.path.basename(path))
        os.makedirs(coq_dir(work))
        with open(mine, "wb") as f:
            f.write(text)

        def home(p: str) -> str:
            """Where the file ``p`` of the private folder is copied in <out_dir>."""
            return os.path.join(os.path.abspath(out_dir), os.path.relpath(p, work))
        try:
            status, run = _check_privately(mine, ctx, work, coqc, statement, names, checker, progress, home,
                                           said.append)
        finally:
            _publish(work, out_dir)
    for line in said:
        say(line)
    if run is not None:
        for r in [run] + [r for r in run.extra.values() if isinstance(r, CoqRun)]:
            r.log = home(r.log)
        if "driver" in run.extra and isinstance(run.extra["driver"], CoqRun):
            run.extra["driver"].extra["driver"] = home(run.extra["driver"].extra["driver"])
    return status, run


def _check_privately(path: str, ctx: Dict, work: str, coqc: str, statement: str, names: List[str],
                     checker: Optional[str], progress: bool, home: Callable,
                     say: Callable) -> Tuple[int, Optional[CoqRun]]:
    """:func:`check_file`'s checks on the module at ``path`` in the folder ``work`` (the library copied into
    it from this process's own); ``home(p)``: the path shown for the file ``p`` of ``work``."""
    shown_statement = statement.format(r=ctx["rules_coq"], s=ctx["start_coq"])
    err = build_library(coqc, work, names)
    if err:
        say(f"the Coq library does not compile: {err}: NOT proven")
        return 1, None
    run = run_coqc(coqc, path, work, progress)
    figures = f"coqc {run.seconds:.1f} s, peak {_mib(run.max_rss_kib)}"
    if not run.ok:
        refuse_if_disk_full(work)
        last = [l for l in run.output.strip().splitlines() if l.strip()][-1:] or ["no output"]
        say(f"coqc failed ({figures}; {last[0].strip()}; log {shown(home(run.log))}): NOT proven")
        return 1, run
    drv = check_statement(coqc, path, ctx, statement, work)
    run.assumptions, run.extra["driver"] = drv.assumptions, drv
    where = f"driver {shown(home(drv.extra['driver']))}, log {shown(home(drv.log))}"
    if not drv.ok:
        say(f"the statement check failed ({where}): {_coq_error(drv.output)}: NOT proven")
        return 1, run
    if drv.assumptions is None:
        first = (drv.output.strip().splitlines() or ["nothing"])[0]
        say(f"the driver's Print Assumptions gave no report of axioms only ({where}; it begins {first!r}): NOT proven")
        return 1, run
    if not run.only_primitives:
        say(f"coqc succeeded but the theorem's assumptions are not Coq's own ({assumptions_words(run)}): NOT proven")
        return 1, run
    if checker:
        chk = run_coqchk(checker, path, work, names)
        run.extra["coqchk"] = chk
        if not chk.ok:
            say(f"coqchk refused the compiled files ({chk.seconds:.1f} s; {_coq_error(chk.output)}; log "
                f"{shown(home(chk.log))}): NOT proven")
            return 1, run
        figures += f", coqchk {chk.seconds:.1f} s, peak {_mib(chk.max_rss_kib)}"
    say(f"proven by Coq: {ctx['theorem_name']} : {shown_statement} ({figures}; statement checked by the driver "
        f"{shown(home(drv.extra['driver']))}; {assumptions_words(run)})")
    return 0, run


def _publish(work: str, out_dir: str):
    """The files a check compiled and wrote in ``work`` copied into <out_dir>, for the user to look at or run
    coqchk on (nothing reads them back): the library into <out_dir>/coq-lib (its earlier contents removed),
    the rest of ``work``/coq, with the module's source as it was compiled, into <out_dir>/coq.
    A link met in <out_dir> (a folder's or a file's, put there by whoever writes it) is replaced, never
    followed: nothing is written outside <out_dir>. One line when a file cannot be written."""
    out = os.path.abspath(out_dir)
    _fresh_folder(library_dir(out))
    for top, _dirs, files in os.walk(work):
        for name in sorted(files):
            src = os.path.join(top, name)
            rel = os.path.relpath(src, work)
            dst = os.path.join(out, rel)
            try:
                _own_folders(out, os.path.dirname(rel))
                if os.path.islink(dst):
                    os.remove(dst)
                with open(src, "rb") as f:
                    write_atomic(dst, f.read())
            except OSError as e:
                raise FreecellError(f"{shown(dst)}: the compiled files could not be copied into the output folder "
                                    f"({e.strerror or e}): nothing is claimed") from None


def _own_folders(out: str, rel: str):
    """The folders of the relative path ``rel`` made below ``out``, each a folder of its own: a link (or a
    file) where one of them goes is removed first."""
    p = out
    for part in rel.split(os.sep) if rel else []:
        p = os.path.join(p, part)
        if os.path.islink(p) or (os.path.lexists(p) and not os.path.isdir(p)):
            os.remove(p)
        if not os.path.isdir(p):
            os.mkdir(p)


# -- audit-coq: a module held to its certificate and the library to its pins ----------------------------------

def _first_difference(have: bytes, want: bytes) -> str:
    a, b = have.decode("utf-8", "replace").splitlines(), want.decode("utf-8", "replace").splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {i + 1} is {ascii(x[:70])}, the rendering has {ascii(y[:70])}"
    i = min(len(a), len(b))
    if len(a) != len(b):
        extra = (a if len(a) > len(b) else b)[i]
        return f"{'it' if len(a) > len(b) else 'the rendering'} has more lines, from line {i + 1}: {ascii(extra[:70])}"
    return "the bytes differ (line ends or the end of the file)"


def audit_file(path: str, cert_path: Optional[str], coqc: Optional[str], say: Callable = print,
               coqchk: bool = False) -> int:
    """Hold the module at ``path`` to the one rendered from its certificate (``cert_path``, default
    <folder above>/<Stem>.cert), byte for byte, and coq/FreeCell/ to its pinned digests; then compile the
    rendering in a fresh folder, its library from coq/FreeCell/, and check it through the driver.
    0 audited and proven, 1 refused, 3 no coqc."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if not path.endswith(".v") or not IDENT.match(stem):
        raise FreecellError(f"{path}: not a generated Coq module (<Stem>.v, a letter then letters and digits)")
    if not os.path.isfile(path):
        raise FreecellError(f"{path}: " + ("not a regular file" if os.path.exists(path) else "no such file"))
    cert_path = cert_path or os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(path))), stem + ".cert")
    if not os.path.isfile(cert_path):
        raise FreecellError(f"{path}: no certificate at {cert_path} (give --cert CERT)")
    changed = library_changes()
    if changed:
        more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
        say(f"{shown(path)}: {changed[0]}{more}: NOT audited")
        return 1
    cert = certificate.read(cert_path)
    if stem != cert_stem(cert):
        say(f"{shown(path)}: {shown(cert_path)} is the certificate of {user_text(cert.label())} (its module is "
            f"{cert_stem(cert)}.v), not of this module: NOT audited")
        return 1
    want, _ = cert_module(cert)
    with open(path, "rb") as f:
        have = f.read()
    if have != want.encode("utf-8"):
        say(f"{shown(path)} is not the module rendered from {shown(cert_path)}: "
            f"{_first_difference(have, want.encode('utf-8'))}: NOT audited")
        return 1
    say(f"audit-coq: {shown(path)} is the module rendered from {shown(cert_path)}; coq/FreeCell/*.v have their "
        f"pinned digests")
    with tempfile.TemporaryDirectory(prefix="audit-coq-") as tmp:
        fresh, ctx = render_cert(cert, tmp)
        return check_file(fresh, ctx, tmp, coqc, UNWINNABLE, say=say, coqchk=coqchk, step="audit-coq")[0]
