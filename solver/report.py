"""Plain words for people (and one JSON line for machines): what the command lines print.

Every sentence a command prints about a result is made here, from values (a Source's name, Rules,
search and solve results, an Analysis); nothing here searches or decides a verdict.
"""
import sys

from .cards import pretty_name
from .rules import STANDARD

MOVES_PER_LINE = 20          # moves of a winning line per printed line


def plural(n, word):
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def write(text):
    """Write to stdout; fall back to ASCII if the terminal cannot show a character (e.g. the dash)."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        text = text.replace("\u2014", "-").translate(_ASCII_SUITS)
        sys.stdout.write(text.encode("ascii", "replace").decode("ascii"))


_ASCII_SUITS = str.maketrans({"\u2663": "C", "\u2666": "D", "\u2665": "H", "\u2660": "S"})


def write_json(obj):
    """One JSON object on a line."""
    import json             # not on `python -m solver deal`'s start-up path
    text = json.dumps(obj, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:      # a path's bytes that are not UTF-8 (os.fsdecode's surrogates): escaped
        text = json.dumps(obj)
    write(text + "\n")


def rules_words(rules):
    """" (5 free cells, foundation returns allowed)": the words of the rules (solver.rules.Rules.words) where
    they differ from the standard rules'; "" for the standard rules."""
    words = [w for w in rules.words() if w not in STANDARD.words()]
    return f" ({', '.join(words)})" if words else ""


def _limit(max_states, within=False):
    if not max_states:
        return ""
    return f" within the --max-states {max_states:,} limit" if within else f" (the --max-states {max_states:,} limit)"


def _every(n):
    """"all 84,767 reachable positions", or "the only reachable position" (a start where every move, if any,
    leads back to it: up to column order, a lone card moved to an empty column)."""
    return f"all {n:,} reachable positions" if n != 1 else "the only reachable position"


def _enumerated(n, max_home):
    """"all 84,767 reachable positions enumerated, at most 2 cards ever reach the foundations"."""
    reach = "reaches" if max_home == 1 else "reach"
    return f"{_every(n)} enumerated, at most {plural(max_home, 'card')} ever {reach} the foundations"


NO_REPLAY = "a won position was reached, but no line to it replays under the spec rules: nothing is claimed"


def explore_summary(name, verdict, result, rules, max_states=None, line_length=None):
    """The one-line report of an exploration."""
    head = f"{name}{rules_words(rules)}"
    if verdict == "unwinnable":
        return f"{head}: unwinnable \u2014 {_enumerated(result.states, result.max_home)}"
    if verdict == "winnable":
        line = ""
        if line_length is not None:
            line = (f"; a line of {plural(line_length, 'single-card move')} to a won position replays "
                    f"under the spec rules")
        return f"{head}: winnable \u2014 a won position was reached ({plural(result.states, 'position')} visited){line}"
    if result.complete and not result.won:
        return f"{head}: unknown \u2014 {_enumerated(result.states, result.max_home)}; {rules.unproved()}"
    return (f"{head}: unknown \u2014 stopped after {plural(result.states, 'position')}{_limit(max_states)}; "
            f"at most {plural(result.max_home, 'card')} reached the foundations so far")


def kept_words(work_dir):
    """Where a search stopped at its --max-states keeps its state, and how to go on."""
    return (f"kept in {work_dir} with its state: the same command with a larger --max-states goes on from its last "
            f"finished layer")


def disk_words(result):
    """The disk search's figures (solver.disksearch.DiskResult), one line."""
    over = (f"; {plural(result.overflow, 'position')} over the key kept whole in memory "
            f"({result.overflow_bytes / 1e6:,.1f} MB)") if result.overflow else ""
    files = "removed"
    if getattr(result, "kept", False):
        files = kept_words(result.work_dir)     # kept at the end of a call: a limit (errors raise)
    resumed = ""
    if getattr(result, "resumed", None) is not None:
        resumed = f" (resumed from layer {result.resumed[0]:,}, {plural(result.resumed[1], 'position')})"
    return (f"on disk: {plural(result.layers, 'layer')} breadth first{resumed}, {plural(result.runs, 'sorted run')}, "
            f"at most {result.disk_peak / 1e6:,.1f} MB of files ({files}){over}")


def work_dir_json(result):
    """The --work-dir part of explore's JSON "disk" object (a solver.disksearch.DiskResult)."""
    resumed = result.resumed
    return {"work_dir": result.work_dir, "kept": bool(result.kept), "resumed": resumed is not None,
            "resumed_from_layer": None if resumed is None else resumed[0],
            "resumed_positions": None if resumed is None else resumed[1],
            "checkpoints": result.checkpoints, "checkpoint_bytes": result.checkpoint_bytes,
            "checkpoint_seconds": round(result.checkpoint_seconds, 6)}


