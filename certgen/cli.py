"""``python -m certgen``: build, check, mutate, render certificates, and the whole ``prove`` pipeline.

Exit status: 0 success (check: valid; prove: Lean checked the theorem), 1 a negative answer (check:
invalid; prove: the deal is not unwinnable, the Python check failed, or `lake build` failed), 2 bad input
(one line on stderr), 3 (prove) Lean is not available: the certificate and the Lean files are kept and
the Python check's result is reported, but nothing was proven by Lean.
"""
import os
import sys

from solver.cli import EXPLORE_MAX_STATES, run, _Parser, _add_source_args, load_source, _resolve_cells, _max_states_arg, verdict_of
from solver.errors import FreecellError

PROG = "python -m certgen"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEAN_DIR = os.path.join(ROOT, "lean", "FreeCell", "Generated")


def say(text=""):
    print(text, flush=True)


def shown(path):
    """A path as people read it: relative to the checkout when it lies inside it."""
    path = os.path.abspath(path)
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def _progress(args):
    return not getattr(args, "json", False) and not getattr(args, "no_progress", False) and sys.stderr.isatty()


# --- build --------------------------------------------------------------------------------------------

def build_certificate(args, out_path, quiet=False, src=None):
    """Explore (C core), then write the certificate when the verdict is unwinnable. Returns (verdict,
    result, certificate or None). ``src``: the start position when the caller has already read it (a
    board on stdin can be read only once)."""
    from solver import search
    from . import certificate
    if src is None:
        src = load_source(args.deal, args.board, args.code)
    cells = _resolve_cells(args, src)
    rules = {"cells": cells, "foundation_return": bool(args.foundation_return)}
    max_states = _max_states_arg(args.max_states) if getattr(args, "max_states", None) else EXPLORE_MAX_STATES
    result = search.explore(src.position, search.Rules(**rules), max_states=max_states,
                            progress=_progress(args))
    verdict = verdict_of(result)
    cert = None
    if verdict == "unwinnable":
        header = {"deal": src.deal, "source": src.source, "rules": rules, "position": src.position,
                  "max_home": result.max_home, "verdict": verdict}
        cert = certificate.write_from_search(out_path, result, header)
    if not quiet:
        from solver.cli import explore_summary
        say(explore_summary(src.label, verdict, result, rules, max_states))
        say(f"certificate: {out_path} ({os.path.getsize(out_path):,} bytes)" if cert else
            "no certificate written: a certificate needs the whole reachable set and no won position")
    return verdict, result, cert


def cmd_build(args):
    verdict, _, cert = build_certificate(args, args.out)
    return 0 if cert is not None else 1


# --- check, info, mutate ------------------------------------------------------------------------------

def cmd_check(args):
    from . import certificate, checker
    cert = certificate.read(args.cert)
    res = checker.check(cert, progress=_progress(args))
    if args.json:
        import json
        say(json.dumps({"certificate": args.cert, "valid": res.ok, "states": res.states,
                        "checked": res.checked, "successors": res.successors, "failure": res.failure,
                        "message": checker.report(res)}))
    else:
        say(checker.report(res))
    return 0 if res.ok else 1


def cmd_info(args):
    from . import certificate
    cert = certificate.read(args.cert)
    obj = {"certificate": args.cert, "source": cert.source, "rules": cert.rules, "states": cert.states,
           "bytes": os.path.getsize(args.cert), "info": cert.info}
    obj["bytes_per_state"] = round(obj["bytes"] / max(1, cert.states), 2)
    if args.json:
        import json
        say(json.dumps(obj))
    else:
        from solver.cli import _rules_words
        rules = _rules_words(cert.rules).strip(" ()") or "standard rules"
        say(f"{cert.label()}: {cert.states:,} states, {rules}, {obj['bytes']:,} bytes "
            f"({obj['bytes_per_state']} bytes/state)")
    return 0


def cmd_mutate(args):
    from . import certificate, mutate
    if (args.delete is None) == (not args.add_won):
        raise FreecellError("give exactly one of --delete KIND and --add-won")
    cert = certificate.read(args.cert)
    kind = "add-won" if args.add_won else args.delete
    mutant, changed = mutate.mutate(cert, kind, seed=args.seed)
    certificate.write(args.out, mutant)
    verb = "added" if args.add_won else "deleted"
    say(f"{args.out}: {kind}: {verb} {len(changed)} state(s); {mutant.states:,} states")
    return 0


