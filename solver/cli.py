"""The command line: ``python -m solver deal ...``, ``explore ...``, ``analyze ...``, ``solve ...`` and
``survey ...``.

Start-up time matters (the whole ``explore --deal 11982`` process has a budget of 0.08 s), so this
module imports only argparse, os and sys at the top; everything else (json, tqdm, the C core, certgen,
hashlib) is imported inside the function that needs it.

Every user error is a :class:`solver.errors.FreecellError` and is printed as one line
``error: <message>`` on stderr with exit status 2; argparse usage errors are one line too, also exit 2.
Ctrl-C exits with 130 and no traceback.
"""

import argparse
import os
import sys

PROG = "python -m solver"
MAX_CELLS = 8
INTERRUPTED = "interrupted (Ctrl-C): stopped before an answer, nothing is claimed"
EXPLORE_MAX_STATES = 50_000_000  # explore's default limit (about 2.6 GB): a huge set ends as unknown, not OOM


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter without its ``import shutil`` (2 ms of start-up: argparse builds a formatter
    for every add_argument call just to check it); the width is found the same way, with os alone."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        if width is None:
            try:
                width = int(os.environ.get("COLUMNS", ""))
            except ValueError:
                width = 0
            if width <= 0:
                try:
                    width = os.get_terminal_size(sys.__stdout__.fileno()).columns
                except (AttributeError, ValueError, OSError):
                    width = 80
            width = max(width, 40) - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``error: <message> (see '<prog> --help')``, exit 2."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(2, f"error: {message} (see '{self.prog} --help')\n")


def _fail(message):
    from .errors import FreecellError
    raise FreecellError(message)


# --- where a position comes from -----------------------------------------------------------------------

class Source:
    """A start position and where it came from."""

    def __init__(self, position, source, label, deal=None, cells=None, extra=None):
        self.position = position
        self.source = source      # "ms:11982", "board:FILE", "board:-" or a deal code
        self.label = label        # "deal 11982", "board FILE", ...
        self.deal = deal          # the Microsoft deal number, else None
        self.cells = cells        # free cells the source prescribes (a deal code's cells=K), else None
        self.extra = extra or {}  # more for --json (order, code, seed)


def load_source(deal=None, board=None, code=None):
    """The :class:`Source` for exactly one of a deal number (raw text or int), a board file and a code."""
    given = [x is not None for x in (deal, board, code)]
    if sum(given) != 1:
        _fail("give exactly one of a deal number, --board FILE or --code CODE")
    if deal is not None:
        from . import deals
        n = deals.parse_deal_number(deal)
        order = deals.deal_order(n)
        return Source(deals.position_from_order(order), f"ms:{n}", f"deal {n}", deal=n,
                      extra={"order": order})
    if board is not None:
        from .board import read_board_arg
        pos = read_board_arg(board)
        label = "board from stdin" if board == "-" else f"board {board}"
        return Source(pos, f"board:{board}", label)
    from . import siggysoft
    dc = siggysoft.parse_code(code)
    extra = {"code": dc.code}
    if dc.seed is not None:
        extra["seed"] = dc.seed.hex()
    if dc.kind == "C":
        return Source(dc.position, dc.code, f"deal {dc.number}", deal=dc.number, cells=dc.cells, extra=extra)
    return Source(dc.position, dc.code, dc.code, cells=dc.cells, extra=extra)


def _cells_arg(text):
    t = text.strip()
    if not (t.isascii() and t.isdigit() and len(t) <= 3) or not 0 <= int(t) <= MAX_CELLS:
        _fail(f"--cells must be a whole number from 0 to {MAX_CELLS}, got {text!r}")
    return int(t)


def _max_states_arg(text):
    t = text.strip().replace("_", "").replace(",", "")
    if not (t.isascii() and t.isdigit() and len(t) <= 18) or int(t) < 1:
        _fail(f"--max-states must be a whole number of at least 1, got {text!r}")
    return int(t)


