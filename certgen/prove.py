"""The pipelines behind ``python -m certgen``: build, check, render, lake build; prove (all of them
for one start), prove-known (the eight known unsolvable deals) and prove-win (a winning line).

Each takes values (a solver.source.Source, solver.rules.Rules, paths) and reports its steps through
``say`` (one line a step; the steps that can take more than a second show a progress bar when
``progress``). In ``prove`` the certificate is written, read back from the file once, its positions
decoded once (certgen/members.py), checked, and rendered from one context: the certificate text is
encoded once for the module and the standalone file. Every step's wall time is kept in ``phases``
(scripts/bench.py prints them).

Exit statuses of the prove commands: 0 Lean checked the theorem; 1 a negative answer (not unwinnable,
the Python check failed, `lake build` failed); 3 Lean is not available (lake.NOT_AVAILABLE); 4 (prove)
the solver found a winning line first: the start is winnable, and prove-win is the command that proves it.
"""
import contextlib
import os
import shlex
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from solver import report, search, spec
from solver.atomic import check_not_input, temp_folder_for, unwritable
from solver.disksearch import explore_within, say_resume
from solver.errors import FreecellError
from solver.lines import judge, step_indices
from solver.rules import STANDARD, Rules
from solver.solve import DEFAULT_MAX_STATES as SOLVE_MAX_STATES, solve
from solver.source import Source, load

from . import certificate, checker, coq, fastcheck, known, lake, members, render, upto
from .paths import GENERATED, OUT, shown


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
          on_disk: bool = False, work_dir: Optional[str] = None, out_flag: str = "--out") -> Built:
    """Explore (the C core), decide the verdict (solver.lines.judge), and write the certificate when it is
    unwinnable. With ``memory`` (bytes) the enumeration goes on disk when it would not fit (at once with
    ``on_disk``; solver/disksearch.py; its files in ``tmp``, by default next to the certificate, or in the
    resumable ``work_dir``) and has no default limit on positions besides the certificate's; a certificate's
    folder that cannot be written, or an ``out_path`` that is a folder, is refused before the search (one line
    naming it and ``out_flag``, the option that chose it)."""
    phases = {}
    check_not_input(out_path, source.path)
    rules.header()          # a certificate exists for these rules (fixed columns or up to column order)
    if work_dir is not None and os.path.commonpath([os.path.realpath(out_path), os.path.realpath(work_dir)]) == \
            os.path.realpath(work_dir):
        raise FreecellError(f"--out {out_path}: inside --work-dir {work_dir}, whose files the search removes; "
                            f"write the certificate elsewhere")
    if os.path.isdir(out_path):
        raise FreecellError(f"cannot write {out_path}: Is a directory")      # as the write itself says it
    folder = temp_folder_for(out_path)
    why = folder and unwritable(folder)
    if why:             # hours of search, then no certificate (and, by default, no folder for the disk files)
        used = ", and the disk search's files (no --tmp given)" if memory is not None and tmp is None and \
            work_dir is None else ""
        raise FreecellError(f"cannot write in {folder} ({why}): the certificate goes there{used}; "
                            f"give another {out_flag}")
    with _timed(phases, "search"):
        if memory is None:
            max_states = max_states or search.EXPLORE_LIMIT
            result = search.explore(source.position, rules, max_states=max_states, progress=progress)
        else:
            max_states = max_states or certificate.MAX_STATES
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
                info = {"max_home": result.max_home, "verdict": verdict,
                        "search_seconds": round(float(result.seconds), 4)}
                cert = _write(out_path, source, rules, result.search, info, progress, memory)
        kept = work_dir if getattr(result, "kept", False) and cert is None else None
        return Built(verdict, summary, result.states, cert, out_path, phases, kept)
    finally:
        result.close()


