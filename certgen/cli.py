"""``python -m certgen``: build, check, mutate, render certificates, and the whole ``prove`` pipeline. Each
``cmd_*`` reads its values from the flags (the engine's public kit, solver/cliargs.py), calls one
function (mostly of certgen/prove.py) and prints.

Exit status: 0 success (check: valid; prove: a prover proved the theorem and none refused it), 1 a
negative answer (check: invalid; prove: the deal is not unwinnable, a check failed, or a prover refused),
2 bad input (one line on stderr), 3 (prove) no prover ran (or the one --prover asks for is missing): the
certificate and the provers' files are kept and the checks' results reported, but nothing was proven;
4 (prove) the solver found a winning line first: the start is winnable, nothing was enumerated, and the
line says which `prove-win` command proves that; 5 (check --reference --sample) valid on a sample: not
a verdict (certgen/sampled.py).
"""
import os
import random
import shlex
import sys

from solver.atomic import check_not_input
from solver.cliargs import (Parser, add_command, add_disk_args, canonical_max_states_arg, check_disk_args, jobs_arg,
                            max_states_arg, memory_arg, memory_words, progress_of, rules_of, run, source_of,
                            whole_arg, writing)
from solver.limits import (CERTIFY_CANONICAL_STATES, CERTIFY_STATES, EXPLORE_STATES, IN_MEMORY_MAX_STATES,
                           PROVE_SAMPLE, SOLVE_STATES)
from solver.deals import MAX_DEAL
from solver.errors import FreecellError
from solver.atomic import STDOUT, write_atomic
from solver.report import write, write_json

from . import certificate, checker, fastcheck, mutate, sampled
from .paths import GENERATED, KNOWN_TABLE, OUT, PROVERS, shown

PROG = "python -m certgen"


def say(text=""):
    print(text, flush=True)


def cmd_build(args):
    from . import prove
    src = source_of(args)
    with writing(args.out):
        rules = _disk_rules(args, src)
        b = prove.build(src, rules, args.out, args.max_states, progress_of(args), args.memory, args.tmp,
                        args.on_disk, args.work_dir)
    say(b.summary)
    say(prove.built_words(b))
    return 0 if b.cert is not None else 1


def _disk_rules(args, src):
    """The rules of the flags, --memory, --tmp and --work-dir checked."""
    rules = rules_of(args, src)
    check_disk_args(args, rules)
    return rules


def cmd_check(args):
    if args.cert == "-":        # both checkers (fast and --reference) read a file: say so in one line
        raise FreecellError("check reads a certificate file, not standard input (`-`): give its path")
    certificate.not_a_directory(args.cert)
    if args.sample is not None:
        return _check_sample(args)
    if args.seed is not None:
        raise FreecellError("--seed chooses the members of --sample: give --reference --sample N with it")
    got = fastcheck.checked(args.cert, progress=progress_of(args), reference=args.reference, jobs=args.jobs)
    if got.fast is not None:        # the fast checker (build/fccheck) when it is built
        say(fastcheck.report(args.cert, got.fast, args.json))
        return 0 if got.ok else 1
    return _say_check(args, got.reference)


def _say_check(args, res, verdict=None, **extra):
    """Print a checker's verdict; `verdict` is (exit status, JSON "valid") when it is not (0, true) or (1,
    false) by `res.ok` alone (a sampled check: sampled.verdict). Returns the exit status."""
    status, valid = verdict or (0 if res.ok else 1, res.ok)
    if args.json:
        write_json({"certificate": args.cert, "valid": valid, "start": res.start, "rules": res.rules,
                    "states": res.states, "checked": res.checked, "successors": res.successors,
                    "failure": res.failure, "message": checker.report(res), **extra})
    else:
        say(checker.report(res))
    return status


def _check_sample(args):
    """--reference --sample N [--seed S]: certgen/sampled.py. The seed, when not given, is drawn and printed
    (stderr; in --json too) so the same sample can be checked again."""
    if not args.reference:
        raise FreecellError("--sample is a mode of the reference checker: give --reference --sample N "
                            "(the fast checker checks every member)")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(sampled.MAX_SEED + 1)
    head, body = sampled.read(args.cert)     # the records in memory, or left on disk past SAMPLE_MEMORY
    if not args.json:
        print(f"sampled reference check: closure on {sampled.words(args.sample, head.states)}, seed {seed}",
              file=sys.stderr, flush=True)
    res = sampled.check(head, body, args.sample, seed, progress=progress_of(args), jobs=args.jobs)
    return _say_check(args, res, sampled.verdict(res), sample=args.sample, seed=seed, sample_valid=res.ok)


