"""The figures of a certify-list ledger (docs/CERTIFY.md): rows per form, the size histogram (positions by
decade), the largest ten, processor seconds per deal (median, 99th percentile, mean, sum), the seconds of each
form (the disk rows' hours beside the rest) and the projection for a list of N deals at the same mean; with ``--range A-B``, of the rows of deals A..B only (the ledger may hold
more than one range of the list).

    python scripts/ledger_figures.py docs/data/freecell-pro-impossible-ledger.csv.gz [--range A-B] [--whole 102075]
        [--json]
"""
import json
import math
import sys

from certgen.certify import FORMS, read_ledger
from solver.cliargs import Parser, one_line_errors, whole_arg
from solver.deals import MAX_DEAL
from solver.errors import FreecellError
from solver.survey import parse_range


def percentile(values, q):
    """The nearest-rank q-th percentile of sorted ``values``."""
    return values[max(0, math.ceil(q / 100 * len(values)) - 1)] if values else None


def figures(path, whole, first=1, last=None):
    rows = {n: r for n, r in read_ledger(path, None).items() if first <= n and (last is None or n <= last)}
    if not rows:        # no figures: a projection from no deal would say 0 hours
        raise FreecellError(f"{path}: no row" + ("" if last is None else f" of deals {first:,}..{last:,}"))
    forms = dict.fromkeys(FORMS, 0)
    form_seconds = dict.fromkeys(FORMS, 0.0)
    hist = {}
    for form, body in rows.values():
        forms[form] += 1
        form_seconds[form] += body["seconds"]
        k = body["positions"]
        decade = 0 if k < 10 else 10 ** (len(str(k)) - 1)
        hist[decade] = hist.get(decade, 0) + 1
    secs = sorted(body["seconds"] for _f, body in rows.values())
    largest = sorted(rows.items(), key=lambda kv: -kv[1][1]["positions"])[:10]
    total = sum(secs)
    mean = total / len(secs) if secs else 0.0
    return {"deals": len(rows), "forms": forms,
            "positions_by_decade": {f"{d:,}..{10 * d - 1:,}" if d else "0..9": hist[d] for d in sorted(hist)},
            "largest": [[n, form, body["positions"]] for n, (form, body) in largest],
            "seconds_median": percentile(secs, 50), "seconds_p99": percentile(secs, 99),
            "seconds_mean": round(mean, 4), "core_hours": round(total / 3600, 3),
            "deals_per_core_second": round(len(secs) / total, 3) if total else None,
            "seconds_by_form": {k: round(v, 1) for k, v in form_seconds.items()},
            "deals_per_core_second_by_form": {k: round(forms[k] / v, 3) if v else None
                                              for k, v in form_seconds.items()},
            "whole": whole, "projected_core_hours": round(mean * whole / 3600, 1)}


def main():
    p = Parser(description=__doc__.splitlines()[0])
    p.add_argument("ledger")
    p.add_argument("--whole", type=whole_arg("--whole", 1, MAX_DEAL), default=102_075,
                   help="the projection's number of deals (default: the list's)")
    p.add_argument("--range", metavar="A-B", help="only the rows of deals A..B")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    f = figures(a.ledger, a.whole, *(parse_range(a.range, max_range=None) if a.range is not None else (1, None)))
    if a.json:
        print(json.dumps(f, indent=1))
        return
    print(f"{f['deals']:,} deals: " + ", ".join(f"{v:,} {k}" for k, v in f["forms"].items()))
    print("positions: " + "; ".join(f"{k}: {v:,}" for k, v in f["positions_by_decade"].items()))
    print("largest: " + ", ".join(f"#{n} {form} {k:,}" for n, form, k in f["largest"]))
    print(f"processor seconds a deal: median {f['seconds_median']}, 99th percentile {f['seconds_p99']}, mean "
          f"{f['seconds_mean']}; {f['core_hours']} core-hours in all ({f['deals_per_core_second']} deals a "
          f"core-second); {f['whole']:,} deals at this mean: {f['projected_core_hours']:,} core-hours")
    rate = f["deals_per_core_second_by_form"]
    print("processor seconds by form: " + "; ".join(
        f"{k} {secs:,} ({f['forms'][k]:,} deal{'s' * (f['forms'][k] != 1)}"
        + (f", {rate[k]:.3f} a core-second)" if rate[k] is not None else ")")
        for k, secs in f["seconds_by_form"].items() if f["forms"][k]))


if __name__ == "__main__":
    sys.exit(one_line_errors(main))
