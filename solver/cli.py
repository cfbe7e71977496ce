"""The engine's command line: ``python -m solver deal ...``, ``explore ...``, ``analyze ...``, ``solve ...``
and ``survey ...``. Each ``cmd_*`` reads its values from the flags (solver/cliargs.py), calls the engine,
and prints through solver/report.py. Certificates and Lean files are certgen's (``python -m certgen``).

Start-up time matters (the whole ``explore --deal 11982`` process has a budget of 0.08 s): the engine
modules (the C core, json, tqdm) are imported inside the command that needs them.
"""
import argparse
import sys

from .cliargs import (Parser, add_command, add_disk_args, add_source_args, card_arg, check_disk_args, fail, jobs_arg,
                      max_states_arg, memory_arg, memory_words, progress_of, rules_of, run, source_of, tiers_arg,
                      whole_arg, writing)
from .limits import ANALYZE_STATES, DEEP_STATES, DISK_MAX_STATES, EXPLORE_STATES, HAND_STATES, SOLVE_STATES
from .rules import MAX_CELLS
from . import report
from .board import format_position
from .cards import card_name, cards_text
from .errors import printable

PROG = "python -m solver"
MOVED = {"out": "explore --out moved: `python -m certgen build --deal N --out CERT` writes certificates",
         "lean": "solve --lean moved: `python -m certgen prove-win --deal N [--lean-dir DIR]` renders the "
                 "Lean module"}


def cmd_deal(args):
    if args.random:
        if args.deal is not None or args.number is not None or args.board is not None or args.code is not None:
            fail("--random draws a new deal: give no other start")
        import os
        from .siggysoft import seed_code
        args.code = seed_code(os.urandom(64), cells=4)       # the OS's secure random source
    elif args.code is not None:
        from .games import is_other_game
        if is_other_game(args.code):
            return _other_game(args)
    src = source_of(args)
    if not args.json:
        head = f"code: {src.code}\n" if args.random else ""
        order = src.extra.get("order")
        tail = f"order: {cards_text(order)}\n" if args.order and order else ""
        report.write(head + format_position(src.position) + tail)
        return 0
    cols, cells, home = src.position
    obj = {"deal": src.deal, "source": src.tag, "columns": [[card_name(c) for c in col] for col in cols],
           "freecells": [card_name(c) for c in cells], "foundations": dict(zip("CDHS", home)),
           "board": format_position(src.position)}
    if src.cells is not None:
        obj["rules"] = {"cells": src.cells}
    if "order" in src.extra:
        obj["order"] = [card_name(c) for c in src.extra["order"]]
    if src.code is not None:
        obj["code"] = src.code
    if "seed" in src.extra:
        obj["seed"] = src.extra["seed"]
    report.write_json(obj)
    return 0


def _other_game(args):
    """`deal --code` of another game (seed 003): its shuffled order, and Klondike's layout."""
    from .games import NAMES, klondike_layout, parse_other
    d = parse_other(args.code)
    names = [card_name(c) for c in d.order]
    obj = {"game": d.game, "options": d.options, "code": d.code, "seed": d.seed.hex(), "order": names}
    if d.number is not None:
        obj["number"] = d.number
    if d.game == "klondike":
        piles, stock = klondike_layout(d.order)
        obj["piles"] = [[card_name(c) for c in p] for p in piles]
        obj["stock"] = [card_name(c) for c in stock]
    else:
        obj["layout"] = None
    if args.json:
        report.write_json(obj)
        return 0
    lines = [f"{NAMES[d.game]} ({d.code}); only FreeCell can be explored", "order: " + " ".join(names)]
    if d.game == "klondike":
        lines += [f"pile {i + 1}: " + " ".join(p) for i, p in enumerate(obj["piles"])]
        lines.append("stock (bottom first): " + " ".join(obj["stock"]))
    else:
        lines.append("layout: not described by seed 003 for this game (the order is the deal)")
    report.write("\n".join(lines) + "\n")
    return 0


def cmd_explore(args):
    if args.out is not None:
        fail(MOVED["out"])
    from . import search
    src = source_of(args)
    rules = rules_of(args, src)
    check_disk_args(args, rules)
    if rules.hand:
        return _explore_hand(args, src, rules)
    if args.memory is None:
        max_states = args.max_states or EXPLORE_STATES
        result = search.explore(src.position, rules, max_states=max_states, progress=progress_of(args))
    else:
        from .disksearch import explore_within, say_resume
        max_states = args.max_states or DISK_MAX_STATES
        result = explore_within(src.position, rules, args.memory, args.tmp, max_states, progress_of(args),
                                on_disk=args.on_disk, work_dir=args.work_dir, on_resume=say_resume(src.name))
    try:
        return _explore_report(args, src, rules, result, max_states)
    finally:
        if getattr(result, "disk", False):
            result.close()          # the disk search's temporary folder