def cmd_info(args):
    cert = certificate.summarize(args.cert, records=not args.header_only)   # the body stays on disk
    size = os.path.getsize(args.cert) if os.path.isfile(args.cert) else None   # None: a pipe or a device
    obj = {"certificate": args.cert, "source": cert.source, "start": cert.start_json(), "rules": cert.rules,
           "states": cert.states, "records_counted": not args.header_only, "records_sha256": cert.records_sha256,
           "bytes": size, "info": cert.info,
           "bytes_per_state": None if size is None else round(size / max(1, cert.states), 2)}
    if args.json:
        write_json(obj)
    else:
        size_words = "" if size is None else f", {size:,} bytes ({obj['bytes_per_state']} bytes/state)"
        claim = " (the header's count: records not read)" if args.header_only else ""
        write(f"{cert.subject()}: {cert.states:,} states{claim}{size_words}\n")
    return 0


def cmd_mutate(args):
    if (args.delete is None) == (not args.add_won):
        raise FreecellError("give exactly one of --delete KIND and --add-won")
    if args.delete == "add-won":
        raise FreecellError("add-won deletes nothing: use --add-won")
    check_not_input(args.out, args.cert)
    kind = "add-won" if args.add_won else args.delete
    mutant, changed = mutate.mutate(certificate.read(args.cert), kind, seed=args.seed)
    with writing(args.out):
        certificate.write(args.out, mutant)
    say(f"{args.out}: {kind}: {mutate.change_words(kind, changed)}; {mutant.states:,} states")
    return 0


def cmd_render(args):
    from . import render
    check_not_input(args.standalone, args.cert)
    cert = certificate.read(args.cert)
    render.refuse_column_order(cert, args.cert)
    if args.mutant and not (cert.info or {}).get("mutation"):
        raise FreecellError(f"{args.cert} is not a mutant (`certgen mutate` writes those); --mutant renders "
                            f"a check that expects the certificate to be refused")
    if not args.mutant:
        res = checker.check(cert, progress=False)
        if not res.ok:
            raise FreecellError(f"{args.cert} fails the check ({checker.report(res)}): nothing rendered "
                                f"(--mutant renders a mutant's refusal)")
    for path in render.render_certificate(cert, args.lean_dir, args.standalone, mutant=args.mutant):
        say(f"wrote {shown(path)}")
    return 0


def cmd_render_shipped(args):
    from . import render
    with writing(args.lean_dir or GENERATED):
        paths = render.write_shipped(args.lean_dir)
    for path in paths:
        say(f"wrote {shown(path)}")
    return 0


def cmd_spec_doc(args):
    from . import specdoc
    check_not_input(args.out, *specdoc.INPUTS)
    text = specdoc.build()
    if args.out is None:
        write(text)
    else:
        with writing(args.out):
            write_atomic(args.out, text)
        if args.out != STDOUT:
            say(f"wrote {shown(args.out)}")
    return 0


def cmd_prove(args):
    from . import prove
    if args.from_survey is not None:
        if any(getattr(args, f, None) is not None for f in ("number", "deal", "board", "code")):
            raise FreecellError("give either a position or --from-survey DIR, not both")
        args.dir = args.from_survey
        return cmd_prove_survey(args)
    src = source_of(args)
    rules = _disk_rules(args, src)
    return prove.prove(src, rules, args.out_dir, args.lean_dir, args.max_states, progress_of(args), say,
                       args.memory, args.tmp, args.on_disk, args.work_dir, prover=args.prover,
                       full_reference=args.full_reference)


def cmd_prove_known(args):
    from . import prove
    return prove.prove_known(args.out_dir, args.lean_dir, args.table, args.max_states, progress_of(args), say,
                             prover=args.prover)


def cmd_audit(args):
    from . import audit
    for d in args.certs or ():
        if not os.path.isdir(d):
            raise FreecellError(f"--certs {d}: " + ("not a directory" if os.path.exists(d) else "no such directory"))
    return audit.run(args.certs, say)


def cmd_prove_win(args):
    from . import prove
    src = source_of(args)
    return prove.prove_win(src, rules_of(args, src), args.lean_dir, args.max_states, say)


def cmd_prove_coq(args):
    from . import prove
    src = source_of(args)
    return prove.prove(src, rules_of(args, src), args.out_dir, None, args.max_states, progress_of(args), say,
                       prover="coq", win=True, coqchk=args.coqchk, full_reference=args.full_reference)