# --- render and prove ---------------------------------------------------------------------------------

def cmd_render(args):
    from . import certificate
    cert = certificate.read(args.cert)
    if args.mutant and not (cert.info or {}).get("mutation"):
        raise FreecellError(f"{args.cert} is not a mutant (`certgen mutate` writes those); --mutant renders "
                            f"a check that expects the certificate to be refused")
    for path in render_all(cert, args.lean_dir, args.standalone, mutant=args.mutant):
        say(f"wrote {path}")
    return 0


def render_all(cert, lean_dir, standalone=None, mutant=False):
    from . import render
    paths = [render.render_mutant(cert, lean_dir) if mutant else render.render_deal(cert, lean_dir)]
    if standalone:
        paths.append(render.render_standalone(cert, standalone, mutant=mutant))
    return paths


def find_lake():
    import shutil
    found = shutil.which("lake")
    if found:
        return found
    elan = os.path.join(os.path.expanduser("~"), ".elan", "bin", "lake")
    return elan if os.access(elan, os.X_OK) else None


def bootstrap_lean():
    """Install elan and the pinned toolchain with the official installer (LEAN_BOOTSTRAP=0: don't)."""
    if os.environ.get("LEAN_BOOTSTRAP", "1") == "0":
        return None, "LEAN_BOOTSTRAP=0"
    import subprocess
    script = os.path.join(ROOT, "scripts", "install_lean.sh")
    say("lake is not on PATH: trying to install elan and the pinned Lean toolchain (LEAN_BOOTSTRAP=0 skips this)")
    proc = subprocess.run(["bash", script], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True)
    lake = find_lake()
    if lake:
        return lake, None
    last = (proc.stdout.strip().splitlines() or ["no output"])[-1]
    return None, f"the installer failed ({last})"


def lean_build(targets):
    """`lake build` the given modules. Returns (exit status, words): 0 proven; 1 the build failed; 3 Lean is
    not available (after trying to install it unless LEAN_BOOTSTRAP=0)."""
    lake = find_lake()
    why = "lake is not on PATH"
    if lake is None:
        lake, why = bootstrap_lean()
    if lake is None:
        return 3, f"Lean is not available ({why})"
    import subprocess
    proc = subprocess.run([lake, "build", *targets], cwd=ROOT)
    if proc.returncode != 0:
        return 1, f"lake build failed (exit {proc.returncode})"
    return 0, "lake build succeeded"


def prepare(args, deal=None):
    """Steps 1-3 of `prove` for one start position: explore, certificate, Python check, render.
    Returns (certificate or None, its path, the check result or None, module name or None)."""
    from . import certificate, checker, render
    out_dir = args.out_dir
    os.makedirs(out_dir, exist_ok=True)
    if deal is not None:
        args.deal, args.board, args.code = str(deal), None, None
    src = load_source(args.deal, args.board, args.code)
    name = render.module_stem(src.deal, src.source, args)
    cert_path = os.path.join(out_dir, f"{name}.cert")
    say("1/4 explore: the C core enumerates the reachable positions")
    verdict, result, cert = build_certificate(args, cert_path, src=src)
    if cert is None:
        say(f"nothing to prove: the verdict is {verdict}"
            + (" (try `make prove-win`)" if verdict == "winnable" else ""))
        return None, cert_path, None, None
    say("2/4 check: the independent Python checker (the transliterated Lean spec)")
    res = checker.check(certificate.read(cert_path), progress=_progress(args))
    say("  " + checker.report(res))
    if not res.ok:
        return cert, cert_path, res, None
    say("3/4 render: Lean files")
    for p in render_all(cert, args.lean_dir, os.path.join(out_dir, f"{name}.lean")):
        say(f"  wrote {shown(p)}")
    return cert, cert_path, res, render.module_name(cert)


def finish(targets, theorems, lean_dir, step="4/4",
           kept="the Python check says valid, the certificate and Lean files are kept"):
    """The last step of every prove command: lake build, and plain words on what Lean did (or did not)."""
    say(f"{step} lean: lake build " + " ".join(targets))
    if os.path.abspath(lean_dir) != LEAN_DIR:
        status, words = 3, (f"the modules were written to {lean_dir}, outside the library's folder "
                            f"{shown(LEAN_DIR)}, so lake build was not run")
    else:
        status, words = lean_build(targets)
    if status == 3:
        print(f"{words}: {kept}, and NOTHING was checked by Lean.", file=sys.stderr)
    elif status == 1:
        say(f"{words}: NOT proven")
    else:
        for t in theorems:
            say(f"proven by Lean: {t}")
    return status