def _explore_report(args, src, rules, result, max_states):
    from .solve import judge
    verdict, line = judge(src.position, result, rules)
    if result.won and line is None:
        print(f"note: {report.NO_REPLAY}", file=sys.stderr)
    length = None if line is None else len(line) - 1
    if args.json:
        obj = {"deal": src.deal, "source": src.tag, "rules": rules.to_dict(), "states": result.states,
               "max_home": result.max_home, "verdict": verdict, "complete": bool(result.complete),
               "seconds": round(float(result.seconds), 6), "max_states": max_states}
        if length is not None:
            obj["line_length"] = length
        if verdict == "unknown" and result.complete and not result.won:
            obj["note"] = rules.unproved()
        if getattr(result, "disk", False):
            obj["disk"] = {"layers": result.layers, "runs": result.runs, "disk_peak_bytes": result.disk_peak,
                           "memory": args.memory, "overflow": result.overflow,
                           "overflow_bytes": result.overflow_bytes,
                           "total_seconds": round(result.total_seconds, 6)}
            if result.work_dir is not None:
                obj["disk"].update(report.work_dir_json(result))
        report.write_json(obj)
    else:
        text = report.explore_summary(src.name, verdict, result, rules, max_states, length)
        if getattr(result, "disk", False):
            text += "\n" + report.disk_words(result)
        report.write(text + "\n")
    return 0


def _explore_hand(args, src, rules):
    """explore --hand 1: the verdict with one favor, and a replayed line with the favor marked."""
    from . import hand
    max_states = args.max_states or HAND_STATES
    r = hand.one_favor(src.position, rules, max_states=max_states, progress=progress_of(args))
    steps = [] if r.line is None else [hand.step_words(r.line[i], r.line[i + 1], favor=i == r.favor_at)
                                       for i in range(len(r.line) - 1)]
    if args.json:
        obj = {"deal": src.deal, "source": src.tag, "rules": rules.to_dict(), "states": r.states,
               "verdict": r.verdict, "complete": r.complete, "max_states": max_states}
        if r.line is not None:
            obj.update(line_length=len(steps), favor_step=None if r.favor_at is None else r.favor_at + 1,
                       verified="spec.moves and hand.favors replay", steps=steps)
        report.write_json(obj)
        return 0
    head = f"{src.name}{report.rules_words(rules)}: {r.verdict}"
    if r.verdict == "winnable":
        fav = "without the favor" if r.favor_at is None else f"the favor at step {r.favor_at + 1}"
        out = [f"{head} \u2014 a line of {len(steps)} steps, {fav}, replayed against spec.moves and hand.favors"]
        out += [f"{n:4d}. {w}" for n, w in enumerate(steps, 1)]
    elif r.verdict == "unwinnable":
        out = [f"{head} \u2014 all {r.states:,} positions reachable with one favor enumerated, none won"]
    else:
        out = [f"{head} \u2014 unknown: stopped after {r.states:,} positions (--max-states)"]
    report.write("\n".join(out) + "\n")
    return 0


def cmd_analyze(args):
    from .analyze import analyze
    if args.svg is not None:
        from .atomic import check_not_input
        check_not_input(args.svg, args.board)
    src = source_of(args)
    rules = rules_of(args, src)
    a = analyze(src.position, rules, exposed=args.exposed, max_states=args.max_states or ANALYZE_STATES,
                progress=progress_of(args))
    if args.svg is not None:
        from . import svg
        with writing(args.svg):
            svg.write(args.svg, report.analysis_picture(src, a))
    pictures = []
    if args.svg_dir is not None:
        if args.exposed is None:
            fail("--svg-dir draws the positions of --exposed CARD: give the card")
        import os
        from . import svg
        with writing(args.svg_dir):
            os.makedirs(args.svg_dir, exist_ok=True)
            for n, text in enumerate(report.exposed_pictures(src, a), 1):
                path = os.path.join(args.svg_dir, f"exposed-{card_name(args.exposed)}-{n}.svg")
                svg.write(path, text)
                pictures.append(path)
    if args.json:
        obj = {"deal": src.deal, "source": src.tag, "rules": rules.to_dict()}
        obj.update(a.to_json())
        if args.svg is not None:
            obj["svg"] = args.svg
        if args.svg_dir is not None:
            obj["svg_dir"] = pictures
        report.write_json(obj)
    else:
        lines = report.analyze_lines(src.name, a)
        if args.svg is not None:
            lines.append(f"picture: {args.svg}")
        if pictures:
            lines.append(f"pictures of the {len(pictures)} positions: {args.svg_dir}")
        report.write("\n".join(lines) + "\n")
    return 0


