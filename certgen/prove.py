"""The one pipeline behind ``python -m certgen prove``, ``prove-coq``, ``prove-known`` and ``prove-survey``:

  1 explore and write the certificate (:func:`prepare`, :func:`build`),
  2 read it back and check it with both checkers (:func:`check_both`: the fast checker build/fccheck when it
    is built, and the Python reference checker; valid only when both say so). The reference checks every
    member, or, for ``prove`` when a prover will decide anyway (coqc on PATH: its own search; or lake found for
    a module in the library: its check of every member) and the fast checker is built, the start, "no member is won" and the closure of a
    random sample of PROVE_SAMPLE members (certgen/sampled.py; :func:`reference_sample`; ``full_reference``:
    every member),
  3 render each prover's file, 4 run each prover (:func:`prove_prepared`): Lean (`lake build`) and Coq
    (coqc, certgen/coq.py and coqcheck.py) are its backends, each on the same certificate,

and one closing line per prover (:func:`closing`). ``prove-win`` is Lean's winning-line command.

Each takes values (a solver.source.Source, solver.rules.Rules, paths) and reports its steps through
``say`` (one line a step; the steps that can take more than a second show a progress bar when
``progress``). The certificate is read back from the file once; the renderers read its records. Every step's
wall time is kept in ``phases`` (scripts/bench.py prints them).

Exit statuses of the prove commands: 0 a prover proved the theorem and none refused it; 1 a negative
answer (not unwinnable, a check failed, a prover refused); 3 no prover ran (NOT_AVAILABLE; or the prover
asked for with --prover is missing); 4 (prove) the solver found a winning line first: the start is
winnable, and prove-win is the command that proves it.
"""
import contextlib
import os
import random
import shlex
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from solver import deals, packed, report, search, spec
from solver.atomic import check_not_input, remove_made, temp_folder_for, unwritable
from solver.disksearch import explore_within, say_resume
from solver.errors import FreecellError
from solver.limits import DISK_MAX_STATES, EXPLORE_STATES, PROVE_FIRST_SOLVE_STATES, PROVE_QUICK_SOLVE_STATES, \
    PROVE_SAMPLE, SOLVE_STATES
from solver.lines import step_indices
from solver.rules import STANDARD, Rules
from solver.solve import judge, solve
from solver.source import Source, load

from . import (audit, certificate, checker, coq, coqcheck, fastcheck, known, lake, members, names, render, sampled,
               survey, upto)
from .paths import GENERATED, OUT, PROVERS, on_path, shown


@contextlib.contextmanager
def _timed(phases, name):
    """Add the wall time of the ``with`` block to ``phases[name]``."""
    t = time.perf_counter()
    try:
        yield
    finally:
        phases[name] = phases.get(name, 0.0) + time.perf_counter() - t


@dataclass
class Built:
    """What ``build`` did: the verdict, its sentence, the certificate (None unless unwinnable)."""
    verdict: str
    summary: str
    states: int
    cert: Optional[certificate.Summary]    # written straight from the C core (certificate.write_search)
    path: str
    phases: Dict[str, float] = field(default_factory=dict)
    kept: Optional[str] = None             # --work-dir: the folder kept to go on (the search stopped before its end)


