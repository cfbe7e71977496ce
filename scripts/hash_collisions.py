"""How well the Lean hash of a position (FreeCell.hashState in lean/FreeCell/Cert.lean) spreads the
positions of real certificates, measured with its Python twin certgen.certtext.state_hash.

    python scripts/hash_collisions.py out/Deal*.cert      # after `make prove-known` (or `certgen build`)

For each certificate: its positions, how many distinct hash values they have, how many positions share
their hash with another one, and the hash set as Std.HashSet would lay it out (buckets: the smallest power
of two at least 4/3 of the positions; bucket of a hash: Std's `scrambleHash` then the low bits): the mean
number of positions in the bucket of a member, which is what a lookup walks through (each one compared
with the position looked up).
"""
import collections
import os
import sys

from certgen import certificate, certtext, members
from solver import spec
from solver.cliargs import Parser, one_line_errors


def scramble(h: int) -> int:
    """Std.DHashMap.Internal.scrambleHash (src/Std/Data/DHashMap/Internal/Index.lean)."""
    fold = h ^ (h >> 32)
    return fold ^ (fold >> 16)


def buckets_for(n: int) -> int:
    """The bucket count Std.HashSet.ofList reaches for n positions: it doubles (from 8) while
    numBucketsForCapacity n = n * 4 / 3 exceeds it."""
    b = 8
    while n * 4 // 3 > b:
        b *= 2
    return b


def top_card_hash(s) -> int:
    """The variant with only each column's length and top card (what issue 11 first proposed)."""
    h = 0
    for col in s.cols:
        h = certtext.mix_hash_nat(h, len(col) * 64 + spec.key(col[0]) if col else 0)
    for c in s.cells:
        h = certtext.mix_hash_nat(h, spec.key(c))
    for x in s.home:
        h = certtext.mix_hash_nat(h, x)
    return h


def measure(states, hash_fn=certtext.state_hash):
    hashes = [hash_fn(s) for s in states]
    counts = collections.Counter(hashes)
    sharing = sum(v for v in counts.values() if v > 1)
    size = buckets_for(len(states))
    buckets = collections.Counter(scramble(h) & (size - 1) for h in hashes)
    walk = sum(v * v for v in buckets.values()) / len(states)
    return {"positions": len(states), "distinct": len(counts), "sharing": sharing, "buckets": size,
            "walk": walk, "largest": max(buckets.values())}


def main(argv=None):
    p = Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("certs", nargs="+", metavar="CERT")
    p.add_argument("--top-card-only", action="store_true",
                   help="measure the variant that hashes only each column's length and top card")
    args = p.parse_args(argv)
    hash_fn = top_card_hash if args.top_card_only else certtext.state_hash
    total = collections.Counter()
    print(f"{'certificate':<20}{'positions':>10}{'distinct hashes':>17}{'sharing a hash':>20}"
          f"{'buckets':>10}{'mean bucket of a member':>25}")
    for path in args.certs:
        m = measure(members.decode(certificate.read(path)).states, hash_fn)
        total.update(positions=m["positions"], sharing=m["sharing"])
        sharing = f"{m['sharing']:,} ({m['sharing'] / m['positions']:.3%})"
        print(f"{os.path.basename(path):<20}{m['positions']:>10,}{m['distinct']:>17,}{sharing:>20}"
              f"{m['buckets']:>10,}{m['walk']:>25.2f}")
    print(f"all: {total['sharing']:,} of {total['positions']:,} positions share their hash with another "
          f"({total['sharing'] / total['positions']:.3%})")


if __name__ == "__main__":
    sys.exit(one_line_errors(main))