def cmd_audit_coq(args):
    from . import coqcheck
    return coqcheck.audit_file(args.file, args.cert, coqcheck.find_coqc(), say, args.coqchk)


def cmd_survey(args):
    from . import survey
    from solver.survey import parse_range
    first, last = parse_range(args.range, max_range=None)
    command = " ".join(["python -m certgen"] + [shlex.quote(a) for a in sys.argv[1:]])
    summary = survey.run(first, last, args.dir, rules_of(args), args.max_states, args.second_max_states,
                         args.chunk, args.jobs, args.rows, args.engine, args.scheduler, progress_of(args), command)
    if args.json:
        write_json(summary)
    else:
        c = summary["counts"]
        say(f"deals {first:,}..{last:,}: {c['winnable']:,} winnable, {c['unwinnable']:,} unwinnable "
            f"(each certificate checked), {c['unknown']:,} unknown; this run {summary['wall_seconds']:,.1f} s"
            + (f", {summary['total_seconds']:,.1f} s in {summary['runs']} runs" if summary["runs"] > 1 else ""))
        if summary["unwinnable"]:
            say("unwinnable: " + " ".join(map(str, summary["unwinnable"])))
        if summary["unknown"]:
            say("still unknown after the second pass: " + " ".join(map(str, summary["unknown"])))
        say(f"survey directory: {shown(args.dir)} (summary.json, rows.csv, certs/)")
    return 0


def cmd_certify_list(args):
    from . import certify
    from solver.survey import parse_range
    if args.add_cert and args.range is not None:
        raise FreecellError("--add-cert adds the rows of its certificates' deals and searches nothing: give it "
                            "without --range")
    first, last = parse_range(args.range, max_range=None) if args.range is not None else (1, MAX_DEAL)
    command = " ".join(["python -m certgen"] + [shlex.quote(a) for a in sys.argv[1:]])
    counts, listed = certify.run(args.list, args.dir, first, last, args.max_states, args.canonical_max_states,
                                 args.memory, args.jobs, args.engine, args.scheduler, args.keep_certs,
                                 args.from_ledger, progress_of(args), command, add_certs=args.add_cert or ())
    done = sum(counts.values())
    say(f"listed deals {first:,}..{last:,}: {done:,} of {listed:,} in the ledger: " +
        ", ".join(f"{counts[f]:,} {f}" for f in certify.FORMS) + f"; ledger: {os.path.join(args.dir, certify.LEDGER)}")
    if counts["winnable"]:
        say(f"WINNABLE: {counts['winnable']} listed deals have a winning line (the journal's rows say which)")
    return 1 if counts["winnable"] else 0


def cmd_prove_survey(args):
    from . import prove
    return prove.prove_survey(args.dir, args.out_dir, args.lean_dir, progress_of(args), say, prover=args.prover)


def _dirs(p, out=True):
    if out:
        p.add_argument("--out-dir", default=OUT, help="certificates, standalone Lean files and Coq files (in "
                                                       "OUT_DIR/coq)")
    p.add_argument("--lean-dir", default=None,
                   help=f"generated Lean modules (default: {shown(GENERATED)}, where lake builds them, when Lean is "
                        f"available, else OUT_DIR/lean)")


def _prover_arg(p):
    p.add_argument("--prover", choices=PROVERS, default=None,
                   help="check with this prover only, and fail when it is missing (default: every prover found: "
                        "Lean's lake, Coq's coqc)")


def _full_reference_arg(p):
    p.add_argument("--full-reference", action="store_true",
                   help="the Python reference checker checks every member even when a prover will decide (Coq "
                        "by its own search, Lean by its check of every member; by default it then checks the start, that no member is won and the successors of a random "
                        f"sample of {PROVE_SAMPLE:,} members; the fast checker checks every member either way)")


def _autoplay_arg(p):
    p.add_argument("--autoplay", choices=("none", "safe"), default="none",
                   help="with --canonical: 'safe' takes each position after its safe automatic moves (header rules "
                        "autoplay: safe; fewer positions; Coq's search proves it, unwinnable_of_search_auto in "
                        "coq/FreeCell/Search.v, with Autoplay.v's lemma; not without --canonical, not with "
                        "--foundation-return); default none")


def _cert_arg(p, what="the certificate file"):
    p.add_argument("cert", metavar="CERT", help=what)