def _write(out_path, source, rules, search, info, progress, memory=None):
    """The certificate of a finished enumeration: straight from the C core (certificate.write_search), or,
    up to column order, its records put into the checkers' column order and sorted again (certgen/upto.py;
    in runs that fit ``memory``)."""
    if not rules.column_order:
        return certificate.write_search(out_path, source.to_header(), rules.header(), source.position, search,
                                        info, progress)
    batches = upto.sorted_batches(upto.exported(search), temp_folder_for(out_path), upto.run_for(memory),
                                  progress, len(search))
    return certificate.write_sorted(out_path, source.to_header(), rules.header(), source.position, batches,
                                    len(search), info, progress)


def built_words(b: Built) -> str:
    if b.cert is None and b.kept is not None:
        return f"no certificate written: the search stopped at its limit and is {report.kept_words(b.kept)}"
    if b.cert is None:
        return "no certificate written: a certificate needs the whole reachable set and no won position"
    size = f" ({os.path.getsize(b.path):,} bytes)" if os.path.isfile(b.path) else ""   # not for a device
    return f"certificate: {shown(b.path)}{size}"


@dataclass
class Prepared:
    """Steps 1-3 of ``prove`` for one start: the certificate, the check, the module."""
    source: Source
    rules: Rules
    cert_path: str
    cert: Optional[certificate.Certificate] = None
    check: Optional[checker.CheckResult] = None
    module: Optional[str] = None           # the Lean module (lake target) when rendered
    theorem: Optional[str] = None
    phases: Dict[str, float] = field(default_factory=dict)
    verdict: str = "unknown"


def prepare(source: Source, rules: Rules, out_dir: str, lean_dir: str, max_states: Optional[int] = None,
            progress: bool = False, say: Callable = print, memory: Optional[int] = None,
            tmp: Optional[str] = None, on_disk: bool = False, work_dir: Optional[str] = None) -> Prepared:
    """Explore, write the certificate, read it back, check it (the Python transliteration of the spec),
    render the module and the standalone file. Everything is named after ``source.stem(rules)``."""
    stem = source.stem(rules)
    os.makedirs(out_dir, exist_ok=True)
    p = Prepared(source, rules, os.path.join(out_dir, f"{stem}.cert"))
    say("1/4 explore: the C core enumerates the reachable positions")
    b = build(source, rules, p.cert_path, max_states, progress, memory, tmp, on_disk, work_dir, out_flag="--out-dir")
    p.phases.update(b.phases)
    p.verdict = b.verdict
    say(b.summary)
    say(built_words(b))
    if b.cert is None:
        say(f"nothing to prove: the verdict is {b.verdict}"
            + (" (try `make prove-win`)" if b.verdict == "winnable" else ""))
        return p
    say("2/4 check: the independent Python checker (the transliterated Lean spec)")
    with _timed(p.phases, "read"):
        p.cert = certificate.read(p.cert_path)          # what the file holds, not what was meant to be written
    with _timed(p.phases, "decode"):
        try:
            m = members.decode(p.cert, progress)
        except members.StartMismatch:
            m = None                                     # the checker reports it as an invalid certificate
    with _timed(p.phases, "check"):
        p.check = checker.check(p.cert, progress, members=m)
    say("  " + checker.report(p.check))
    if fastcheck.binary():                               # a second opinion: the fast checker (build/fccheck)
        with _timed(p.phases, "fastcheck"):
            fast = fastcheck.check(p.cert_path)
        say(f"  fast checker (build/fccheck): {fast.message}")
        if fast.ok != p.check.ok:
            say("  the two checkers disagree: NOT proven")
            p.check.ok = False
    if not p.check.ok:
        return p
    say("3/4 render: Lean files")
    with _timed(p.phases, "render"):
        paths = render.render_certificate(p.cert, lean_dir, os.path.join(out_dir, f"{stem}.lean"), members=m)
    for path in paths:
        say(f"  wrote {shown(path)}")
    p.module, p.theorem = render.module_name(p.cert), render.theorem_name(p.cert)
    return p


