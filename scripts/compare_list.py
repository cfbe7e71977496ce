"""Compare a finished survey directory with FreeCell Pro's list of deals unwinnable with four cells.

    python scripts/compare_list.py DIR [--list ../shared/data/freecell-pro-impossible-4-cells.txt]

Prints the range, the survey's unwinnable and unknown deals, the list's deals in the range, and the
differences both ways, plus the survey's speed (deals per second of solving time, i.e. per core). Exit 0
when the unwinnable deals are exactly the list's, 1 otherwise.
"""
import json
import os
import sys

from solver.cliargs import Parser, one_line_errors
from solver.errors import FreecellError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = os.path.join("shared", "data", "freecell-pro-impossible-4-cells.txt")
# the project's shared folder sits beside the checkout (or beside the folder of worktrees)
LIST = next((p for p in (os.path.join(os.path.dirname(ROOT), NAME), os.path.join(os.path.dirname(os.path.dirname(ROOT)), NAME))
             if os.path.exists(p)), NAME)


def main(argv=None):
    p = Parser(description=__doc__.splitlines()[0])
    p.add_argument("dir")
    p.add_argument("--list", default=LIST)
    args = p.parse_args(argv)
    summary = os.path.join(args.dir, "summary.json")
    with open(summary, encoding="utf-8") as f:
        try:
            s = json.load(f)
            a, b = s["first"], s["last"]
        except (ValueError, KeyError, TypeError):
            raise FreecellError(f"{summary} is not a survey's summary (JSON with first, last, counts, "
                                f"unwinnable, unknown)") from None
    if not os.path.exists(args.list):
        raise FreecellError(f"no list at {args.list}: give --list FILE")
    with open(args.list, encoding="utf-8") as f:
        listed = []
        for k, line in enumerate(f, 1):
            if line.strip() and not line.strip().isdigit():
                raise FreecellError(f"{args.list} line {k}: not a deal number")
            if line.strip() and a <= int(line) <= b:
                listed.append(int(line))
        listed.sort()
    ours = s["unwinnable"]
    print(f"deals {a:,}..{b:,}: {s['counts']}")
    print(f"unwinnable (certified): {len(ours)}; the list: {len(listed)}")
    print(f"only in the survey: {sorted(set(ours) - set(listed))}; only in the list: {sorted(set(listed) - set(ours))}")
    print(f"unknown: {s['unknown']}")
    print(f"{s['deals'] / max(s['deal_seconds'], 1e-9):,.0f} deals per second of solving time (one core); "
          f"wall {s['wall_seconds']:,.1f} s")
    return 0 if ours == listed else 1


if __name__ == "__main__":
    sys.exit(one_line_errors(main))