def analyze_lines(name, a):
    """The report of an analysis (solver.analyze.Analysis), as a list of lines."""
    head = f"{name}{rules_words(a.rules)}"
    n = a.states
    if a.verdict == "unknown" and a.won:
        return [f"{head}: unknown \u2014 {NO_REPLAY}"]
    if a.verdict == "unknown" and not a.complete:
        return [f"{head}: unknown \u2014 stopped after {plural(n, 'position')}{_limit(a.max_states)}; "
                f"the reachable set is not complete, so nothing is claimed about it "
                f"(at most {plural(a.max_home_so_far, 'card')} reached the foundations so far)"]
    if a.verdict == "winnable" and not a.complete:
        why = (f"the --max-states {a.max_states:,} limit" if a.status == "limit"
               else "the search stops at the first win unless --exposed asks for counts")
        lines = [f"{head}: winnable \u2014 a won position was reached; stopped after "
                 f"{plural(n, 'position')} ({why})",
                 "never move: none (a won position is reachable, so every card moves)",
                 "most cards home: 52"]
        if a.exposed is not None:
            lines.append(f"{pretty_name(a.exposed)} on top of a column: unknown "
                         f"(the reachable set is not complete)")
        return lines
    lines = [f"{head}: {a.verdict} \u2014 {_enumerated(n, a.max_home)}"]
    if a.verdict == "unknown":       # complete, no win, in a counting mode not proved to lose no win
        lines[0] += f"; {a.rules.unproved()}"
    fc = a.frozen_cards
    if fc:
        lines.append(f"never move ({plural(len(fc), 'card')}, the same place in every reachable position): "
                     f"{frozen_text(a)}")
        for i, col in enumerate(a.frozen):
            if col:
                lines.append(f"  column {i + 1}, bottom {len(col)} of {len(a.start[0][i])}: "
                             + " ".join(pretty_name(c) for c in col))
    else:
        lines.append("never move: none (every card moves in some reachable position)")
    if a.exposed is not None:
        lines.append(f"{pretty_name(a.exposed)} on top of a column: in {plural(a.exposed_positions, 'position')}"
                     f" of the {n:,}")
    return lines


def frozen_text(a):
    """"A♠ 3♥ 6♥ 4♥ Q♠ A♣ Q♣ 6♠" (or "none")."""
    cards = a.frozen_cards
    return " ".join(pretty_name(c) for c in cards) if cards else "none"


def analysis_picture(source, a):
    """The SVG text of the start position with the analysis drawn on it (solver/svg.py draws)."""
    from . import svg      # not on `python -m solver deal`'s start-up path
    title = f"FreeCell #{source.deal}" if source.deal is not None else source.name
    n = a.states
    if a.verdict == "unknown" and a.complete:
        rest = f" \u2014 unknown: {n:,} positions, none won, at most {plural(a.max_home, 'card')} home"
    elif a.verdict == "unknown":
        rest = f" \u2014 unknown: stopped after {n:,} positions"
    elif a.verdict == "winnable":
        rest = (f" \u2014 winnable: {n:,} positions" if a.complete else " \u2014 winnable") + \
               ", all 52 cards can go home"
    else:
        rest = f" \u2014 unwinnable: {n:,} positions, at most {plural(a.max_home, 'card')} home"
    r = a.rules
    words = [plural(r.cells, "free cell"), "single-card moves",
             "foundation returns allowed" if r.foundation_return else "no moves off the foundations"]
    if r.canonical:
        words.append("positions counted up to column order")
    if r.autoplay != "none":
        words.append(f"{r.autoplay} autoplay")
    subtitle = "rules: " + ", ".join(words)
    if source.deal is not None:
        subtitle = f"Microsoft deal {source.deal} \u00b7 " + subtitle
    legend = []
    if a.verdict == "unknown" and a.complete:
        legend.append(r.unproved())
    if a.verdict == "unknown" and not a.complete:
        legend.append("the reachable set was not enumerated to the end: nothing is claimed")
    elif a.frozen_cards:
        legend.append(f"never move in any of the {n:,} reachable positions: {frozen_text(a)}")
    elif a.frozen is not None:
        legend.append("every card moves in some reachable position")
    if a.exposed is not None and a.exposed_positions is not None:
        legend.append(f"{pretty_name(a.exposed)} is on top of a column in {plural(a.exposed_positions, 'position')}"
                      f" of the {n:,}")
    statement = None
    if a.verdict == "unwinnable" and not r.counting:
        legend.append("C: the fence — every reachable position, closed under moves, none won")
        statement = "∀ s, Reachable s → ¬ Won s"
    return svg.render(source.position, title, rest, subtitle=subtitle, frozen=a.frozen_places(),
                      legend=legend, cells=r.cells, fence_label="C" if statement else None, statement=statement)