def finish(targets: List[str], theorems: List[str], lean_dir: str, say: Callable = print, step: str = "4/4",
           kept: str = "the Python check says valid, the certificate and Lean files are kept") -> int:
    """The last step of every prove command: lake build, and plain words on what Lean did (or did not)."""
    say(f"{step} lean: lake build " + " ".join(targets))
    if os.path.abspath(lean_dir) != GENERATED:
        status, words = lake.NOT_AVAILABLE, (f"the modules were written to {shown(lean_dir)}, outside the "
                                             f"library's folder {shown(GENERATED)}, so lake build was not run "
                                             f"(--lean-dir {shown(GENERATED)} builds them)")
    else:
        status, words = lake.build(targets, say)
    if status == lake.NOT_AVAILABLE:
        print(f"{words}: {kept}, and NOTHING was checked by Lean.", file=sys.stderr)
    elif status == 1:
        say(f"{words}: NOT proven")
    else:
        for t in theorems:
            say(f"proven by Lean: {t}")
    return status


WINNABLE = 4                    # prove's exit status when the solver found a winning line first
FIRST_SOLVE_STATES = 1_000_000  # the solver's limit before prove enumerates (about 0.1 GB, a second or so)


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


def prove(source: Source, rules: Rules, out_dir: str, lean_dir: str, max_states: Optional[int] = None,
          progress: bool = False, say: Callable = print, memory: Optional[int] = None, tmp: Optional[str] = None,
          on_disk: bool = False, work_dir: Optional[str] = None) -> int:
    """The whole pipeline for one start: explore, certificate, Python check, render, lake build. First the
    solver (a cheap limit): when it finds a winning line, replay-verified, there is nothing unwinnable to
    prove, and prove says so in one line with the prove-win command, exit status WINNABLE (no enumeration
    of a set that may need gigabytes). ``memory``/``tmp``: the enumeration past memory (see build)."""
    first = solve(source.position, rules, max_states=min(FIRST_SOLVE_STATES, max_states or FIRST_SOLVE_STATES))
    if first.verdict == "winnable":
        say(f"{source.name}{report.rules_words(rules)} is winnable (a line of {first.length} single-card moves, "
            f"replayed against the spec rules): nothing unwinnable to prove; the win is proven by "
            f"{prove_win_command(source, rules)}")
        return WINNABLE
    p = prepare(source, rules, out_dir, lean_dir, max_states, progress, say, memory, tmp, on_disk, work_dir)
    if p.module is None:
        return 1
    return finish([p.module], [p.theorem], lean_dir, say)


def prove_known(out_dir: str, lean_dir: str, table: str, max_states: Optional[int] = None,
                progress: bool = False, say: Callable = print) -> int:
    """Every deal of 1..1,000,000 known to be unsolvable, under the standard rules: certificates, Python
    checks, Lean modules, the table (docs/KNOWN.md), then one `lake build` for all of them."""
    rows, done = [], []
    for deal in known.KNOWN:
        say(f"== deal {deal}")
        t0 = time.perf_counter()
        p = prepare(load(deal=deal), STANDARD, out_dir, lean_dir, max_states, progress, say)
        if p.module is None:
            say(f"deal {deal}: no proof could be prepared")
            return 1
        rows.append(known.row(deal, p.cert, p.cert_path, p.check, time.perf_counter() - t0))
        done.append(p)
    known.write_table(rows, table)
    say(f"wrote {shown(table)}")
    say(f"wrote {shown(known.write_timings(rows, os.path.join(out_dir, 'known-timings.csv')))}")
    return finish([p.module for p in done], [p.theorem for p in done], lean_dir, say)


def win_lean_dir(stem: str) -> str:
    """Where prove-win writes without --lean-dir: the library folder when the module ships there (its
    file exists: #1, #617, #1941), else out/, so that scratch output stays out of tracked folders."""
    return GENERATED if os.path.exists(os.path.join(GENERATED, stem + ".lean")) else OUT