def cmd_prove(args):
    from . import render
    cert, _, res, module = prepare(args)
    if module is None:
        return 1
    return finish([module], [render.theorem_name(cert)], args.lean_dir)


KNOWN = (11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948)


def cmd_prove_known(args):
    """Every deal of 1..1,000,000 known to be unsolvable: certificates, Python checks, Lean modules,
    docs/KNOWN.md, then one `lake build` for all of them."""
    import time
    from . import known, render
    rows, targets, theorems = [], [], []
    for deal in KNOWN:
        say(f"== deal {deal}")
        t0 = time.perf_counter()
        cert, path, res, module = prepare(args, deal=deal)
        if module is None:
            say(f"deal {deal}: no proof could be prepared")
            return 1
        rows.append(known.row(deal, cert, path, res, time.perf_counter() - t0))
        targets.append(module)
        theorems.append(render.theorem_name(cert))
    known.write_table(rows, args.table)
    say(f"wrote {shown(args.table)}")
    return finish(targets, theorems, args.lean_dir)


def cmd_audit(args):
    """`#print axioms` on every generated theorem; Lean's three standard axioms plus native_decide's own."""
    from . import render
    path = render.render_audit()
    say(f"wrote {shown(path)}")
    status, words = lean_build([])
    if status != 0:
        print(f"{words}: no axioms were printed, nothing was audited by Lean.", file=sys.stderr)
        return status
    import subprocess
    proc = subprocess.run([find_lake(), "env", "lean", path], cwd=ROOT, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    found = render.check_axioms_output(proc.stdout)
    bad = {k: v for k, v in found.items() if v}
    if proc.returncode != 0 or not found or bad:
        say(f"audit failed: {bad or proc.stderr.strip() or 'no theorems printed'}")
        return 1
    say(f"audit: {len(found)} theorems depend only on propext, Classical.choice, Quot.sound and native_decide")
    return 0


# --- prove-win: a winning line (solver.solve) -> Lean module -> lake build ------------------------------

def cmd_prove_win(args):
    """Solve (the C solver; the line is replayed against spec.moves in Python), render the Win module, lake
    build it. Exit 0 proven by Lean; 1 no verified winning line, or lake build failed; 2 bad input; 3 Lean
    is not available (the verified line's module is kept)."""
    from solver import solve as solvemod
    from solver.cli import solve_summary
    from . import render
    src = load_source(args.deal, args.board, args.code)
    cells = _resolve_cells(args, src)
    fr = bool(args.foundation_return)
    max_states = _max_states_arg(args.max_states) if getattr(args, "max_states", None) else \
        solvemod.DEFAULT_MAX_STATES
    say("1/3 solve: the C solver finds a line; Python replays it against spec.moves")
    try:
        r = solvemod.solve(src.position, cells=cells, foundation_return=fr, max_states=max_states)
    except solvemod.LineError as exc:
        say(f"  {exc}")
        return 1
    say("  " + solve_summary(src.label, r, {"cells": cells, "foundation_return": fr}))
    if r.verdict != "winnable":
        say(f"nothing to prove: the verdict is {r.verdict}"
            + (" (try `make prove`)" if r.verdict == "unwinnable" else ""))
        return 1
    say("2/3 render: the Lean module")
    label = None if src.deal is not None else src.label
    path = solvemod.render_lean(r, deal=src.deal, label=label, lean_dir=args.lean_dir)
    say(f"  wrote {shown(path)}")
    target = f"{render.MODULE_PREFIX}.{os.path.splitext(os.path.basename(path))[0]}"
    theorem = f"{target}.{render.theorem_short_name(src.deal, 'winnable')}"
    return finish([target], [theorem], args.lean_dir, step="3/3",
                  kept="the line is verified in Python and the Lean module is written")


# --- the parser ---------------------------------------------------------------------------------------

def _add_rules(p, rules=True):
    if rules:
        p.add_argument("--cells", metavar="K", help="number of free cells, 0..8 (default 4)")
        p.add_argument("--foundation-return", action="store_true",
                       help="allow a foundation's top card back onto a column")
    p.add_argument("--max-states", metavar="K", help="stop the search after K positions (verdict unknown)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")


def build_parser():
    p = _Parser(prog=PROG, description="Certificates of unwinnability: build, check, mutate, render, prove. "
                "Exit status: 0 success (check: valid; prove: Lean checked the theorem), 1 a negative answer "
                "(check: invalid; prove: not unwinnable, or the check or `lake build` failed), 2 bad input "
                "(one line `error: ...`), 3 (prove) Lean is not available: nothing was checked by Lean.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    b = sub.add_parser("build", help="explore and write a certificate")
    _add_source_args(b, positional=False)
    _add_rules(b)
    b.add_argument("--out", metavar="CERT", required=True,
                   help="the certificate to write (only when the verdict is unwinnable; else exit 1)")
    b.set_defaults(func=cmd_build)

    c = sub.add_parser("check", help="check a certificate with the Python transliteration of the spec")
    c.add_argument("cert", metavar="CERT", help="the certificate file")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.add_argument("--no-progress", action="store_true", help="no progress bar")
    c.set_defaults(func=cmd_check)

    i = sub.add_parser("info", help="what a certificate holds")
    i.add_argument("cert", metavar="CERT", help="the certificate file")
    i.add_argument("--json", action="store_true", help="print one JSON object")
    i.set_defaults(func=cmd_info)

    m = sub.add_parser("mutate", help="delete states from (or add a won state to) a certificate")
    m.add_argument("cert", metavar="CERT", help="the certificate to start from")
    m.add_argument("--delete", metavar="KIND", help="deal | first-successor | last-successor | random:K")
    m.add_argument("--add-won", action="store_true", help="add the won position")
    m.add_argument("--seed", type=int, default=0, help="random seed for random:K (default 0)")
    m.add_argument("--out", metavar="CERT2", required=True, help="where to write the mutant")
    m.set_defaults(func=cmd_mutate)

    r = sub.add_parser("render", help="render the Lean module (and a standalone file) for a certificate")
    r.add_argument("cert", metavar="CERT", help="the certificate file")
    r.add_argument("--lean-dir", default=LEAN_DIR, help="where generated modules go (default %(default)s)")
    r.add_argument("--standalone", metavar="FILE", help="also write one self-contained .lean file")
    r.add_argument("--mutant", action="store_true", help="render a check that expects checkCert = false")
    r.set_defaults(func=cmd_render)

    v = sub.add_parser("prove", help="explore, certificate, Python check, render, lake build")
    _add_source_args(v, positional=False)
    _add_rules(v)
    v.add_argument("--out-dir", default=os.path.join(ROOT, "out"), help="certificates and standalone files")
    v.add_argument("--lean-dir", default=LEAN_DIR, help="generated Lean modules (default %(default)s)")
    v.set_defaults(func=cmd_prove)

    k = sub.add_parser("prove-known", help="prove every known unsolvable deal of 1..1,000,000",
                       description="The eight deals of 1..1,000,000 known to be unsolvable, under the standard "
                                   "rules (4 free cells, no foundation returns; `prove` takes other rules): "
                                   "certificates, Python checks, Lean modules, the table docs/KNOWN.md, then "
                                   "one `lake build`.")
    _add_rules(k, rules=False)
    k.add_argument("--out-dir", default=os.path.join(ROOT, "out"), help="certificates and standalone files")
    k.add_argument("--lean-dir", default=LEAN_DIR, help="generated Lean modules (default %(default)s)")
    k.add_argument("--table", default=os.path.join(ROOT, "docs", "KNOWN.md"), help="the table to write")
    k.set_defaults(func=cmd_prove_known, deal=None, board=None, code=None, cells=None, foundation_return=False)

    a = sub.add_parser("audit", help="#print axioms for every generated theorem (needs Lean)")
    a.set_defaults(func=cmd_audit)

    q = sub.add_parser("prove-coq", help="the same theorem checked by Coq: explore, certificate (or winning line), "
                       "Python check, Coq file, coqc (exit 3: no coqc)")
    _add_source_args(q, positional=False)
    _add_rules(q)
    q.add_argument("--out-dir", default=os.path.join(ROOT, "out"), help="certificates and Coq files (in OUT_DIR/coq)")
    from .coq import cmd_prove_coq
    q.set_defaults(func=cmd_prove_coq)

    w = sub.add_parser("prove-win", help="solve, check the line in Python, render the Win module, lake build")
    _add_source_args(w, positional=False)
    _add_rules(w)
    w.add_argument("--lean-dir", default=LEAN_DIR, help="generated Lean modules (default %(default)s)")
    w.set_defaults(func=cmd_prove_win)
    return p


def main(argv=None):
    return run(build_parser(), argv)