def cmd_solve(args):
    if args.lean or args.lean_dir is not None:
        fail(MOVED["lean"])
    from .solve import DEEP, DEFAULT_SHORTEN, solve
    src = source_of(args)
    rules = rules_of(args, src)
    max_states = args.max_states or (DEEP_STATES if args.deep else SOLVE_STATES)
    shorten = DEFAULT_SHORTEN if args.shorten is None else args.shorten
    r = solve(src.position, rules, max_states=max_states, shorten=shorten, stages=DEEP if args.deep else None)
    if args.json:
        obj = {"deal": src.deal, "source": src.tag, "rules": rules.to_dict(), "verdict": r.verdict,
               "length": r.length, "states": int(r.states), "seconds": round(float(r.seconds), 6),
               "max_states": max_states, "portfolio": "deep" if args.deep else "built-in"}
        if r.verdict == "winnable":
            obj.update(found_length=r.found_len, verified="spec.moves replay", moves=r.to_json_moves(),
                       notation=" ".join(r.notation()))
        if r.enumerated is not None:
            obj["enumerated"] = int(r.enumerated)
        if r.counted is not None:       # the enumeration that decided counted up to column order, autoplay
            obj["enumerated_counting"] = {"canonical": r.counted.canonical, "autoplay": r.counted.autoplay}
        report.write_json(obj)
    else:
        report.write("\n".join(report.solve_lines(src.name, r)) + "\n")
    return 0


def _survey_difficulty(args, first, last):
    import os
    from . import difficulty
    from .atomic import is_stdout, write_atomic
    for flag, given in (("--cells", args.cells is not None), ("--foundation-return", args.foundation_return),
                        ("--strict", args.strict)):
        if given:
            fail(f"{flag} does not go with --difficulty (it tries 0..4 cells under the standard rules, and "
                 f"replays every line)")
    tiers = ((args.max_states, args.max_states),) if args.max_states else difficulty.TIERS
    if args.tiers is not None:
        tiers = tiers[:args.tiers]
    out = args.out
    journal = out if out is not None and not is_stdout(out) and (not os.path.exists(out) or os.path.isfile(out)) \
        else None
    ran = []                # the tiers this run ran: the jobs and buffer the memory budget left them
    with writing(out):
        needs, counts, seconds, resumed = difficulty.survey(first, last, jobs=args.jobs, tiers=tiers,
                                                            journal=journal, progress=progress_of(args),
                                                            budget=args.memory, ran=ran)
        if out is not None and journal is None:
            write_atomic(out, difficulty.csv_text(needs))
    undecided = [{"deal": n.deal, "low": n.low, "win_with": n.high} for n in needs if n.k is None]
    used = {r.tier: r for r in ran}
    limits = []
    for i in range(len(tiers)):         # each tier's limits, and what it used when it ran here (else None)
        t = difficulty.tier_of(i, tiers)
        u = used.get(i + 1, difficulty.TierRun(i + 1, None, None, None))
        runs = difficulty.runs_solver(i, tiers)
        limits.append({"solver": t.solver if runs else None,
                       "solver_portfolio": ("deep" if t.deep else "built-in") if runs else None,
                       "enumeration": t.states, "automatic_moves": t.autoplay,
                       "disk_buffer": t.buffer, "up_to_column_order": t.canonical, "jobs_used": u.jobs,
                       "disk_buffer_used": u.buffer, "memory_budget": u.budget})
    if args.json:
        report.write_json({"first": first, "last": last, "jobs": args.jobs, "tiers": limits, "counts": counts,
                           "cells_needed": {str(n.deal): n.k for n in needs}, "undecided": undecided,
                           "resumed": resumed, "seconds": round(seconds, 3), "csv": out})
    else:
        c = counts
        report.write(f"deals {first}-{last}, fewest free cells to win (proven both ways): {c['easy']:,} easy "
                     f"(0-1), {c['medium']:,} medium (2), {c['hard']:,} hard (3-4), {c['more']:,} need more "
                     f"than 4, {c['undecided']:,} undecided"
                     + ("" if not c["undecided"] else " (a limit stopped a search: last tier "
                        + (f"{limits[-1]['solver']:,} solver / " if limits[-1]["solver"] is not None else "no solver, ")
                        + f"{limits[-1]['enumeration']:,} enumeration positions"
                        + (" up to column order" if limits[-1]["up_to_column_order"] else "")
                        + (f" with {limits[-1]['automatic_moves']} automatic moves"
                           if limits[-1]["automatic_moves"] != "none" else "")
                        + (" on disk)" if limits[-1]["disk_buffer"] else ")"))
                     + (f"; {report.plural(resumed, 'deal')} {'was' if resumed == 1 else 'were'} already in {printable(out)}" if resumed else "")
                     + (f"\ncsv: {printable(out)}" if out else "") + "\n")
    return 0