def build_parser():
    p = Parser(prog=PROG, description="Certificates of unwinnability: build, check, mutate, render, prove. "
               "Exit status: 0 success (check: valid; prove: a prover proved the theorem, none refused), 1 a "
               "negative answer (check: invalid; prove: not unwinnable, a check failed or a prover refused), 2 bad "
               "input (one line `error: ...`), 3 (prove) no prover ran: nothing was proven, 4 (prove) the "
               "start is winnable (the solver's line, replay-verified): prove-win proves that, 5 (check --sample) "
               "valid on a sample: not a verdict.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    limit = f"stop the search after K positions (verdict unknown; {memory_words(EXPLORE_STATES)})"
    start = {"source": True, "rules": True, "limit": limit, "json": False}

    b = add_command(sub, "build", cmd_build, "explore and write a certificate", **start)
    b.add_argument("--out", metavar="CERT", required=True,
                   help="the certificate to write (only when the verdict is unwinnable; else exit 1)")
    b.add_argument("--canonical", action="store_true",
                   help="a certificate up to the order of the columns (header rules column_order: true): the "
                        "search counts positions up to column order, the certificate holds one position a class, "
                        "its columns in the checkers' order (docs/CERTIFICATE.md; checked by both checkers, not "
                        "by Lean: prove-coq --canonical is its formal check)")
    _autoplay_arg(b)
    add_disk_args(b, "the certificate's folder")

    c = add_command(sub, "check", cmd_check, "check a certificate: the fast checker (build/fccheck) when built, "
                    "else the Python transliteration of the spec")
    _cert_arg(c)
    c.add_argument("--reference", action="store_true",
                   help="use the reference checker (Python, the transliterated spec) even when build/fccheck is built")
    c.add_argument("--sample", type=whole_arg("--sample", 1, certificate.MAX_STATES), nargs="?",
                   const=sampled.DEFAULT_SAMPLE, metavar="N", help="with --reference: the start, 'no member is won' (and, up to column order, the "
                   "column order) checked on every member, "
                   f"the closure on the start and N members drawn at random (default {sampled.DEFAULT_SAMPLE:,}; "
                   "every member when N is at least their number), for certificates too big to decode whole. "
                   f"A sample is not a verdict: 'valid on a sample' exits {sampled.SAMPLE_ONLY} (--json: \"valid\": null, "
                   "\"sample_valid\": true); a refusal exits 1 (\"valid\": false, it is a real one); a sample covering "
                   "every member exits 0 (the full check)")
    c.add_argument("--seed", type=whole_arg("--seed", 0, sampled.MAX_SEED), default=None,
                   help="with --sample: the random seed of the sample (default: drawn, and printed)")
    c.add_argument("--jobs", type=jobs_arg, default=None, metavar="J",
                   help="the processes of the Python reference checker (--reference, or when build/fccheck is not "
                        f"built), at most {checker.MAX_JOBS}: the full check's (one below {checker.PARALLEL_FROM:,} "
                        "members), or with --sample its first pass's when the records stay on disk (the in-memory "
                        "sample is one process); default: every CPU this process may use. The fast checker is one "
                        "process and ignores it")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.add_argument("--no-progress", action="store_true", help="no progress bar")

    i = add_command(sub, "info", cmd_info, "what a certificate holds")
    _cert_arg(i)
    i.add_argument("--json", action="store_true", help="print one JSON object")
    i.add_argument("--header-only", action="store_true",
                   help="check the SHA-256 and the header but do not read the records (seconds instead of about "
                        "1.5 hours at a billion); the count is then the header's claim")

    m = add_command(sub, "mutate", cmd_mutate, "delete states from (or add a won state to) a certificate")
    _cert_arg(m, "the certificate to start from")
    m.add_argument("--delete", metavar="KIND", help="deal | first-successor | last-successor | random:K")
    m.add_argument("--add-won", action="store_true", help="add the won position")
    m.add_argument("--seed", type=whole_arg("--seed", 0, mutate.MAX_SEED), default=0, help="random seed for random:K (default 0)")
    m.add_argument("--out", metavar="CERT2", required=True, help="where to write the mutant")

    r = add_command(sub, "render", cmd_render, "render the Lean module (and a standalone file) for a certificate")
    _cert_arg(r)
    _dirs(r, out=False)
    r.add_argument("--standalone", metavar="FILE", help="also write one self-contained .lean file")
    r.add_argument("--mutant", action="store_true", help="render a check that expects checkCert = false")

    rs = add_command(sub, "render-shipped", cmd_render_shipped, "rewrite the shipped Lean modules that need no "
                     "input: the kernel-only certificates of deal #1 and the spec's #guard checks",
                     "Writes lean/FreeCell/Generated/KernelDeal1Cells1.lean, KernelDeal1Cells0.lean (every reachable "
                     "position as a list, checked by `decide +kernel`) and SpecGuards.lean (#guard checks of the "
                     "spec against the seed documents); a test holds the shipped files to this rendering.")
    rs.add_argument("--lean-dir", default=None, help=f"where to write them (default: {shown(GENERATED)})")
    sd = add_command(sub, "spec-doc", cmd_spec_doc, "print docs/SPEC.md: the Lean spec, its Coq twin and its Python "
                     "transliteration side by side",
                     "Quotes lean/FreeCell/Spec.lean, coq/FreeCell/Spec.v and solver/spec.py verbatim, definition "
                     "by definition; a test holds docs/SPEC.md to this text.")
    sd.add_argument("--out", metavar="FILE", default=None, help="write it to FILE (atomically) instead of "
                    "standard output, e.g. --out docs/SPEC.md")

    pr = add_command(sub, "prove", cmd_prove, "explore, certificate, both checkers, then every prover found "
                     "(Lean: lake build; Coq: coqc)", **start)
    _dirs(pr)
    _prover_arg(pr)
    _full_reference_arg(pr)
    add_disk_args(pr, "the certificate's folder")
    pr.add_argument("--from-survey", metavar="DIR", default=None,
                    help="instead of one position: every certificate of a survey directory (= prove-survey DIR)")
    k = add_command(sub, "prove-known", cmd_prove_known, "prove every known unsolvable deal of 1..1,000,000",
                    "The eight deals of 1..1,000,000 known to be unsolvable, under the standard rules (4 free "
                    "cells, no foundation returns; `prove` takes other rules): certificates, both checkers, "
                    "the table docs/KNOWN.md, then every prover found (one `lake build`; coqc on each).",
                    limit=limit, json=False)
    _dirs(k)
    _prover_arg(k)
    k.add_argument("--table", default=KNOWN_TABLE, help="the table to write")
    a = add_command(sub, "audit", cmd_audit, "re-render and compare the generated modules; #print axioms (needs Lean)")
    a.add_argument("--certs", metavar="DIR", action="append",
                   help="where the certificates of the Deal and Mutant modules are (repeatable; default out/)")
    w = add_command(sub, "prove-win", cmd_prove_win, "solve, check the line in Python, render the Win module, "
                    "lake build", **dict(start, limit=f"positions each search of the solver may store (then: "
                                                       f"unknown; {memory_words(SOLVE_STATES)})"))
    w.add_argument("--lean-dir", default=None,
                   help=f"where the module goes (default: {shown(GENERATED)} for the modules shipped there, "
                        f"else out/; lake builds only modules in {shown(GENERATED)})")
    q = add_command(sub, "prove-coq", cmd_prove_coq, "prove --prover coq, and a winnable start's winning line "
                    "proven by Coq (exit 3: no coqc)", **start)
    q.add_argument("--out-dir", default=OUT, help="certificates and Coq files (in OUT_DIR/coq)")
    q.add_argument("--canonical", action="store_true",
                   help="prove it from a certificate up to the order of the columns (fewer positions; Coq's "
                        "checkCertUpTo and unwinnable_of_cert_up_to_column_order, coq/FreeCell/CertUpTo.v): the "
                        "same theorem")
    _autoplay_arg(q)
    coqchk_help = ("also check the compiled files again with coqchk, which has no virtual machine: the proof "
                   "no longer trusts the VM that checked it (much slower; docs/TRUST.md)")
    q.add_argument("--coqchk", action="store_true", help=coqchk_help)
    _full_reference_arg(q)
    ac = add_command(sub, "audit-coq", cmd_audit_coq, "hold a Coq module to its certificate and check its statement",
                     "Renders the module again from its certificate and compares byte for byte, holds "
                     "coq/FreeCell/*.v to their pinned digests, then compiles the rendering in a fresh folder and "
                     "checks its statement through the driver (docs/TRUST.md). Exit 0: audited and proven; 1: "
                     "refused, in one line naming what differs; 3: no coqc.")
    ac.add_argument("file", metavar="FILE.v", help="a module prove-coq wrote (OUT/coq/<Stem>.v)")
    ac.add_argument("--cert", metavar="CERT", default=None, help="its certificate (default: OUT/<Stem>.cert, "
                    "the folder above FILE's)")
    ac.add_argument("--coqchk", action="store_true", help=coqchk_help)
    sv = add_command(sub, "survey", cmd_survey, "classify a range of deals into a resumable survey directory",
                     "Every deal of A-B (1..8,589,934,591): winnable, unwinnable (with a checked certificate) or "
                     "unknown (retried with a bigger limit). Killed and started again with the same command, "
                     "it continues where it stopped.", rules=True, limit="the first pass's state limit per "
                     "deal (default 3,000,000)")
    sv.add_argument("range", metavar="A-B", help="the deals, e.g. 1-1000000")
    sv.add_argument("--dir", required=True, help="the survey directory (created, or continued)")
    sv.add_argument("--jobs", type=jobs_arg, default=1, help="local worker processes (default 1)")
    sv.add_argument("--chunk", type=whole_arg("--chunk", 1, MAX_DEAL), default=None, help="deals per task (default up to 10,000)")
    sv.add_argument("--rows", action="store_true", help="keep every row (default: unwinnable and unknown)")
    sv.add_argument("--second-max-states", type=whole_arg("--second-max-states", 1, IN_MEMORY_MAX_STATES), default=None,
                    metavar="K",
                    help="the second pass's limit for deals unknown at the first (default 10x)")
    sv.add_argument("--engine", choices=("local", "dask"), default="local",
                    help="local processes, or dask.distributed (the `cluster` extra)")
    sv.add_argument("--scheduler", default=None, metavar="ADDR",
                    help="a dask scheduler, e.g. tcp://HOST:8786 (or DASK_SCHEDULER_ADDRESS); implies dask")
    cl = add_command(sub, "certify-list", cmd_certify_list, "a checked certificate for each deal of a list of "
                     "unwinnable deals, and its ledger (docs/CERTIFY.md)",
                     "For each listed deal the first form that completes: fixed columns, then up to column order "
                     "with safe automatic moves in memory, then (with --memory) on disk; each certificate checked by "
                     "the fast checker before its row counts. Killed and started again with the same command, it "
                     "continues where it stopped. Exit 1 when a listed deal is winnable.", json=False)
    cl.add_argument("list", metavar="LIST", help="the deal numbers, one a line")
    cl.add_argument("--range", metavar="A-B", default=None, help="only the listed deals of A..B")
    cl.add_argument("--dir", required=True, help="the run's folder: journal.sqlite, ledger.csv.gz (created, or continued)")
    cl.add_argument("--jobs", type=jobs_arg, default=1, help="local worker processes (default 1)")
    cl.add_argument("--max-states", type=max_states_arg, default=CERTIFY_STATES,
                    metavar="K", help=f"the fixed form's limit (default {CERTIFY_STATES:,})")
    cl.add_argument("--canonical-max-states", type=canonical_max_states_arg,
                    default=CERTIFY_CANONICAL_STATES, metavar="K",
                    help=f"the limit up to column order in memory (default {CERTIFY_CANONICAL_STATES:,})")
    cl.add_argument("--memory", metavar="M", type=memory_arg, default=None,
                    help="the disk search's memory, e.g. 6G: the third form (none without it)")
    cl.add_argument("--keep-certs", action="store_true", help="keep the certificates in DIR/certs (default: "
                    "each is a temporary file, removed once checked)")
    cl.add_argument("--from-ledger", metavar="FILE", default=None,
                    help="first take the rows of this ledger (.csv or .csv.gz) into the journal")
    cl.add_argument("--add-cert", metavar="CERT", action="append", default=None,
                    help="only add the row of a listed deal's certificate built apart (certgen build, e.g. a "
                         "resumable disk search), once the fast checker accepts it; nothing is searched (repeatable)")
    cl.add_argument("--engine", choices=("local", "dask"), default="local",
                    help="local processes, or dask.distributed (the `cluster` extra)")
    cl.add_argument("--scheduler", default=None, metavar="ADDR",
                    help="a dask scheduler, e.g. tcp://HOST:8786 (or DASK_SCHEDULER_ADDRESS); implies dask")
    cl.add_argument("--no-progress", action="store_true", help="no progress bar")
    ps = add_command(sub, "prove-survey", cmd_prove_survey, "prove every certificate of a survey: both checkers, "
                     "then every prover found")
    ps.add_argument("dir", metavar="DIR", help="a survey directory (certgen survey --dir)")
    _dirs(ps)
    _prover_arg(ps)
    ps.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv=None):
    return run(build_parser(), argv)
