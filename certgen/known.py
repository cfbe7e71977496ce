"""docs/KNOWN.md: the table of the deals of 1..1,000,000 known to be unsolvable, written by
`python -m certgen prove-known` (`make prove-known`) from the certificates it built; never typed by hand.

The table is tracked, so it holds only figures that every run reproduces byte for byte (positions,
cards home, certificate bytes -- the same as long as zlib compresses the same -- and the Python check's
counts): no date, no machine, no timings. The timings of a run go to `<out-dir>/known-timings.csv`.
"""
import os

from solver.atomic import write_atomic

KNOWN = (11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948)


def row(deal, cert, path, check, seconds):
    return {
        "deal": deal,
        "states": cert.states,
        "max_home": cert.info.get("max_home"),
        "bytes": os.path.getsize(path),
        "search_seconds": cert.info.get("search_seconds"),
        "check": "valid" if check.ok else "INVALID",
        "successors": check.successors,
        "seconds": seconds,
    }


HEAD = """# The deals of 1..1,000,000 known to be unsolvable

Written by `make prove-known` (`python -m certgen prove-known`); do not edit by hand. Every run writes the
same bytes (the timings of a run go to `out/known-timings.csv`, not here).
Each deal was enumerated by the C core under the standard rules (4 free cells, single-card moves, nothing
back from the foundations), stored as a certificate (`out/Deal<N>.cert`), checked by the independent
Python checker (the transliterated Lean spec) and rendered as a Lean module
(`lean/FreeCell/Generated/Deal<N>.lean`). Whether Lean checked the modules is what `make prove-known`
printed at its end: this table records only what Python checked.

| deal | positions | most cards home | certificate bytes | bytes/position | Python check | successors checked |
|---:|---:|---:|---:|---:|---|---:|
"""


def write_table(rows, path):
    text = HEAD
    for r in rows:
        text += (f"| {r['deal']} | {r['states']:,} | {r['max_home']} | {r['bytes']:,} | "
                 f"{r['bytes'] / r['states']:.1f} | {r['check']} | {r['successors']:,} |\n")
    text += f"\nTotal: {sum(r['states'] for r in rows):,} positions in {len(rows)} certificates.\n"
    write_atomic(path, text)
    return path


TIMING_COLUMNS = ("deal", "search_seconds", "pipeline_seconds")


def write_timings(rows, path):
    """The run's timings (search in the C core, the whole pipeline of each deal) as CSV, untracked."""
    lines = [",".join(TIMING_COLUMNS)]
    lines += [f"{r['deal']},{r['search_seconds']:.4f},{r['seconds']:.2f}" for r in rows]
    write_atomic(path, "\n".join(lines) + "\n")
    return path