def _is_difficulty_journal(path):
    """Whether ``path`` is a regular file that starts with the difficulty CSV's header."""
    import os
    from .difficulty import CSV_HEADER
    head = ",".join(CSV_HEADER).encode()
    try:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as f:
            return f.read(len(head)) == head
    except OSError:
        return False


def cmd_survey(args):
    import os
    from .atomic import is_stdout
    from .survey import parse_range, survey
    first, last = parse_range(args.range)
    if args.difficulty:
        return _survey_difficulty(args, first, last)
    for flag, given in (("--tiers", args.tiers is not None), ("--memory", args.memory is not None)):
        if given:
            fail(f"{flag} goes with --difficulty")
    if args.out is not None and _is_difficulty_journal(args.out):
        fail(f"{args.out} holds a difficulty survey (--difficulty): a plain survey would overwrite it; give "
             f"another --out")
    rules = rules_of(args)
    max_states = args.max_states or SOLVE_STATES
    folder = args.out + ".work" if args.out is not None and not is_stdout(args.out) \
        and (not os.path.exists(args.out) or os.path.isfile(args.out)) else None
    s = survey(first, last, jobs=args.jobs, rules=rules, max_states=max_states, progress=progress_of(args),
               strict=args.strict, folder=folder)
    if args.out is not None:
        with writing(args.out):
            s.write_csv(args.out)
    if args.json:
        report.write_json({
            "first": first, "last": last, "rules": rules.to_dict(), "jobs": args.jobs, "max_states": max_states,
            "counts": s.counts, "seconds": round(s.seconds, 3), "unwinnable": s.deals_with("unwinnable"),
            "unknown": s.deals_with("unknown"), "length": s.length_stats(), "csv": args.out})
    else:
        report.write(report.survey_summary(s, rules) + (f"\ncsv: {printable(args.out)}" if args.out else "") + "\n")
    return 0


SUPERMOVE_EXAMPLES = (   # seed 004's examples: (free cells, empty columns, destination empty)
    (2, 1, False), (2, 1, True), (0, 0, False), (4, 0, False), (4, 1, False), (4, 2, False), (4, 2, True))


def cmd_rules(args):
    from .rules import supermove_limit
    if (args.free_cells is None) != (args.empty_columns is None):
        fail("give --free-cells and --empty-columns together (or neither, for the seed's examples)")
    if args.to_empty and args.empty_columns is None:
        fail("--to-empty describes a destination: give it with --free-cells and --empty-columns")
    if args.to_empty and args.empty_columns == 0:
        fail("--to-empty with --empty-columns 0 is impossible: the empty destination is one of the empty columns")
    most = 7 if args.to_empty else 6    # the run's own column holds cards, and a destination that is not empty
    if args.empty_columns is not None and args.empty_columns > most:
        fail(f"--empty-columns {args.empty_columns} is impossible: the column the run comes from holds cards"
             + (", so at most 7 columns are empty (the destination among them)" if args.to_empty else
                " and so does the destination (without --to-empty), so at most 6 columns are empty"))
    cases = SUPERMOVE_EXAMPLES if args.free_cells is None else ((args.free_cells, args.empty_columns, args.to_empty),)
    rows = [{"free_cells": f, "empty_columns": e, "to_empty_column": t, "limit": supermove_limit(f, e, t)}
            for f, e, t in cases]
    if args.json:
        report.write_json({"formula": "(f+1)*2^e, e = empty columns not counting the destination",
                           "limits": rows})
    else:
        report.write("".join(report.supermove_line(r) + "\n" for r in rows))
    return 0