def build(source: Source, rules: Rules, out_path: str, max_states: Optional[int] = None,
          progress: bool = False, memory: Optional[int] = None, tmp: Optional[str] = None,
          on_disk: bool = False, work_dir: Optional[str] = None, out_flag: str = "--out",
          level: Optional[int] = None, done: Optional[search.ExploreResult] = None) -> Built:
    """Explore (the C core), decide the verdict (solver.solve.judge), and write the certificate when it is
    unwinnable. With ``memory`` (bytes) the enumeration goes on disk when it would not fit (at once with
    ``on_disk``; solver/disksearch.py; its files in ``tmp``, by default next to the certificate, or in the
    resumable ``work_dir``) and has no default limit on positions besides the certificate's; a certificate's
    folder that cannot be written, or an ``out_path`` that is a folder, is refused before the search (one line
    naming it and ``out_flag``, the option that chose it). ``level``: the certificate's zlib level (default
    certificate.body_level). ``done``: an enumeration of ``source`` under ``rules`` already made in memory (it is
    closed here), used instead of a search."""
    phases, made = {}, []
    try:
        try:
            folder = _writable(source, rules, out_path, memory, tmp, work_dir, out_flag, made)
        except BaseException:
            if done is not None:
                done.close()
            raise
        with _timed(phases, "search"):
            if done is not None:
                result = done
            elif memory is None:
                max_states = max_states or EXPLORE_STATES
                result = search.explore(source.position, rules, max_states=max_states, progress=progress)
            else:
                max_states = max_states or DISK_MAX_STATES
                tmp = folder if tmp is None and work_dir is None else tmp
                result = explore_within(source.position, rules, memory, tmp, max_states, progress, on_disk=on_disk,
                                        work_dir=work_dir, on_resume=say_resume(source.name))
        try:
            verdict, line = judge(source.position, result, rules)
            summary = report.explore_summary(source.name, verdict, result, rules, max_states,
                                             None if line is None else len(line) - 1)
            cert = None
            if verdict == "unwinnable":
                with _timed(phases, "write"):
                    # a resumed disk search's time is its runs' together (the work folder's state keeps it)
                    searched = getattr(result, "total_seconds", result.seconds)
                    info = {"max_home": result.max_home, "verdict": verdict,
                            "search_seconds": round(float(searched), 4)}
                    cert = _write(out_path, source, rules, result.search, info, progress, memory, level)
                if _resumed(result):
                    _check_resumed(out_path, work_dir, progress)
            kept = work_dir if getattr(result, "kept", False) and cert is None else None
            return Built(verdict, summary, result.states, cert, out_path, phases, kept)
        finally:
            result.close()
    finally:
        remove_made(made)                       # those still empty: no certificate was written in them


def _resumed(result) -> bool:
    """Whether a disk search went on from a work folder's files (its search's state, or its sort's)."""
    sort = getattr(getattr(result, "search", None), "sort_resumed", None)
    return getattr(result, "resumed", None) is not None or sort is not None


def _check_resumed(out_path: str, work_dir: Optional[str], progress: bool):
    """A certificate made from a work folder's files: they are the user's to change (a sort state or a layer file
    forged to agree with its checksums gave "unwinnable" for #11982 with 29,235 of its 84,767 positions), so
    the fast checker (or the reference checker where it is not built) must accept the certificate before it
    is kept and its verdict said; else it is removed and nothing is claimed."""
    other = fastcheck.another()         # FCCHECK naming another program: named, as `certgen check` names it
    by = f" ({fastcheck.named(other)})" if other else ""
    print(f"the search went on from the files of {shown(work_dir)}: the certificate is checked{by} before its verdict",
          file=sys.stderr, flush=True)
    got = fastcheck.checked(out_path, progress=progress)
    if not got.ok:
        with contextlib.suppress(OSError):
            os.remove(out_path)
        raise FreecellError(f"the certificate made from the files of --work-dir {shown(work_dir)} is not valid "
                            f"({got.message}): they were damaged or changed, so nothing is claimed and no "
                            f"certificate is kept; remove the folder and start again")


def _writable(source: Source, rules: Rules, out_path: str, memory, tmp, work_dir, out_flag: str,
              made: list) -> Optional[str]:
    """build's checks before its search: the certificate's path and folder (returned; the folders made for
    it appended to ``made``)."""
    check_not_input(out_path, source.path)
    rules.header()          # a certificate exists for these rules (fixed columns or up to column order)
    if work_dir is not None and os.path.commonpath([os.path.realpath(out_path), os.path.realpath(work_dir)]) == \
            os.path.realpath(work_dir):
        raise FreecellError(f"--out {out_path}: inside --work-dir {work_dir}, whose files the search removes; "
                            f"write the certificate elsewhere")
    if os.path.isdir(out_path):
        raise FreecellError(f"cannot write {out_path}: Is a directory")      # as the write itself says it
    folder = temp_folder_for(out_path, made)
    why = folder and unwritable(folder)
    if why:             # hours of search, then no certificate (and, by default, no folder for the disk files)
        used = ", and the disk search's files (no --tmp given)" if memory is not None and tmp is None and \
            work_dir is None else ""
        raise FreecellError(f"cannot write in {folder} ({why}): the certificate goes there{used}; "
                            f"give another {out_flag}")
    return folder


