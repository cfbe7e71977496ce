"""Coq on a random sample of a certify-list ledger (docs/CERTIFY.md, "Coq on a sample"): rows drawn with a
fixed seed, each proved again from nothing by the pipeline's `python -m certgen prove-coq` (the search, both
checkers, the Coq file, coqc and the statement's driver), its rebuilt certificate's records_sha256 and
positions matched against the row, and a table of the coqc times.

    python scripts/coq_sample.py docs/data/freecell-pro-impossible-ledger.csv.gz --out-dir DIR \
        [--seed 34] [--fixed 29 --fixed-max 60000] [--canonical 1 --canonical-max 1000000] [--dry-run]

`fixed` rows are drawn among those of at most --fixed-max positions and `canonical-safe` rows among those of
at most --canonical-max (coqc's time and memory grow with the positions); the other forms have no
certificate. The table goes to stdout as the deals finish (and to DIR/coq-sample.md); exit status 0 only
when every drawn deal was proven by Coq with its row's records_sha256.
"""
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys

from solver.cliargs import Parser, one_line_errors, whole_arg
from solver.errors import FreecellError
from certgen.certify import read_ledger

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROVEN = re.compile(r"^proven by Coq: .*\(coqc ([0-9.]+) s, peak ([0-9,]+) MiB")
CERT = re.compile(r"^certificate: (.*) \([0-9,]+ bytes\)$")
FLAGS = {"fixed": (), "canonical-safe": ("--canonical", "--autoplay", "safe")}


def draw(rows, seed, forms):
    """The sample: for each (form, count, most positions) of ``forms``, ``count`` rows of that form and at
    most that many positions, drawn with random.Random(seed) from the rows in deal order."""
    rng = random.Random(seed)
    out = []
    for form, count, most in forms:
        pool = sorted(n for n, (f, body) in rows.items() if f == form and body["positions"] <= most)
        if len(pool) < count:
            raise FreecellError(f"only {len(pool)} {form} rows of at most {most:,} positions, not {count}")
        out += [(n, form) for n in sorted(rng.sample(pool, count))]
    return out


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def prove(n, form, body, out_dir):
    """One deal through prove-coq: (proven, coqc wall seconds and peak MiB as prove-coq prints them, why not),
    beside the processor seconds of the whole prove-coq (search, both checkers, rendering, coqc, the
    driver: a busy machine stretches the wall time, not these)."""
    cmd = [sys.executable, "-m", "certgen", "prove-coq", "--deal", str(n), *FLAGS[form], "--max-states",
           str(max(body["positions"], 20_000_000)), "--out-dir", out_dir, "--no-progress"]
    t0 = children_cpu()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    cpu = round(children_cpu() - t0, 1)
    lines = p.stdout.splitlines()
    proven = [m for m in map(PROVEN.match, lines) if m]
    certs = [m.group(1) for m in map(CERT.match, lines) if m]
    if p.returncode != 0 or len(proven) != 1 or len(certs) != 1:
        last = (p.stderr.strip().splitlines() or lines or ["no output"])[-1]
        return False, None, None, cpu, f"prove-coq exit {p.returncode}: {last}"
    info = subprocess.run([sys.executable, "-m", "certgen", "info", "--json", certs[0]], cwd=ROOT,
                          capture_output=True, text=True)
    got = json.loads(info.stdout) if info.returncode == 0 else {}
    if (got.get("records_sha256"), got.get("states")) != (body["records_sha256"], body["positions"]):
        return False, None, None, cpu, f"the rebuilt certificate is not the row's: {got.get('records_sha256')}, " \
                                  f"{got.get('states')} positions"
    return True, float(proven[0].group(1)), int(proven[0].group(2).replace(",", "")), cpu, ""


def main():
    p = Parser(description=__doc__.splitlines()[0])
    p.add_argument("ledger")
    p.add_argument("--out-dir", required=True, help="prove-coq's folder (each deal's files removed after it)")
    p.add_argument("--seed", type=whole_arg("--seed", 0, 2 ** 64 - 1), default=34)
    p.add_argument("--fixed", type=whole_arg("--fixed", 0, 10 ** 6), default=29)
    p.add_argument("--fixed-max", type=whole_arg("--fixed-max", 0, 10 ** 15), default=60_000)
    p.add_argument("--canonical", type=whole_arg("--canonical", 0, 10 ** 6), default=1)
    p.add_argument("--canonical-max", type=whole_arg("--canonical-max", 0, 10 ** 15), default=1_000_000)
    p.add_argument("--dry-run", action="store_true", help="print the sample only")
    a = p.parse_args()
    rows = read_ledger(a.ledger, None)
    sample = draw(rows, a.seed, [("fixed", a.fixed, a.fixed_max), ("canonical-safe", a.canonical,
                                                                    a.canonical_max)])
    if a.dry_run:
        print(" ".join(f"{n}:{form}" for n, form in sample))
        return 0
    os.makedirs(a.out_dir, exist_ok=True)
    table = os.path.join(a.out_dir, "coq-sample.md")
    head = ["| deal | form | positions | coqc seconds (wall) | coqc peak MiB | prove-coq processor seconds | proven |",
            "|---:|---|---:|---:|---:|---:|---|"]
    out = list(head)
    print("\n".join(head), flush=True)
    bad, times = 0, []
    for n, form in sample:
        body = rows[n][1]
        ok, secs, peak, cpu, why = prove(n, form, body, a.out_dir)
        bad += not ok
        times += [secs] if ok else []
        line = f"| {n} | {form} | {body['positions']:,} | {secs if ok else ''} | {peak if ok else ''} | {cpu} | " \
               f"{'yes, records_sha256 the row' + chr(39) + 's' if ok else 'NO: ' + why} |"
        out.append(line)
        print(line, flush=True)
        for name in os.listdir(a.out_dir):             # this deal's certificate and Coq files
            if name.startswith(f"Deal{n}"):
                os.remove(os.path.join(a.out_dir, name))
        shutil.rmtree(os.path.join(a.out_dir, "coq"), ignore_errors=True)
        with open(table, "w") as f:
            f.write("\n".join(out) + "\n")
    print(f"\n{len(sample) - bad} of {len(sample)} proven by Coq; coqc {sum(times):.1f} s in all, "
          f"median {sorted(times)[len(times) // 2] if times else 0} s, most {max(times, default=0)} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(one_line_errors(main))