def prove_win(source: Source, rules: Rules, lean_dir: str, max_states: Optional[int] = None,
              say: Callable = print) -> int:
    """Solve (the C solver; the line is replayed against spec.moves in Python), render the Win module, lake
    build it. 0 proven by Lean; 1 no verified winning line, or lake build failed; 3 Lean is not
    available (the verified line's module is kept)."""
    say("1/3 solve: the C solver finds a line; Python replays it against spec.moves")
    r = solve(source.position, rules, max_states=max_states or SOLVE_MAX_STATES)
    say("  " + report.solve_summary(source.name, r))
    if r.verdict != "winnable":
        say(f"nothing to prove: the verdict is {r.verdict}"
            + (" (try `make prove`)" if r.verdict == "unwinnable" else ""))
        return 1
    say("2/3 render: the Lean module")
    stem = "Win" + source.stem(rules)
    lean_dir = lean_dir or win_lean_dir(stem)
    path = render.render_win(step_indices(rules.spec(), r.path[0], r.path[1:]), lean_dir, rules=rules,
                             deal=source.deal, start=r.path[0], stem=stem,
                             label=None if source.deal is not None else source.name)
    say(f"  wrote {shown(path)}")
    module = render.win_module(stem)
    return finish([module], [f"{module}.{render.theorem_short_name(source.deal, 'winnable')}"], lean_dir, say,
                  step="3/3", kept="the line is verified in Python and the Lean module is written")


def prove_coq(source: Source, rules: Rules, out_dir: str, max_states: Optional[int] = None,
              progress: bool = False, say: Callable = print, coqchk: bool = False) -> int:
    """The same theorem checked by Coq (certgen/coq.py): explore, certificate (up to column order when
    ``rules.column_order``: Coq's checkCertUpTo), Python check, Coq file, coqc;
    for a winnable start, a winning line (the C solver, replayed against spec.moves in Python), its Coq
    file, coqc. 0 proven by Coq; 1 not (unknown verdict, a failed check, coqc refused); 3 no coqc (the
    Coq file is kept)."""
    stem = source.stem(rules)
    os.makedirs(out_dir, exist_ok=True)
    coqc = coq.find_coqc()
    say("1/4 explore: the C core enumerates the reachable positions"
        + (" up to column order" if rules.column_order else ""))
    b = build(source, rules, os.path.join(out_dir, f"{stem}.cert"), max_states, progress)
    say(b.summary)
    say(built_words(b))
    if b.verdict == "winnable":     # a line on the real columns proves it, whatever the enumeration counted
        return _prove_coq_win(source, rules.plain(), out_dir, coqc, max_states, progress, say, coqchk)
    if b.cert is None:
        say(f"nothing to prove: the verdict is {b.verdict}")
        return 1
    say("2/4 check: the independent Python checker (the transliterated spec)")
    cert = certificate.read(b.path)                 # what the file holds, not what was meant to be written
    t0 = time.perf_counter()
    res = checker.check(cert, progress)
    say(f"  {checker.report(res)} ({time.perf_counter() - t0:.1f} s)")
    if not res.ok:
        return 1
    say("3/4 render: the Coq file")
    return coq.prove_cert(cert, out_dir, coqc, progress, say, coqchk)[0]


def _prove_coq_win(source, rules, out_dir, coqc, max_states, progress, say, coqchk=False) -> int:
    say("2/4 solve: a short winning line (the C solver), replayed against spec.moves in Python")
    r = solve(source.position, rules, max_states=max_states or SOLVE_MAX_STATES)
    say("  " + report.solve_summary(source.name, r))
    if r.verdict != "winnable":
        say(f"nothing to prove: the solver's verdict is {r.verdict}")
        return 1
    say("3/4 render: the Coq file")
    start = r.path[0]
    deal = source.deal if source.deal is not None and spec.ms_deal(source.deal) == start else None
    path, ctx = coq.render_win(step_indices(rules.spec(), start, r.path[1:]), start, rules, out_dir, deal=deal,
                               label=None if deal is not None else source.name, stem="Win" + source.stem(rules))
    say(f"  wrote {shown(path)}")
    return coq.check_file(path, ctx, out_dir, coqc, coq.WINNABLE, progress, say, coqchk)[0]