def _write(out_path, source, rules, search, info, progress, memory=None, level=None):
    """The certificate of a finished enumeration: straight from the C core (certificate.write_search), or,
    up to column order, its records put into the checkers' column order and sorted again (certgen/upto.py;
    in runs that fit ``memory``)."""
    if not rules.column_order:
        return certificate.write_search(out_path, source.to_header(), rules.header(), source.position, search,
                                        info, progress, level)
    batches = upto.sorted_batches(upto.exported(search), temp_folder_for(out_path),
                                  upto.run_for(memory, len(search)), progress, len(search))
    return certificate.write_sorted(out_path, source.to_header(), rules.header(), source.position, batches,
                                    len(search), info, progress, level)


def built_words(b: Built) -> str:
    if b.cert is None and b.kept is not None:
        return f"no certificate written: the search stopped at its limit and is {report.kept_words(b.kept)}"
    if b.cert is None:
        return "no certificate written: a certificate needs the whole reachable set and no won position"
    size = f" ({os.path.getsize(b.path):,} bytes)" if os.path.isfile(b.path) else ""   # not for a device
    return f"certificate: {shown(b.path)}{size}"


@dataclass
class Prepared:
    """Steps 1-2 of the pipeline for one start: the certificate, read back and checked by both checkers."""
    source: Optional[Source]                # None for a survey's certificate (no standalone Lean file)
    rules: Optional[Rules]                  # None for a survey's certificate (its header holds them)
    cert_path: str
    cert: Optional[certificate.Certificate] = None
    check: Optional[checker.CheckResult] = None
    phases: Dict[str, float] = field(default_factory=dict)
    verdict: str = "unknown"

    @property
    def ok(self) -> bool:
        return self.check is not None and self.check.ok


def prepare(source: Source, rules: Rules, out_dir: str, max_states: Optional[int] = None,
            progress: bool = False, say: Callable = print, memory: Optional[int] = None,
            tmp: Optional[str] = None, on_disk: bool = False, work_dir: Optional[str] = None,
            kernel: Optional[str] = None, done: Optional[search.ExploreResult] = None) -> Prepared:
    """Explore (``done``: see :func:`build`), write the certificate (``out_dir/<Stem>.cert``), read it back and
    check it (``kernel``: see :func:`check_both`)."""
    os.makedirs(out_dir, exist_ok=True)
    p = Prepared(source, rules, os.path.join(out_dir, f"{source.stem(rules)}.cert"))
    say("1/4 explore: the C core enumerates the reachable positions"
        + (" up to column order" if rules.column_order else ""))
    b = build(source, rules, p.cert_path, max_states, progress, memory, tmp, on_disk, work_dir, out_flag="--out-dir",
              done=done)
    p.phases.update(b.phases)
    p.verdict = b.verdict
    say(b.summary)
    say(built_words(b))
    if b.cert is not None:
        check_both(p, progress, say, kernel=kernel)
    return p


# why a sample of the reference is enough, by kernel_ahead's answer: Coq's kernel proves the theorem by its own
# search (coq/FreeCell/Search.v), which reads no certificate; Lean's generated modules prove their check of every
# member by native_decide (compiled code, which the kernel takes on trust: docs/TRUST.md)
WHY_SAMPLE = {"Coq": "Coq's kernel proves the theorem by its own search",
              "Lean": "Lean's compiled check (native_decide) checks every member"}


def reference_sample(states: int, kernel: Optional[str]) -> Optional[int]:
    """How many members the Python reference checks the closure of: every one (None) unless ``kernel`` (the
    prover that will decide: "Coq" or "Lean") is given, the fast checker is built (it checks every
    member; build/fccheck itself, not another program named by FCCHECK) and the certificate has more than
    PROVE_SAMPLE members; then PROVE_SAMPLE."""
    return PROVE_SAMPLE if kernel and fastcheck.binary() == fastcheck.BINARY and states > PROVE_SAMPLE else None


