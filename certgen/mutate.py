"""Mutations of a certificate, to show that the check is no rubber stamp.

The reachable set is the least set that contains the start and is closed under moves, so a certificate
of exactly the reachable positions must be refused once any one of them is deleted; a certificate with a
won position in it must be refused too.

  deal             delete the start position
  first-successor  delete the first position of `moves start` (the spec's order)
  last-successor   delete the last position of `moves start`
  random:K         delete K members chosen at random (--seed S)
  add-won          add the won position (every card on the foundations)

In a certificate up to column order the start and its successors are the members of their classes: each
put into the checkers' column order (certgen/columns.py) before it is looked for, and first taken after its
safe automatic moves with those (checker.Lookup).
"""
import random
from typing import Tuple

from solver import packed, spec
from solver.errors import FreecellError
from solver.numbers import digits, whole_number

from .certificate import Certificate
from .checker import lookup
from .members import rules_of, start_of


def won_record() -> bytes:
    """The won position: no card in a column or a cell, every foundation up to the king."""
    return packed.pack((((),) * 8, (), (13, 13, 13, 13)))


def parse_kind(text: str) -> Tuple[str, int]:
    if text in ("deal", "first-successor", "last-successor", "add-won"):
        return text, 0
    if text.startswith("random:"):
        k = digits(text[len("random:"):])
        if k is not None and k > 0:
            return "random", k
    raise FreecellError(f"unknown mutation {text!r}: use deal, first-successor, last-successor, random:K or add-won")


MAX_SEED = 2 ** 64 - 1    # the seed is stored in the mutant's header (msgpack holds up to 2^64-1)


def mutate(cert: Certificate, kind: str, seed: int = 0) -> Tuple[Certificate, list]:
    """The mutated certificate and the P64 records deleted (or added)."""
    what, k = parse_kind(kind)
    seed = whole_number(seed, "--seed", 0, MAX_SEED)
    records = list(cert.records)
    members = set(records)
    if what == "add-won":
        rec = won_record()
        if rec in members:
            raise FreecellError("the certificate already contains the won position")
        changed = [rec]
        records = sorted(records + changed)
    else:
        if what == "random":
            if k > len(records):
                raise FreecellError(f"cannot delete {k} of {len(records)} states")
            changed = random.Random(seed).sample(records, k)
        else:
            s0 = start_of(cert)
            rules = rules_of(cert)
            if what == "deal":
                victim = s0
            else:
                succ = spec.moves(rules.plain().spec(), s0)
                if not succ:
                    raise FreecellError("the start position has no successors")
                victim = succ[0] if what == "first-successor" else succ[-1]
            victim = lookup(rules).name(victim)     # as the checkers look it up
            rec = packed.pack(spec.to_position(victim))
            if rec not in members:
                raise FreecellError(f"the certificate does not contain the {what.replace('-', ' ')} position")
            changed = [rec]
        gone = set(changed)
        records = [r for r in records if r not in gone]
    info = dict(cert.info)
    info["mutation"] = {"kind": kind, "seed": seed, "changed": len(changed)}
    return Certificate(source=cert.source, rules=cert.rules, start=cert.start, records=records, info=info), changed


def change_words(kind: str, changed: list) -> str:
    """"added 1 won state" or "deleted 3 states": what a mutation did, in words."""
    n = len(changed)
    if parse_kind(kind)[0] == "add-won":
        return f"added {n} won state" + ("" if n == 1 else "s")
    return f"deleted {n} state" + ("" if n == 1 else "s")