ABOUT = {   # command: (one line for the list of commands, the description of its --help)
    "deal": ("print a deal in Freecell Solver's board format",
             "Print a deal (or a board / position) in Freecell Solver's format: one line per column, bottom "
             "card first."),
    "explore": ("enumerate every reachable position",
                "Enumerate every position reachable under the spec rules (single-card moves, no automatic "
                "moves). Verdict: winnable if a won position was reached and a line to it replays under the "
                "spec rules, unwinnable only if the enumeration completed, else unknown. The counting "
                "modes (--canonical, --autoplay, --supermoves) count other positions; a complete one "
                "without a win says unwinnable only where a theorem shows the mode loses no win: "
                "--canonical (Coq, Columns.v), --autoplay horne, safe or twos without --foundation-return "
                "(Coq, Autoplay.v), --supermoves (it only adds moves). --autoplay horne, safe or twos with "
                "--foundation-return says unknown (\"no win in this counting mode\")."),
    "analyze": ("why a deal is stuck: the cards that never move, and more",
                "Enumerate the whole reachable set (without stopping at a win) and report the cards that "
                "never move in any reachable position, the most cards ever on the foundations and, with "
                "--exposed, how many positions show a card on top of a column. If the enumeration stops at "
                "--max-states nothing is claimed (unknown); in a counting mode not proved to lose no win "
                "(--autoplay horne, safe or twos with --foundation-return) the figures are given but the verdict is unknown (see "
                "explore --help)."),
    "solve": ("find a winning line (checked against the spec rules)",
              "Find a winning line under the spec rules and print it as single-card moves in Freecell "
              "Solver's standard notation (columns 1-8, free cells a, b, c, d -- a card takes the leftmost "
              "empty cell --, foundations h: '1h' column 1 to its foundation, '1a' column 1 to free cell a, "
              "'a1' free cell a to column 1, '12' column 1 to column 2, 'ah' free cell a to its foundation; "
              "'h1' a foundation's top card to column 1, foundation returns only). The line is replayed move "
              "by move in the Python transliteration of the Lean rules before it is printed. Verdict: "
              "winnable (a verified line), unwinnable (only after a complete enumeration of the spec rules), "
              "or unknown (nothing found within --max-states). The Lean module of a winning line: "
              "python -m certgen prove-win."),
    "rules": ("the supermove limit (f+1)*2^e, for the seed's examples or given counts",
              "Print how many cards one supermove may carry: (f+1)*2^e, f the empty free cells, e the empty "
              "columns not counting the destination (seed 004). Without counts: the seed's examples. The "
              "spec's moves are single-card moves; `explore --supermoves` checks that runs reach nothing "
              "new."),
    "survey": ("classify every deal in a range: winnable, unwinnable or unknown",
               "Solve every Microsoft deal in the range A-B: winnable (a line found and its replay checked "
               "against the spec rules), unwinnable (a complete enumeration of the spec rules without a win), "
               "unknown (the --max-states limit). A summary line on stdout, a progress bar on stderr, and "
               "with --out a CSV: deal, verdict, searched_states (the positions the solver stored, not the reachable "
               "set), length, seconds."),
}


