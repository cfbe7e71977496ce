"""docs/KNOWN.md: the table of the deals of 1..1,000,000 known to be unsolvable, written by
`python -m certgen prove-known` (`make prove-known`) from the certificates it built; never typed by hand."""
import datetime
import os
import platform

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

Written by `make prove-known` (`python -m certgen prove-known`) on {date}, {machine}; do not edit by hand.
Each deal was enumerated by the C core under the standard rules (4 free cells, single-card moves, nothing
back from the foundations), stored as a certificate (`out/Deal<N>.cert`), checked by the independent
Python checker (the transliterated Lean spec) and rendered as a Lean module
(`lean/FreeCell/Generated/Deal<N>.lean`). Whether Lean checked the modules is what `make prove-known`
printed at its end: this table records only what Python checked.

| deal | positions | most cards home | certificate bytes | bytes/position | search s | Python check | successors checked | pipeline s |
|---:|---:|---:|---:|---:|---:|---|---:|---:|
"""


def write_table(rows, path):
    text = HEAD.format(date=datetime.date.today().isoformat(),
                       machine=f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    for r in rows:
        text += (f"| {r['deal']} | {r['states']:,} | {r['max_home']} | {r['bytes']:,} | "
                 f"{r['bytes'] / r['states']:.1f} | {r['search_seconds']:.3f} | {r['check']} | "
                 f"{r['successors']:,} | {r['seconds']:.1f} |\n")
    text += f"\nTotal: {sum(r['states'] for r in rows):,} positions in {len(rows)} certificates.\n"
    write_atomic(path, text)
    return path


def read_table(path):
    """{deal: (positions, most cards home)} from the table, for the tests."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 9 and cells[0].isdigit():
                out[int(cells[0])] = (int(cells[1].replace(",", "")), int(cells[2]))
    return out