def check_both(p: Prepared, progress: bool, say: Callable, label: str = "  ", kernel: Optional[str] = None) -> None:
    """Step 2: the certificate file read back (what it holds, not what was meant to be written) and checked by
    the Python reference checker (the transliterated spec) and, when it is built, by the fast checker
    (build/fccheck, every member); valid only when both say so. The reference checks every member (its
    positions decoded once, certgen/checker.py), or, with ``kernel`` (:func:`reference_sample`), the start,
    that no member is won and the closure of a random sample of members (certgen/sampled.py: the records as
    they are, no decoding; the seed is printed, ``certgen check --reference --sample N --seed S`` checks the
    same sample again). ``label`` starts the check's line."""
    with ThreadPoolExecutor(1) as pool:       # the fast checker (a process) runs while Python reads and checks
        exe = fastcheck.binary()
        fast = pool.submit(fastcheck.check, p.cert_path, exe=exe) if exe else None
        with _timed(p.phases, "read"):
            p.cert = certificate.read(p.cert_path)
        sample = reference_sample(p.cert.states, kernel)
        if sample is None:
            say("2/4 check: the independent Python checker (the transliterated Lean spec) on every member")
            with _timed(p.phases, "decode"):
                try:
                    decoded = members.decode(p.cert, progress)
                except members.StartMismatch:
                    decoded = None                           # the checker reports it as an invalid certificate
            with _timed(p.phases, "check"):
                p.check = checker.check(p.cert, progress, members=decoded)
        else:
            say(f"2/4 check: the independent Python checker (the transliterated Lean spec) on a sample of "
                f"{sample:,} of the {p.cert.states:,} members, as {WHY_SAMPLE[kernel]} "
                f"(--full-reference: every member); the fast checker on every member")
            seed = random.SystemRandom().randrange(sampled.MAX_SEED + 1)
            with _timed(p.phases, "check"):
                p.check = sampled.check(p.cert, b"".join(p.cert.records), sample, seed, progress)
        say(label + checker.report(p.check))
        if fast is not None:
            with _timed(p.phases, "fastcheck"):      # what is left of its time once Python is done
                fast = fast.result()
            say(f"  fast checker ({shown(exe)}): {fast.message}")
            if fast.ok != p.check.ok:
                say("  the two checkers disagree: NOT proven")
                p.check.ok = False


def kernel_ahead(wanted: Optional[str], rules: Rules, lean_dir: Optional[str], coqchk: bool = False) -> Optional[str]:
    """The prover that will decide (Coq by its own search, Lean by its check of every member), as far as can
    be told before the search: "Coq" when coqc is on PATH (and coqchk with ``coqchk``), "Lean" when lake is found (not installed
    here), the certificate is Lean's (fixed columns) and the modules go to the library's folder; None when
    neither (then the Python reference checks every member). ``wanted``: the prover asked for, if any."""
    if wanted in (None, "coq") and coqcheck.find_coqc() and not (coqchk and on_path("coqchk") is None):
        return "Coq"
    if wanted in (None, "lean") and not rules.column_order and lake.find_lake() and \
            os.path.abspath(lean_dir or GENERATED) == GENERATED:
        return "Lean"
    return None


# -- The provers: Lean and Coq as backends of one pipeline ---------------------------------------------------

PROVED, REFUSED, NOT_AVAILABLE = 0, 1, lake.NOT_AVAILABLE


@dataclass
class Prover:
    """One prover: its name, the tool that runs it (lake, coqc; None when not available) and why not."""
    key: str
    tool: Optional[str]
    why: str = ""

    @property
    def name(self) -> str:
        return {"lean": "Lean", "coq": "Coq"}[self.key]

    def not_available(self, kept: str) -> "Outcome":
        return Outcome(NOT_AVAILABLE, f"{self.name}: not available ({self.why}) — nothing checked by {self.name}; "
                                      f"{kept}")


@dataclass
class Outcome:
    """What one prover did: PROVED, REFUSED or NOT_AVAILABLE, and the line that says it."""
    status: int
    line: str


def find_provers(wanted: Optional[str], say: Callable) -> Optional[List[Prover]]:
    """The provers to run: ``wanted`` ("lean" or "coq"), or both. Lean's lake is looked for on PATH and in
    ~/.elan, then installed when asked (certgen/lake.py, scripts/install_lean.sh); Coq's coqc on PATH.
    The commands look for a prover asked for by name before the search, and refuse it here when it is
    missing (one line on stderr, and None: the command exits NOT_AVAILABLE); for every prover, once there
    is a checked certificate to give them."""
    found = []
    for key in ([wanted] if wanted else PROVERS):
        if key == "lean":
            found.append(lean_prover(say))
        else:
            found.append(Prover(key, coqcheck.find_coqc(), "coqc is not on PATH; Debian: apt-get install coq"))
    missing = [p for p in found if p.tool is None]
    if wanted and missing:
        print(f"{missing[0].name} is not available ({missing[0].why}): nothing was checked", file=sys.stderr)
        return None
    return found