def exposed_pictures(source, a):
    """One SVG text per kept position exposing the --exposed card (seed 000's picture): the card
    highlighted, and the cards it could go on (one rank higher, the other colour) tinted where buried."""
    from . import svg
    from .cards import is_red, rank
    x = a.exposed
    title = f"FreeCell #{source.deal}" if source.deal is not None else source.name
    out = []
    for n, pos in enumerate(a.exposing_positions(), 1):
        cols, cells, home = pos
        parents = [c for col in cols for c in col[:-1] if rank(c) == rank(x) + 1 and is_red(c) != is_red(x)]
        legend = [f"{pretty_name(x)} exposed; it needs a free cell, an empty column or one of "
                  + " ".join(pretty_name(c) for c in sorted(parents) or ()) + " on top" if parents else
                  f"{pretty_name(x)} exposed"]
        if parents:
            legend.append("tinted: buried, so " + pretty_name(x) + " cannot go on them")
        out.append(svg.render(pos, title, f" — {pretty_name(x)} exposed, position {n} of "
                              f"{a.exposed_positions}", subtitle=f"{len(cells)} of {a.rules.cells} free cells full, "
                              f"{sum(home)} cards home", legend=legend, cells=a.rules.cells, highlight=x,
                              tinted=set(parents)))
    return out


def solve_summary(name, r):
    """The one-line verdict of a solve (solver.solve.SolveResult)."""
    head = f"{name}{rules_words(r.rules)}"
    sec = f"{r.seconds:.3f} s"
    if r.verdict == "winnable":
        return (f"{head}: winnable \u2014 a line of {plural(r.length, 'single-card move')}, "
                f"replayed and checked against the spec rules ({plural(r.states, 'position')} searched, {sec})")
    if r.verdict == "unwinnable" and r.counted is not None:
        return (f"{head}: unwinnable \u2014 the spec's reachable set passed {r.max_states:,} positions; all "
                f"{r.enumerated:,} positions reachable up to the order of the columns with {r.counted.autoplay} "
                f"cards played home automatically enumerated, none won (proved to lose no win: Coq, "
                f"coq/FreeCell/Autoplay.v) ({plural(r.states, 'position')} searched in all, {sec})")
    if r.verdict == "unwinnable":
        return (f"{head}: unwinnable \u2014 {_every(r.enumerated)} enumerated under the spec rules, none won "
                f"({plural(r.states, 'position')} searched in all, {sec})")
    return (f"{head}: unknown \u2014 no winning line found{_limit(r.max_states, within=True)} "
            f"({plural(r.states, 'position')} searched, {sec}); this says nothing about unwinnability")


def solve_lines(name, r):
    """The verdict line, then the winning line in standard notation, MOVES_PER_LINE moves a line."""
    out = [solve_summary(name, r)]
    if r.verdict == "winnable":
        nt = r.notation()
        out += [" ".join(nt[i:i + MOVES_PER_LINE]) for i in range(0, len(nt), MOVES_PER_LINE)]
    return out


def survey_summary(s, rules):
    """"deals 1-32000: 31,999 winnable, 1 unwinnable (11982), 0 unknown in 9.0 s (...); lines: ..."."""
    parts = []
    for v in ("winnable", "unwinnable", "unknown"):
        ds = s.deals_with(v) if v != "winnable" else []
        shown = ""
        if ds:
            shown = " (" + ", ".join(str(d) for d in ds[:10]) + (", ...)" if len(ds) > 10 else ")")
        parts.append(f"{s.counts[v]:,} {v}{shown}")
    n = s.last - s.first + 1
    line = (f"deals {s.first}-{s.last}{rules_words(rules)}: " + ", ".join(parts)
            + f" in {s.seconds:.1f} s ({n / max(s.seconds, 1e-9):,.0f} deals/s, jobs {s.jobs})")
    st = s.length_stats()
    if st:
        line += f"; lines: median {st['median']:g}, mean {st['mean']:.1f}, max {st['max']} single-card moves"
    return line


def supermove_line(row):
    """"2 free cells, 1 empty column: (2+1)*2^1 = 6 cards" (the destination not counted when empty)."""
    f, e, t = row["free_cells"], row["empty_columns"], row["to_empty_column"]
    ee = e - 1 if t else e
    where = ", moving into an empty column" if t else ""
    return (f"{plural(f, 'empty free cell')}, {plural(e, 'empty column')}{where}: "
            f"({f}+1)\u00b72^{ee} = {plural(row['limit'], 'card')}")