def build_parser():
    p = Parser(prog=PROG, description="FreeCell deals, exhaustive search and proofs.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    d = add_command(sub, "deal", cmd_deal, *ABOUT["deal"])
    add_source_args(d, positional=True)
    d.add_argument("--json", action="store_true", help="print one JSON object instead")
    d.add_argument("--random", action="store_true",
                   help="a new deal from 64 bytes of the OS's secure random source: prints its SOL1-...-S code "
                        "first, then the layout")
    d.add_argument("--order", action="store_true", help="also print the shuffled deck order (dealt first first)")

    e = add_command(sub, "explore", cmd_explore, *ABOUT["explore"], source=True, rules=True, counting=True,
                    limit=f"stop after K positions (verdict unknown; {memory_words(EXPLORE_STATES)})")
    e.add_argument("--out", help=argparse.SUPPRESS)
    add_disk_args(e)

    a = add_command(sub, "analyze", cmd_analyze, *ABOUT["analyze"], source=True, rules=True, counting=True,
                    limit=f"stop after K positions (then: unknown; {memory_words(ANALYZE_STATES)})")
    a.add_argument("--exposed", metavar="CARD", type=card_arg,
                   help="count the positions with this card on top of a column (e.g. QC, 10H, Q\u2663)")
    a.add_argument("--svg", metavar="FILE", help="draw the position with the frozen cards outlined")
    a.add_argument("--svg-dir", metavar="DIR", help="with --exposed: draw each position showing the card "
                   "(DIR/exposed-CARD-N.svg)")

    s = add_command(sub, "solve", cmd_solve, *ABOUT["solve"], source=True, rules=True)
    s.add_argument("--max-states", metavar="K", type=max_states_arg,
                   help=f"positions each search may store, then: unknown ({memory_words(SOLVE_STATES)})")
    s.add_argument("--deep", action="store_true",
                   help="the deep portfolio of the difficulty survey's tier 5: four stages with move pruning of "
                        "25,000,000 positions each, then the unpruned one up to --max-states (default with "
                        "--deep 100,000,000: about 6 GB); for deals the built-in portfolio does not win")
    s.add_argument("--shorten", metavar="L", type=whole_arg("--shorten", 0, 2),
                   help="shorten the line found: 0 no (default: the line every command and survey gives), 1 "
                        "cut cycles and take one-move shortcuts, 2 also two-move shortcuts (about 10x slower, "
                        "lines about 2.5%% shorter)")
    s.add_argument("--json", action="store_true",
                   help="print one JSON object: moves (card, from, to, notation), length, verdict, states, "
                        "seconds")
    s.add_argument("--lean", action="store_true", help=argparse.SUPPRESS)
    s.add_argument("--lean-dir", help=argparse.SUPPRESS)

    r = add_command(sub, "rules", cmd_rules, *ABOUT["rules"])
    r.add_argument("--free-cells", metavar="F", type=whole_arg("--free-cells", 0, MAX_CELLS),
                   help=f"empty free cells, 0..{MAX_CELLS}")
    r.add_argument("--empty-columns", metavar="E", type=whole_arg("--empty-columns", 0, 8),
                   help="empty columns, the destination among them with --to-empty: 0..6, or 1..7 with --to-empty "
                        "(the column the run comes from is never empty)")
    r.add_argument("--to-empty", action="store_true",
                   help="the destination is one of the empty columns (it is not counted in e)")
    r.add_argument("--json", action="store_true", help="print one JSON object")

    v = add_command(sub, "survey", cmd_survey, *ABOUT["survey"], rules=True,
                    limit=f"positions each search may store per deal, then: unknown ({memory_words(SOLVE_STATES)})")
    v.add_argument("range", metavar="A-B", help="the deals, e.g. 1-32000 (or one number)")
    v.add_argument("--jobs", metavar="J", type=jobs_arg, default=1, help="worker processes (default 1)")
    v.add_argument("--out", metavar="FILE.csv", help="write one CSV row per deal")
    v.add_argument("--difficulty", action="store_true",
                   help="seed 004's difficulty: per deal the fewest free cells (0..4) a win needs, proven by a "
                        "replayed line and a complete enumeration with one cell fewer; counts easy (0-1), medium "
                        "(2), hard (3-4), and undecided where a limit stopped a search. Limits in tiers (solver / "
                        "enumeration positions: 100,000 / 2,000,000, then for the undecided 2,000,000 / "
                        "20,000,000, 20,000,000 / 80,000,000, an enumeration alone of 400,000,000 (up to 16.8 GB), "
                        "and last 100,000,000 (about 6 GB) / 4,000,000,000 on disk (a 4 GiB buffer; files up to ~6 "
                        "bytes a position at the peak); the last two enumerations up to the order of the columns; "
                        "--max-states K: one tier K / K). With --out "
                        "the run is resumable: the CSV is read first and appended to deal by deal, and the disk "
                        "tier's searches go on from their folders FILE.csv.work/DEAL-K-canonical-safe "
                        "(its solver, which ran before the folder was made, is not run again)")
    v.add_argument("--tiers", metavar="N", type=tiers_arg,
                   help="with --difficulty: run only the first N tiers of limits (e.g. 1: the cheap pass; a later "
                        "run with more tiers goes on from the --out file)")
    v.add_argument("--memory", metavar="M", type=memory_arg,
                   help="with --difficulty: the memory all the processes may take together, e.g. 20G (default: "
                        "the machine's available memory less 512 MB, read when each tier starts): --jobs is "
                        "lowered in a tier whose searches would pass it (42 bytes a position in memory, 60 for the "
                        "solver, the disk buffer and 1 MiB on disk), and the disk buffer made smaller to fit")
    v.add_argument("--strict", action="store_true",
                   help="check every line against spec.moves itself (slower) instead of the fast replay")
    return p


def main(argv=None):
    return run(build_parser(), argv)