def lean_prover(say: Callable) -> Prover:
    """Lean: lake on PATH or in ~/.elan, else installed when allowed (certgen/lake.py's bootstrap)."""
    tool, why = lake.find_lake(), ""
    if tool is None:
        tool, why = lake.bootstrap(say)
    return Prover("lean", tool, why)


def closing(outcomes: List[Outcome], say: Callable) -> int:
    """The last lines of every prove command, one per prover, and the exit status: REFUSED when a prover
    refused, PROVED when one proved it (and none refused), NOT_AVAILABLE when none ran."""
    for o in outcomes:
        say(o.line)
    statuses = {o.status for o in outcomes}
    return REFUSED if REFUSED in statuses else PROVED if PROVED in statuses else NOT_AVAILABLE


class _Held:
    """A ``say`` that holds back a prover's closing lines ("proven by …", "… NOT proven") so that the
    pipeline prints them once, together, at its end."""

    def __init__(self, say):
        self.say, self.last = say, None

    def __call__(self, text=""):
        if text.startswith("proven by ") or text.endswith("NOT proven"):
            self.last = text
        else:
            self.say(text)


def lean_dir_for(prover: Prover, lean_dir: Optional[str], out_dir: str) -> str:
    """Where the Lean modules go: ``lean_dir`` when given; else the library's folder (where lake builds
    them) when Lean is available, and ``out_dir/lean`` when it is not, so that the library folder holds
    only shipped modules and what Lean built."""
    if lean_dir:
        return lean_dir
    return GENERATED if prover.tool else os.path.join(out_dir, "lean")


def render_lean(p: Prepared, lean_dir: str, out_dir: str, say: Callable) -> Optional[str]:
    """Step 3 for Lean: the module (in ``lean_dir``) and the standalone file (``out_dir/<Stem>.lean``).
    Returns the module's name, or None for a certificate up to column order (not Lean's)."""
    if Rules.from_dict(p.cert.rules).column_order:
        return None
    standalone = os.path.join(out_dir, f"{p.source.stem(p.rules)}.lean") if p.source else None
    with _timed(p.phases, "render"):
        paths = render.render_certificate(p.cert, lean_dir, standalone)
    for path in paths:
        say(f"  wrote {shown(path)}")
    return names.module_name(p.cert)


def lean_build(prover: Prover, targets: List[str], theorems: List[str], lean_dir: str, say: Callable,
               step: str = "4/4") -> Outcome:
    """`lake build` of the modules, and one line on what Lean did (or why it did not)."""
    if not targets:
        return Outcome(NOT_AVAILABLE, "Lean: a certificate up to column order is not Lean's (the column lemma is "
                                      "proved in Coq only) — nothing checked by Lean")
    where = f"the modules are in {shown(lean_dir)}"
    if prover.tool is None and prover.why:          # looked for and not found (else: not looked for)
        return prover.not_available(where)
    if prover.tool is None or os.path.abspath(lean_dir) != GENERATED:
        return Outcome(NOT_AVAILABLE, f"Lean: not run — {where}, outside the library's folder (--lean-dir "
                                      f"{shown(GENERATED)} builds them) — nothing checked by Lean")
    problems = audit.scan_library()     # `certgen audit`'s scan and pins: what lake build cannot see
    if problems:
        return Outcome(REFUSED, f"Lean: {problems[0]}{f' (and {len(problems) - 1} more)' if len(problems) > 1 else ''}"
                                f": NOT proven")
    say(f"{step} lean: lake build " + " ".join(targets))
    status, words = lake.build(targets, say)
    if status != 0:
        return Outcome(REFUSED if status == 1 else NOT_AVAILABLE, f"Lean: {words}: NOT proven")
    return Outcome(PROVED, "\n".join(f"proven by Lean: {t}" for t in theorems))


def coq_check(prover: Prover, run: Callable, say: Callable) -> Outcome:
    """One Coq check (``run(coqc, say)``: certgen/coqcheck.py's prove_cert or check_file) and its closing line."""
    held = _Held(say)
    status, _ = run(prover.tool, held)
    if status == NOT_AVAILABLE:
        return prover.not_available("the Coq file is kept")
    if held.last and held.last.startswith("proven by "):
        return Outcome(status, held.last)
    return Outcome(status, f"Coq: {held.last or f'coqc exit {status}: NOT proven'}")