def _resolve_cells(args, src):
    """Free cells of the rules: --cells, else the deal code's cells=K, else 4; they must agree."""
    cells = _cells_arg(args.cells) if getattr(args, "cells", None) is not None else None
    if cells is not None and src.cells is not None and cells != src.cells:
        _fail(f"--cells {cells} contradicts the deal code's cells={src.cells}")
    if cells is None:
        cells = src.cells if src.cells is not None else 4
    used = len(src.position[1])
    if used > cells:
        _fail(f"the position has {_plural(used, 'card')} in the free cells but the rules have {cells} "
              f"(use --cells {used} or more)")
    return cells


# --- output helpers -----------------------------------------------------------------------------------

def _write(text):
    """Write to stdout; fall back to ASCII if the terminal cannot show a character (e.g. the dash)."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        text = text.replace("\u2014", "-").translate(_ASCII_SUITS)
        sys.stdout.write(text.encode("ascii", "replace").decode("ascii"))


_ASCII_SUITS = str.maketrans({"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S"})


def _json_dump(obj):
    import json
    return json.dumps(obj, ensure_ascii=False) + "\n"


def _plural(n, word):
    return f"{n:,} {word}" + ("" if n == 1 else "s")


# --- deal ---------------------------------------------------------------------------------------------

def cmd_deal(args):
    if args.deal is not None and args.number is not None:
        _fail("give the deal number once: N or --deal N")
    src = load_source(args.number if args.deal is None else args.deal, args.board, args.code)
    from .board import format_position
    pos = src.position
    if args.json:
        from .cards import card_name
        cols, cells, home = pos
        obj = {
            "deal": src.deal,
            "source": src.source,
            "columns": [[card_name(c) for c in col] for col in cols],
            "freecells": [card_name(c) for c in cells],
            "foundations": dict(zip("CDHS", home)),
            "board": format_position(pos),
        }
        if src.cells is not None:
            obj["rules"] = {"cells": src.cells}
        if "order" in src.extra:
            obj["order"] = [card_name(c) for c in src.extra["order"]]
        for k in ("code", "seed"):
            if k in src.extra:
                obj[k] = src.extra[k]
        _write(_json_dump(obj))
    else:
        _write(format_position(pos))
    return 0


# --- explore ------------------------------------------------------------------------------------------

def verdict_of(result):
    """``winnable`` if a won position was reached; ``unwinnable`` only if the enumeration completed
    without one; otherwise ``unknown``."""
    if result.won:
        return "winnable"
    if result.complete:
        return "unwinnable"
    return "unknown"


def _rules_words(rules_dict):
    words = []
    if rules_dict["cells"] != 4:
        words.append(_plural(rules_dict["cells"], "free cell"))
    if rules_dict["foundation_return"]:
        words.append("foundation returns allowed")
    if rules_dict.get("canonical"):
        words.append("counted up to column order")
    if rules_dict.get("autoplay", "none") != "none":
        words.append(f"{rules_dict['autoplay']} autoplay")
    return f" ({', '.join(words)})" if words else ""


def explore_summary(label, verdict, result, rules_dict, max_states=None, line_length=None):
    """The one-line plain-text report of an exploration."""
    cards = _plural(result.max_home, "card")
    rules = _rules_words(rules_dict)
    if verdict == "unwinnable":
        reach = "reaches" if result.max_home == 1 else "reach"
        return (f"{label}{rules}: unwinnable \u2014 all {result.states:,} reachable positions enumerated, "
                f"at most {cards} ever {reach} the foundations")
    if verdict == "winnable":
        line = (f"; a line of {_plural(line_length, 'single-card move')} to a won position replays under the spec rules"
                if line_length is not None else "")
        return (f"{label}{rules}: winnable \u2014 a won position was reached "
                f"({_plural(result.states, 'position')} visited){line}")
    limit = f" (the --max-states {max_states:,} limit)" if max_states else ""
    return (f"{label}{rules}: unknown \u2014 stopped after {_plural(result.states, 'position')}{limit}; "
            f"at most {cards} reached the foundations so far")


def _write_certificate(path, result, header, verdict):
    """The --out hook: certgen.certificate.write_from_search(path, result, header_info)."""
    if verdict != "unwinnable":
        print(f"note: no certificate written to {path}: the verdict is {verdict}, "
              f"a certificate needs a complete enumeration without a win", file=sys.stderr)
        return None
    try:
        from certgen.certificate import write_from_search
    except ImportError as exc:
        if exc.name not in ("certgen", "certgen.certificate"):
            raise
        print(f"note: certificate writing is not available yet "
              f"(certgen.certificate.write_from_search); nothing written to {path}", file=sys.stderr)
        return None
    try:
        write_from_search(path, result, header)
    except OSError as exc:
        _fail(f"cannot write {path}: {exc.strerror or exc}")
    return path


def _load_search():
    try:
        from . import search
    except ImportError as exc:
        _fail(f"the search core is not available ({exc}); run 'make setup'")
    return search


CERT_NEEDS_SPEC = "certificates need the plain spec rules (no --canonical/--autoplay)"


def _rules_of(args, search, cells):
    """(search.Rules, the rules as a dict for --json and certificate headers) from the rules flags.

    The dict has "cells" and "foundation_return" (the spec's parameters); "autoplay" and "canonical"
    are added only when a counting mode is asked for, so the spec rules print exactly as before."""
    fr = bool(args.foundation_return)
    autoplay = getattr(args, "autoplay", None) or "none"
    canonical = bool(getattr(args, "canonical", False))
    rules_dict = {"cells": cells, "foundation_return": fr}
    if autoplay == "none" and not canonical:
        return search.Rules(cells=cells, foundation_return=fr), rules_dict
    rules_dict.update(autoplay=autoplay, canonical=canonical)
    return search.Rules(cells=cells, foundation_return=fr, autoplay=autoplay, canonical=canonical), rules_dict


def cmd_explore(args):
    if args.out is not None and (args.canonical or (args.autoplay or "none") != "none"):
        _fail(CERT_NEEDS_SPEC)
    if args.out is not None:
        from .atomic import check_not_input
        check_not_input(args.out, args.board)
    src = load_source(args.deal, args.board, args.code)
    cells = _resolve_cells(args, src)
    max_states = _max_states_arg(args.max_states) if args.max_states is not None else EXPLORE_MAX_STATES
    search = _load_search()
    rules, rules_dict = _rules_of(args, search, cells)
    progress = (not args.json and not args.no_progress and sys.stderr.isatty())
    result = search.explore(src.position, rules, max_states=max_states, progress=progress)
    verdict = verdict_of(result)
    line_length = None
    if verdict == "winnable":
        counting = bool(rules_dict.get("canonical")) or rules_dict.get("autoplay", "none") != "none"
        line_length = verified_win(src.position, result, rules_dict, counting)
        if line_length is None:
            print("note: a won position was reached, but no line to it replays under the spec rules: "
                  "nothing is claimed", file=sys.stderr)
            verdict = "unknown"
    cert = None
    if args.out is not None:
        header = {"deal": src.deal, "source": src.source, "rules": rules_dict,
                  "position": src.position, "states": result.states, "max_home": result.max_home,
                  "verdict": verdict, "complete": bool(result.complete)}
        cert = _write_certificate(args.out, result, header, verdict)
    if args.json:
        obj = {
            "deal": src.deal,
            "source": src.source,
            "rules": rules_dict,
            "states": result.states,
            "max_home": result.max_home,
            "verdict": verdict,
            "complete": bool(result.complete),
            "seconds": round(float(result.seconds), 6),
            "max_states": max_states,
        }
        if line_length is not None:
            obj["line_length"] = line_length
        if args.out is not None:
            obj["certificate"] = cert
        _write(_json_dump(obj))
    else:
        _write(explore_summary(src.label, verdict, result, rules_dict, max_states, line_length) + "\n")
    return 0


def verified_win(start, result, rules_dict, counting=False):
    """'winnable' needs a line of single-card moves that replays to a won position under the spec rules
    (solver/spec.py), not the C core's word. In the spec mode, the search's own line to its first won
    position is replayed step by step (each position one of `spec.moves` of the one before); in a
    counting mode (its steps include automatic moves and reordered columns) `solve` finds a line and
    verifies it. Returns the verified line's length, or None."""
    from . import spec
    if counting:
        from . import solve
        r = solve.solve(start, cells=rules_dict["cells"], foundation_return=rules_dict["foundation_return"])
        return r.length if r.verdict == "winnable" else None
    rules = spec.Rules(cells=rules_dict["cells"], foundation_return=rules_dict["foundation_return"])
    line = result.winning_line()
    if not line or spec.from_position(line[0]) != spec.from_position(start):
        return None
    s = spec.from_position(line[0])
    for pos in line[1:]:
        t = spec.from_position(pos)
        if t not in spec.moves(rules, s):
            return None
        s = t
    return len(line) - 1 if spec.won(s) else None


# --- analyze ------------------------------------------------------------------------------------------

def _exposed_arg(text):
    from .cards import parse_card
    from .errors import FreecellError
    try:
        return parse_card(text)
    except FreecellError as exc:
        _fail(f"--exposed: {exc}")


def analyze_lines(label, a, rules_dict):
    """The plain-words report of an analysis, as a list of lines."""
    from .analyze import frozen_text
    from .cards import pretty_name
    rules = _rules_words(rules_dict)
    n = a.states
    if a.verdict == "unknown":
        limit = f" (the --max-states {a.max_states:,} limit)" if a.max_states else ""
        return [f"{label}{rules}: unknown \u2014 stopped after {_plural(n, 'position')}{limit}; "
                f"the reachable set is not complete, so nothing is claimed about it "
                f"(at most {_plural(a.max_home_so_far, 'card')} reached the foundations so far)"]
    if a.verdict == "winnable" and not a.complete:
        why = (f"the --max-states {a.max_states:,} limit" if a.status == "limit"
               else "the search stops at the first win unless --exposed asks for counts")
        lines = [f"{label}{rules}: winnable \u2014 a won position was reached; stopped after "
                 f"{_plural(n, 'position')} ({why})",
                 "never move: none (a won position is reachable, so every card moves)",
                 "most cards home: 52"]
        if a.exposed is not None:
            lines.append(f"{pretty_name(a.exposed)} on top of a column: unknown "
                         f"(the reachable set is not complete)")
        return lines
    cards = _plural(a.max_home, "card")
    lines = [f"{label}{rules}: {a.verdict} \u2014 all {n:,} reachable positions enumerated, "
             f"at most {cards} ever {'reaches' if a.max_home == 1 else 'reach'} the foundations"]
    fc = a.frozen_cards
    if fc:
        lines.append(f"never move ({_plural(len(fc), 'card')}, the same place in every reachable position): "
                     f"{frozen_text(a)}")
        for i, col in enumerate(a.frozen):
            if col:
                lines.append(f"  column {i + 1}, bottom {len(col)} of {len(a.start[0][i])}: "
                             + " ".join(pretty_name(c) for c in col))
    else:
        lines.append("never move: none (every card moves in some reachable position)")
    if a.exposed is not None:
        lines.append(f"{pretty_name(a.exposed)} on top of a column: in {_plural(a.exposed_positions, 'position')}"
                     f" of the {n:,}")
    return lines


def svg_for(src, a, rules_dict):
    """The SVG text of the start position with the analysis drawn on it."""
    from . import svg
    from .analyze import frozen_text
    from .cards import pretty_name
    title = f"FreeCell #{src.deal}" if src.deal is not None else src.label
    n = a.states
    if a.verdict == "unknown":
        rest = f" \u2014 unknown: stopped after {n:,} positions"
    elif a.verdict == "winnable":
        rest = (f" \u2014 winnable: {n:,} positions" if a.complete else " \u2014 winnable") + \
               ", all 52 cards can go home"
    else:
        rest = f" \u2014 unwinnable: {n:,} positions, at most {_plural(a.max_home, 'card')} home"
    words = [_plural(rules_dict["cells"], "free cell"), "single-card moves",
             "foundation returns allowed" if rules_dict["foundation_return"] else "no moves off the foundations"]
    if rules_dict.get("canonical"):
        words.append("positions counted up to column order")
    if rules_dict.get("autoplay", "none") != "none":
        words.append(f"{rules_dict['autoplay']} autoplay")
    subtitle = "rules: " + ", ".join(words)
    if src.deal is not None:
        subtitle = f"Microsoft deal {src.deal} \u00b7 " + subtitle
    legend = []
    if a.verdict == "unknown":
        legend.append("the reachable set was not enumerated to the end: nothing is claimed")
    elif a.frozen_cards:
        legend.append(f"never move in any of the {n:,} reachable positions: {frozen_text(a)}")
    elif a.frozen is not None:
        legend.append("every card moves in some reachable position")
    if a.exposed is not None and a.exposed_positions is not None:
        legend.append(f"{pretty_name(a.exposed)} is on top of a column in {_plural(a.exposed_positions, 'position')}"
                      f" of the {n:,}")
    return svg.render(src.position, title, rest, subtitle=subtitle, frozen=a.frozen_places(),
                      legend=legend, cells=rules_dict["cells"])


def cmd_analyze(args):
    if args.svg is not None:
        from .atomic import check_not_input
        check_not_input(args.svg, args.board)
    src = load_source(args.deal, args.board, args.code)
    cells = _resolve_cells(args, src)
    exposed = _exposed_arg(args.exposed) if args.exposed is not None else None
    from .analyze import DEFAULT_MAX_STATES, analyze
    max_states = _max_states_arg(args.max_states) if args.max_states is not None else DEFAULT_MAX_STATES
    search = _load_search()
    rules, rules_dict = _rules_of(args, search, cells)
    progress = (not args.json and not args.no_progress and sys.stderr.isatty())
    a = analyze(src.position, rules, exposed=exposed, max_states=max_states, progress=progress)
    if a.won:
        # 'winnable' needs a line that replays to a won position under the spec rules, not the core's word
        from . import solve
        r = solve.solve(src.position, cells=rules_dict["cells"], foundation_return=rules_dict["foundation_return"])
        if r.verdict != "winnable":
            print("error: a won position was reached, but no line to a won position replays under the spec "
                  "rules: nothing is claimed", file=sys.stderr)
            return 1
    svg_path = None
    if args.svg is not None:
        from . import svg
        text = svg_for(src, a, rules_dict)
        try:
            svg.write(args.svg, text)
        except OSError as exc:
            _fail(f"cannot write {args.svg}: {exc.strerror or exc}")
        svg_path = args.svg
    if args.json:
        obj = {"deal": src.deal, "source": src.source, "rules": rules_dict}
        obj.update(a.to_json())
        if args.svg is not None:
            obj["svg"] = svg_path
        _write(_json_dump(obj))
    else:
        lines = analyze_lines(src.label, a, rules_dict)
        if svg_path is not None:
            lines.append(f"picture: {svg_path}")
        _write("\n".join(lines) + "\n")
    return 0


# --- solve --------------------------------------------------------------------------------------------

MOVES_PER_LINE = 20


def _plain_rules_of(args, src):
    """(cells, foundation_return, rules dict) for solve/survey: the spec's parameters only."""
    cells = _resolve_cells(args, src) if src is not None else (
        _cells_arg(args.cells) if args.cells is not None else 4)
    fr = bool(args.foundation_return)
    return cells, fr, {"cells": cells, "foundation_return": fr}


def solve_summary(label, r, rules_dict):
    """The one-line plain-text verdict of a solve."""
    rules = _rules_words(rules_dict)
    sec = f"{r.seconds:.3f} s"
    if r.verdict == "winnable":
        return (f"{label}{rules}: winnable \u2014 a line of {_plural(r.length, 'single-card move')}, "
                f"replayed and checked against the spec rules ({_plural(r.states, 'position')} searched, {sec})")
    if r.verdict == "unwinnable":
        every = (f"all {r.enumerated:,} reachable positions" if r.enumerated != 1
                 else "the only reachable position (no legal move)")
        return (f"{label}{rules}: unwinnable \u2014 {every} enumerated under the spec rules, none won "
                f"({_plural(r.states, 'position')} searched in all, {sec})")
    limit = f" within the --max-states {r.max_states:,} limit" if r.max_states else ""
    return (f"{label}{rules}: unknown \u2014 no winning line found{limit} "
            f"({_plural(r.states, 'position')} searched, {sec}); this says nothing about unwinnability")


def cmd_solve(args):
    src = load_source(args.deal, args.board, args.code)
    cells, fr, rules_dict = _plain_rules_of(args, src)
    from . import solve as solvemod
    max_states = (_max_states_arg(args.max_states) if args.max_states is not None
                  else solvemod.DEFAULT_MAX_STATES)
    _load_search()
    try:
        r = solvemod.solve(src.position, cells=cells, foundation_return=fr, max_states=max_states)
    except solvemod.LineError as exc:
        sys.stdout.flush()
        print(f"error: {exc}", file=sys.stderr)
        return 1
    lean_path = None
    if args.lean:
        if r.verdict != "winnable":
            _fail(f"--lean needs a winning line, and the verdict is {r.verdict}")
        label = None if src.deal is not None else src.label
        try:
            lean_path = solvemod.render_lean(r, deal=src.deal, label=label, lean_dir=args.lean_dir)
        except OSError as exc:
            where = f" {exc.filename}" if exc.filename else ""
            _fail(f"cannot write the Lean module{where}: {exc.strerror or exc}")
    if args.json:
        obj = {"deal": src.deal, "source": src.source, "rules": rules_dict, "verdict": r.verdict,
               "length": r.length, "states": int(r.states), "seconds": round(float(r.seconds), 6),
               "max_states": max_states}
        if r.verdict == "winnable":
            obj["found_length"] = r.found_len
            obj["verified"] = "spec.moves replay"
            obj["moves"] = r.to_json_moves()
            obj["notation"] = " ".join(r.notation())
        if r.enumerated is not None:
            obj["enumerated"] = int(r.enumerated)
        if lean_path is not None:
            obj["lean"] = lean_path
        _write(_json_dump(obj))
    else:
        lines = [solve_summary(src.label, r, rules_dict)]
        if r.verdict == "winnable":
            nt = r.notation()
            lines += [" ".join(nt[i:i + MOVES_PER_LINE]) for i in range(0, len(nt), MOVES_PER_LINE)]
        if lean_path is not None:
            lines.append(f"wrote {lean_path}")
        _write("\n".join(lines) + "\n")
    return 0


# --- survey -------------------------------------------------------------------------------------------

def _jobs_arg(text):
    t = str(text).strip()
    if not (t.isascii() and t.isdigit() and len(t) <= 4) or not 1 <= int(t) <= 256:
        _fail(f"--jobs must be a whole number from 1 to 256, got {text!r}")
    return int(t)


def cmd_survey(args):
    from .survey import parse_range
    first, last = parse_range(args.range)
    jobs = _jobs_arg(args.jobs) if args.jobs is not None else 1
    cells, fr, rules_dict = _plain_rules_of(args, None)
    from . import solve as solvemod
    max_states = (_max_states_arg(args.max_states) if args.max_states is not None
                  else solvemod.DEFAULT_MAX_STATES)
    _load_search()
    from .survey import survey
    progress = not args.no_progress and not args.json and sys.stderr.isatty()
    try:
        s = survey(first, last, jobs=jobs, cells=cells, foundation_return=fr, max_states=max_states,
                   progress=progress, strict=args.strict)
    except solvemod.LineError as exc:
        sys.stdout.flush()
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.out is not None:
        try:
            s.write_csv(args.out)
        except OSError as exc:
            _fail(f"cannot write {args.out}: {exc.strerror or exc}")
    if args.json:
        import statistics
        ls = s.lengths()
        obj = {"first": first, "last": last, "rules": rules_dict, "jobs": jobs, "max_states": max_states,
               "counts": s.counts, "seconds": round(s.seconds, 3),
               "unwinnable": s.deals_with("unwinnable"), "unknown": s.deals_with("unknown"),
               "length": ({"median": statistics.median(ls), "mean": round(statistics.mean(ls), 2),
                           "max": max(ls)} if ls else None),
               "csv": args.out}
        _write(_json_dump(obj))
    else:
        rules = _rules_words(rules_dict)
        line = s.summary()
        if rules:
            line = line.replace(":", rules + ":", 1)
        _write(line + (f"\ncsv: {args.out}" if args.out else "") + "\n")
    return 0


# --- the parser ---------------------------------------------------------------------------------------

def _add_source_args(p, positional):
    g = p.add_argument_group("where the position comes from (give exactly one)")
    if positional:
        g.add_argument("number", nargs="?", metavar="N",
                       help="Microsoft / FreeCell Pro deal number, 1..2147483647")
    else:
        g.add_argument("--deal", metavar="N", help="Microsoft / FreeCell Pro deal number, 1..2147483647")
    g.add_argument("--board", metavar="FILE",
                   help="a board or position in Freecell Solver's text format ('-' for stdin)")
    g.add_argument("--code", metavar="CODE",
                   help="a SiggySoft deal code, e.g. SOL1-freecell-cells=4-N1 (-N<n>, -C<n>, -S<seed>)")


def build_parser():
    p = _Parser(prog=PROG, description="FreeCell deals, exhaustive search and proofs.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    d = sub.add_parser("deal", help="print a deal in Freecell Solver's board format",
                       description="Print a deal (or a board / position) in Freecell Solver's format: "
                                   "one line per column, bottom card first.")
    _add_source_args(d, positional=True)
    d.add_argument("--deal", metavar="N", help=argparse.SUPPRESS)  # as the other commands take it
    d.add_argument("--json", action="store_true", help="print one JSON object instead")
    d.set_defaults(func=cmd_deal)

    e = sub.add_parser("explore", help="enumerate every reachable position",
                       description="Enumerate every position reachable under the spec rules (single-card "
                                   "moves, no automatic moves). Verdict: winnable if a won position was "
                                   "reached, unwinnable only if the enumeration completed, else unknown.")
    _add_source_args(e, positional=False)
    e.add_argument("--max-states", metavar="K", help="stop after K positions (verdict unknown)")
    _add_rules_args(e)
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.add_argument("--out", metavar="FILE",
                   help="write the reachable set as a certificate (spec rules only: not with "
                        "--canonical/--autoplay)")
    e.add_argument("--no-progress", action="store_true", help="no progress bar")
    e.set_defaults(func=cmd_explore)

    a = sub.add_parser("analyze", help="why a deal is stuck: the cards that never move, and more",
                       description="Enumerate the whole reachable set (without stopping at a win) and report "
                                   "the cards that never move in any reachable position, the most cards ever "
                                   "on the foundations and, with --exposed, how many positions show a card on "
                                   "top of a column. If the enumeration stops at --max-states nothing is "
                                   "claimed (unknown).")
    _add_source_args(a, positional=False)
    a.add_argument("--max-states", metavar="K",
                   help="stop after K positions (then: unknown; default 5,000,000)")
    _add_rules_args(a)
    a.add_argument("--exposed", metavar="CARD",
                   help="count the positions with this card on top of a column (e.g. QC, 10H, Q\u2663)")
    a.add_argument("--svg", metavar="FILE", help="draw the position with the frozen cards outlined")
    a.add_argument("--json", action="store_true", help="print one JSON object")
    a.add_argument("--no-progress", action="store_true", help="no progress bar")
    a.set_defaults(func=cmd_analyze)

    s = sub.add_parser("solve", help="find a winning line (checked against the spec rules)",
                       description="Find a winning line under the spec rules and print it as single-card "
                                   "moves in Freecell Solver's standard notation (columns 1-8, free cells a, "
                                   "b, c, d -- a card takes the leftmost empty cell --, foundations h: "
                                   "'1h' column 1 to its foundation, '1a' column 1 to free cell a, 'a1' free "
                                   "cell a to column 1, '12' column 1 to column 2, 'ah' free cell a to its "
                                   "foundation; 'h1' a foundation's top card to column 1, foundation returns "
                                   "only). The line is replayed move by move in the Python transliteration "
                                   "of the Lean rules before it is printed. Verdict: winnable (a verified "
                                   "line), unwinnable (only after a complete enumeration of the spec rules), "
                                   "or unknown (nothing found within --max-states).")
    _add_source_args(s, positional=False)
    s.add_argument("--max-states", metavar="K",
                   help="positions each search may store (default 3,000,000); then: unknown")
    _add_plain_rules_args(s)
    s.add_argument("--json", action="store_true",
                   help="print one JSON object: moves (card, from, to, notation), length, verdict, states, "
                        "seconds")
    s.add_argument("--lean", action="store_true",
                   help="also render the Lean module proving the deal winnable (certgen.render.render_win)")
    s.add_argument("--lean-dir", metavar="DIR", default=None,
                   help="where --lean writes (default lean/FreeCell/Generated)")
    s.set_defaults(func=cmd_solve)

    v = sub.add_parser("survey", help="classify every deal in a range: winnable, unwinnable or unknown",
                       description="Solve every Microsoft deal in the range A-B: winnable (a line found and "
                                   "its replay checked against the spec rules), unwinnable (a complete "
                                   "enumeration of the spec rules without a win), unknown (the --max-states "
                                   "limit). A summary line on stdout, a progress bar on stderr, and with "
                                   "--out a CSV: deal, verdict, states, length, seconds.")
    v.add_argument("range", metavar="A-B", help="the deals, e.g. 1-32000 (or one number)")
    v.add_argument("--jobs", metavar="J", help="worker processes (default 1)")
    v.add_argument("--out", metavar="FILE.csv", help="write one CSV row per deal")
    v.add_argument("--max-states", metavar="K",
                   help="positions each search may store per deal (default 3,000,000); then: unknown")
    _add_plain_rules_args(v)
    v.add_argument("--strict", action="store_true",
                   help="check every line against spec.moves itself (slower) instead of the fast replay")
    v.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    v.add_argument("--no-progress", action="store_true", help="no progress bar")
    v.set_defaults(func=cmd_survey)
    return p


def _add_plain_rules_args(p):
    g = p.add_argument_group("rules")
    g.add_argument("--cells", metavar="K", help="number of free cells, 0..8 (default 4, or the code's)")
    g.add_argument("--foundation-return", action="store_true",
                   help="allow a foundation's top card back onto a column")


def _add_rules_args(p):
    g = p.add_argument_group("rules")
    g.add_argument("--cells", metavar="K", help="number of free cells, 0..8 (default 4, or the code's)")
    g.add_argument("--foundation-return", action="store_true",
                   help="allow a foundation's top card back onto a column")
    g.add_argument("--canonical", action="store_true",
                   help="counting mode: count positions up to the order of the columns")
    g.add_argument("--autoplay", choices=("none", "safe"), default=None,
                   help="counting mode: 'safe' plays cards to the foundations automatically when it is "
                        "safe (aces and twos always; seed 004's rule); default none (the spec)")


def main(argv=None):
    return run(build_parser(), argv)


def run(parser, argv=None):
    """Parse and dispatch; every user error becomes one line `error: …` on stderr and exit status 2."""
    from .errors import FreecellError
    try:
        args = parser.parse_args(argv)
        if getattr(args, "func", None) is None:
            parser.print_help(sys.stderr)
            return 2
        return args.func(args)
    except FreecellError as exc:
        sys.stdout.flush()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            # The reader went away (e.g. `| head`): stop quietly, and keep Python from complaining at exit.
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            except OSError:
                pass
            return 1
        sys.stdout.flush()
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except MemoryError:
        # The C core's search (or Python) ran out of memory: a limit, so nothing is claimed.
        sys.stdout.flush()
        print("error: out of memory: stopped before an answer, so nothing is claimed (a search: try a "
              "smaller --max-states)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        return 130
