"""Where certify-list's processor time goes (docs/CERTIFY.md): the run of a list in this process, one job,
under cProfile timed in processor seconds, split into the search, the export of its records (decoded), their
column order (up to column order), their sort (and merge), zlib, SHA-256, the files' writes, the rest of this
process, and the fast checker (its child processes).

    python scripts/certify_profile.py LIST DIR [--range A-B] [--max-states N] [--canonical-max-states N] [--json]

DIR must be a new folder (a folder with rows skips them). The ledger's `seconds` of the same run add up to
about the total.
"""
import cProfile
import json
import os
import pstats
import sys
import time

from solver.cliargs import Parser, canonical_max_states_arg, max_states_arg, one_line_errors
from certgen import certify
from solver.survey import parse_range

# phase: the built-ins whose own time it is (as cProfile names them)
PHASES = (("search", ("<built-in method solver._fc.fc_search_run>",)),
          ("export", ("<built-in method solver._fc.fc_search_export_p64>",
                      "<built-in method solver._fc.fc_search_export_p64_at>",
                      "<built-in method solver._fc.fc_p64_gather>")),
          ("column order", ("<built-in method solver._fc.fc_p64_column_order>",)),
          ("sort", ("<built-in method solver._fc.fc_search_sort_p64>",
                    "<built-in method solver._fc.fc_search_sort_records>",
                    "<built-in method solver._fc.fc_p64_order>",
                    "<built-in method solver._fc.fc_p64_merge>")),
          ("zlib", ("<method 'compress' of 'zlib.Compress' objects>", "<method 'flush' of 'zlib.Compress' objects>")),
          ("SHA-256", ("<method 'update' of '_hashlib.HASH' objects>",)),
          ("file writes", ("<method 'write' of '_io.BufferedRandom' objects>",
                           "<method 'write' of '_io.BufferedWriter' objects>")))


def profile(list_path, folder, first, last, **limits):
    if os.path.exists(folder):
        raise SystemExit(f"{folder} exists: give a new folder")
    pr = cProfile.Profile(time.process_time)
    t0 = os.times()
    pr.enable()
    counts, listed = certify.run(list_path, folder, first, last, jobs=1, say=lambda text: None, **limits)
    pr.disable()
    t1 = os.times()
    own = t1.user + t1.system - t0.user - t0.system
    kids = t1.children_user + t1.children_system - t0.children_user - t0.children_system
    stats = pstats.Stats(pr).stats
    out = {}
    for phase, names in PHASES:
        out[phase] = sum(v[2] for (_f, _l, name), v in stats.items() if name in names)
    out["rest of the process"] = own - sum(out.values())
    out["fast checker"] = kids
    deals = sum(counts.values())
    return {"deals": deals, "seconds": {k: round(v, 2) for k, v in out.items()}, "total": round(own + kids, 2),
            "deals_per_core_second": round(deals / (own + kids), 3) if own + kids else None}


def main():
    p = Parser(description=__doc__.splitlines()[0])
    p.add_argument("list")
    p.add_argument("dir")
    p.add_argument("--range", metavar="A-B", default=None)
    p.add_argument("--max-states", type=max_states_arg,
                   default=certify.CERTIFY_STATES, help="as certify-list's")
    p.add_argument("--canonical-max-states", type=canonical_max_states_arg,
                   default=certify.CERTIFY_CANONICAL_STATES, help="as certify-list's")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    first, last = parse_range(a.range, max_range=None) if a.range else (1, certify.deals.MAX_DEAL)
    f = profile(a.list, a.dir, first, last, max_states=a.max_states, canonical_max_states=a.canonical_max_states)
    if a.json:
        print(json.dumps(f, indent=1))
        return
    print(f"{f['deals']} deals, {f['total']} processor seconds ({f['deals_per_core_second']} deals a core-second)")
    for k, v in f["seconds"].items():
        print(f"  {k:20} {v:8.2f}  {100 * v / f['total']:5.1f} %")


if __name__ == "__main__":
    sys.exit(one_line_errors(main))