def prove_prepared(done: List[Prepared], provers: List[Prover], out_dir: str, lean_dir: Optional[str],
                   progress: bool, say: Callable, coqchk: bool = False) -> int:
    """Steps 3-4 for checked certificates: each prover renders its files and checks them; then one line
    per prover and the exit status (see :func:`closing`). ``coqchk``: Coq's compiled files checked again by
    coqchk."""
    outcomes = []
    for prover in provers:
        if prover.key == "lean":
            where = lean_dir_for(prover, lean_dir, out_dir)
            say("3/4 render: Lean files")
            modules = [render_lean(p, where, out_dir, say) for p in done]
            keep = [(m, names.theorem_name(p.cert)) for m, p in zip(modules, done) if m is not None]
            outcomes.append(lean_build(prover, [m for m, _ in keep], [t for _, t in keep], where, say))
        else:
            results = []
            for p in done:
                say("3/4 render: the Coq file")
                results.append(coq_check(prover, lambda coqc, s, p=p: coqcheck.prove_cert(
                    p.cert, out_dir, coqc, progress, s, coqchk), say))
            worst = max(results, key=lambda o: (o.status == REFUSED, o.status == NOT_AVAILABLE))
            outcomes.append(Outcome(worst.status, "\n".join(o.line for o in results)
                                    if worst.status == PROVED else worst.line))
    return closing(outcomes, say)


WINNABLE = 4                    # prove's exit status when the solver found a winning line first


def first_enumeration(source: Source, rules: Rules, limit: int) -> Optional[search.ExploreResult]:
    """The enumeration of ``source``'s positions in memory, stopped at ``limit`` positions or at a won one:
    returned when it is complete without a won position (the start is unwinnable, and this is its certificate's
    set), else closed and None (the solver then looks for a winning line)."""
    result = search.explore(source.position, rules, max_states=limit)
    if result.complete and not result.won:
        return result
    result.close()
    return None


def prove_win_command(source: Source, rules: Rules) -> str:
    """The command that proves ``source`` winnable under ``rules`` (and its make form for a deal)."""
    args = ["python -m certgen prove-win"]
    make = None
    rule_args = (["--cells", str(rules.cells)] if source.kind != "code" and rules.cells != 4 else []) \
        + (["--foundation-return"] if rules.foundation_return else [])
    if source.kind == "ms":
        args.append(f"--deal {source.deal}")
        make = f"make prove-win DEAL={source.deal}" + (f" CELLS={rules.cells}" if rules.cells != 4 else "") \
            + (" RULES=foundation-return" if rules.foundation_return else "")
    elif source.kind == "code":
        args.append(f"--code {source.code}")
    else:
        args.append(f"--board {shlex.quote(source.path)}")
    text = " ".join(args + rule_args)
    return text if make is None else f"{text} (or {make})"


def prove(source: Source, rules: Rules, out_dir: str, lean_dir: Optional[str] = None,
          max_states: Optional[int] = None, progress: bool = False, say: Callable = print,
          memory: Optional[int] = None, tmp: Optional[str] = None, on_disk: bool = False,
          work_dir: Optional[str] = None, prover: Optional[str] = None, win: bool = False,
          coqchk: bool = False, full_reference: bool = False) -> int:
    """The pipeline for one start: find the provers, explore and write the certificate, check it with both
    checkers, render each prover's file, run each prover; one closing line per prover (:func:`closing`).
    First the solver up to PROVE_QUICK_SOLVE_STATES (most winning lines take a few thousand), then an
    enumeration in memory up to the solver's cheap limit (:func:`first_enumeration`): complete without a won
    position, it is the certificate's, and there is no winning line for the solver to find. Else the solver
    (the same limit). When the solver finds a winning line, replay-verified, there is nothing unwinnable to
    prove: one line with the prove-win command, exit status WINNABLE. With ``win``
    (prove-coq) the search comes first and a winnable start's line is proven instead (a line on the real
    columns proves it, whatever an enumeration up to column order counted). ``memory``/``tmp``: the
    enumeration past memory (see build). The Python reference checks a sample of the members when a kernel
    will check them all (:func:`kernel_ahead`), every member with ``full_reference``."""
    done = None
    if not win:
        limit = min(PROVE_FIRST_SOLVE_STATES, max_states or PROVE_FIRST_SOLVE_STATES)
        first = solve(source.position, rules, max_states=min(PROVE_QUICK_SOLVE_STATES, limit))
        if first.verdict != "winnable":
            done = first_enumeration(source, rules, limit) if memory is None else None
            first = solve(source.position, rules, max_states=limit) if done is None else None
        if first is not None and first.verdict == "winnable":
            say(f"{source.name}{report.rules_words(rules)} is winnable (a line of {first.length} single-card "
                f"moves, replayed against the spec rules): nothing unwinnable to prove; the win is proven by "
                f"{prove_win_command(source, rules)}")
            return WINNABLE
    provers = find_provers(prover, say) if prover else []      # a prover asked for: before the search
    if provers is None:
        if done is not None:
            done.close()
        return NOT_AVAILABLE
    kernel = None if full_reference else kernel_ahead(prover, rules, lean_dir, coqchk)
    p = prepare(source, rules, out_dir, max_states, progress, say, memory, tmp, on_disk, work_dir, kernel, done)
    if p.cert is None and p.verdict == "winnable" and win:
        return prove_line(source, rules.plain(), provers or find_provers(None, say), out_dir, max_states, say, coqchk)
    if p.cert is None:
        say(f"nothing to prove: the verdict is {p.verdict}"
            + (" (try `make prove-win`)" if p.verdict == "winnable" else ""))
        return REFUSED
    if not p.ok:
        return REFUSED
    return prove_prepared([p], provers or find_provers(None, say), out_dir, lean_dir, progress, say, coqchk=coqchk)


def winning_line(source: Source, rules: Rules, max_states: Optional[int], say: Callable):
    """The C solver's line, replayed against spec.moves in Python; None (said) when there is none."""
    r = solve(source.position, rules, max_states=max_states or SOLVE_STATES)
    say("  " + report.solve_summary(source.name, r))
    if r.verdict != "winnable":
        say(f"nothing to prove: the verdict is {r.verdict}"
            + (" (try `make prove`)" if r.verdict == "unwinnable" else ""))
        return None
    return r


def prove_line(source: Source, rules: Rules, provers: List[Prover], out_dir: str, max_states: Optional[int],
               say: Callable, coqchk: bool = False) -> int:
    """A winnable start: its winning line's theorem `exists s, Reachable rules start s /\\ Won s`, checked by
    each prover (Lean: the Win module and lake build, as prove-win; Coq: its file and coqc)."""
    say("2/4 solve: a short winning line (the C solver), replayed against spec.moves in Python")
    r = winning_line(source, rules, max_states, say)
    if r is None:
        return REFUSED
    start, stem = r.path[0], "Win" + source.stem(rules)
    indices = step_indices(rules.spec(), start, r.path[1:])
    deal = source.deal if source.deal is not None and spec.ms_deal(source.deal) == start else None
    label = None if deal is not None else source.name
    outcomes = []
    for prover in provers:
        say(f"3/4 render: the {prover.name} file")
        if prover.key == "lean":
            where = win_lean_dir(stem) if prover.tool else os.path.join(out_dir, "lean")
            say("  wrote " + shown(render.render_win(indices, where, rules=rules, deal=deal, start=start, stem=stem,
                                                     label=label)))
            module = names.win_module(stem)
            outcomes.append(lean_build(prover, [module], [f"{module}.{names.theorem_short_name(deal, 'winnable')}"],
                                       where, say))
        else:
            path, ctx = coq.render_win(indices, start, rules, out_dir, deal=deal, label=label, stem=stem)
            say(f"  wrote {shown(path)}")
            outcomes.append(coq_check(prover, lambda coqc, s: coqcheck.check_file(
                path, ctx, out_dir, coqc, coq.WINNABLE, False, s, coqchk), say))
    return closing(outcomes, say)


def prove_known(out_dir: str, lean_dir: Optional[str], table: str, max_states: Optional[int] = None,
                progress: bool = False, say: Callable = print, prover: Optional[str] = None) -> int:
    """Every deal of 1..1,000,000 known to be unsolvable, under the standard rules: certificates, both
    checks, the table (docs/KNOWN.md), then each prover on all of them (one `lake build`)."""
    provers = find_provers(prover, say) if prover else []
    if provers is None:
        return NOT_AVAILABLE
    rows, done = [], []
    for deal in known.KNOWN:
        say(f"== deal {deal}")
        t0 = time.perf_counter()
        p = prepare(load(deal=deal), STANDARD, out_dir, max_states, progress, say)
        if not p.ok:
            say(f"deal {deal}: no proof could be prepared")
            return REFUSED
        rows.append(known.row(deal, p.cert, p.cert_path, p.check, time.perf_counter() - t0))
        done.append(p)
    known.write_table(rows, table)
    say(f"wrote {shown(table)}")
    say(f"wrote {shown(known.write_timings(rows, os.path.join(out_dir, 'known-timings.csv')))}")
    return prove_prepared(done, provers or find_provers(None, say), out_dir, lean_dir, progress, say)


def prove_survey(folder: str, out_dir: str, lean_dir: Optional[str], progress: bool = False,
                 say: Callable = print, prover: Optional[str] = None) -> int:
    """Every certificate of a finished survey folder (certgen survey), as its journal lists them: each must
    hold the deal its file name and the journal say; both checks, then each prover. Ends with the deals
    proven and the deals that could not be, by number."""
    rules, listed = survey.certificates(folder)
    provers = find_provers(prover, say) if prover else []     # a prover asked for: before the checks
    if provers is None:
        return NOT_AVAILABLE
    done, failed = [], []
    for n, path in listed:
        name = os.path.basename(path)
        p = Prepared(None, None, path)
        try:
            check_both(p, progress, say, label=f"{name}: ")
        except FreecellError as e:
            say(f"{name}: {e}")
            failed.append(n)
            continue
        if p.cert.source != {"kind": "ms", "deal": n} or p.cert.start != packed.pack(deals.ms_deal(n)):
            say(f"{name}: not deal {n}'s certificate (its start is not deal {n}'s, which its name and the "
                f"survey's journal say)")
            failed.append(n)
        elif p.cert.rules != rules.to_dict():
            say(f"{name}: a certificate under other rules than the survey's"
                f"{report.rules_words(rules) or ' (the standard rules)'}: it proves nothing about deal {n} here")
            failed.append(n)
        elif p.ok:
            done.append((n, p))
        else:
            failed.append(n)
    named = {os.path.basename(path) for _n, path in listed}
    for name in sorted(set(os.listdir(os.path.join(folder, "certs"))) - named):
        say(f"{name}: not a certificate the survey's journal names: left out")
    status = PROVED
    if not listed:
        say("no unwinnable deal in this survey: nothing to prove")
    elif done:
        status = prove_prepared([p for _n, p in done], provers or find_provers(None, say), out_dir, lean_dir, progress, say)
    proven = [n for n, _p in done] if status == PROVED else []
    failed = sorted(failed + ([] if status == PROVED else [n for n, _p in done]))
    say("proven: " + (" ".join(map(str, proven)) or "none") + "; could not prove: "
        + (" ".join(map(str, failed)) or "none"))
    return status if status != PROVED else (REFUSED if failed else PROVED)


def win_lean_dir(stem: str) -> str:
    """Where prove-win writes without --lean-dir: the library folder when the module ships there (its
    file exists: #1, #617, #1941), else out/, so that scratch output stays out of tracked folders."""
    return GENERATED if os.path.exists(os.path.join(GENERATED, stem + ".lean")) else OUT


def prove_win(source: Source, rules: Rules, lean_dir: Optional[str], max_states: Optional[int] = None,
              say: Callable = print) -> int:
    """Solve (the C solver; the line is replayed against spec.moves in Python), render the Win module, lake
    build it (Lean only). 0 proven by Lean; 1 no verified winning line, or lake build failed; 3 Lean is not
    available (the verified line's module is kept)."""
    say("1/3 solve: the C solver finds a line; Python replays it against spec.moves")
    r = winning_line(source, rules, max_states, say)
    if r is None:
        return REFUSED
    say("2/3 render: the Lean module")
    stem = "Win" + source.stem(rules)
    lean_dir = lean_dir or win_lean_dir(stem)
    path = render.render_win(step_indices(rules.spec(), r.path[0], r.path[1:]), lean_dir, rules=rules,
                             deal=source.deal, start=r.path[0], stem=stem,
                             label=None if source.deal is not None else source.name)
    say(f"  wrote {shown(path)}")
    module = names.win_module(stem)
    lean = lean_prover(say) if os.path.abspath(lean_dir) == GENERATED else Prover("lean", None)
    return closing([lean_build(lean, [module], [f"{module}.{names.theorem_short_name(source.deal, 'winnable')}"],
                               lean_dir, say, step="3/3")], say)
