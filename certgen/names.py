"""What certgen's generated files are called and how they name what they are about, for Lean and Coq alike:
file stems (from the start's Source, solver/source.py: Deal11982, CodeN1Cells1, Board1a2b3c4d, ...; so a
certificate, its modules and its standalone file always agree), Lean module and theorem names, a card's and
the rules' names in words, and the start a module names (a deal by number, checked to be that deal).

It imports nothing of certgen but the user-text gate, so that the certificate reader (certgen/certificate.py)
can say what a certificate is about in these words.
"""
import re
from typing import Dict, Optional

from solver import packed, spec
from solver.errors import FreecellError
from solver.rules import STANDARD, Rules
from solver.source import Source

from .usertext import user_text

MODULE_PREFIX = "FreeCell.Generated"
RANKS = "A23456789TJQK"
SUITS = "♣♦♥♠"
STEM = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")


def checked_stem(stem: str) -> str:
    """A module stem must be a plain Lean identifier: a letter, then letters and digits."""
    if not STEM.match(str(stem)):
        raise ValueError(f"not a module name: {stem!r} (letters and digits, starting with a letter)")
    return stem


def card_label(c: spec.Card) -> str:
    """A card as the comments of the generated files name it: A♣, T♦, K♠."""
    return RANKS[c.rank - 1] + SUITS[c.suit]


def rules_text(rules: Rules) -> str:
    """A certificate's rules as its generated files and `certgen info` say them, in solver.rules.Rules.words'
    words: "the standard rules (4 free cells, nothing back from the foundations)" or "the rules with 5 free
    cells and foundation returns allowed", then "up to column order" and "with" each other mode ("with safe
    automatic moves")."""
    cells, back, *modes = rules.words()
    standard = rules.plain() == STANDARD
    text = f"the standard rules ({cells}, {back})" if standard else f"the rules with {cells} and {back}"
    return text + "".join(f" {m}" if m == "up to column order" else f" with {m}" for m in modes)


def deal_start(start: spec.State, deal: Optional[int]) -> Optional[int]:
    """The deal number a module names its start by (None: the start is written out); a start that is not
    msDeal ``deal`` is refused."""
    if deal is not None and spec.ms_deal(deal) != start:
        raise FreecellError(f"the start position is not msDeal {deal}")
    return deal


def _camel(text: str) -> str:
    parts = re.split(r"[^A-Za-z0-9]+", text)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def default_stem(start: spec.State, rules: Rules, deal: Optional[int] = None) -> str:
    """The stem of a start given as a position (a Microsoft deal when ``deal`` is given)."""
    src = Source("ms", spec.to_position(start), deal=deal) if deal is not None else \
        Source("board", spec.to_position(start))
    return src.stem(rules)


def mutation_stem(info: Dict) -> str:
    m = (info or {}).get("mutation") or {}
    kind = str(m.get("kind", "mutated"))
    stem = _camel(kind) or "Mutated"
    if kind.startswith("random"):
        seed = m.get("seed", 0)
        stem += f"Seed{seed}" if isinstance(seed, int) and seed >= 0 else ""
    return stem


def mutation_text(cert) -> str:
    """A mutated certificate's mutation in words (through the user-text gate)."""
    m = (cert.info or {}).get("mutation") or {}
    text = str(m.get("kind", "unknown"))
    if text.startswith("random"):
        text += f", seed {m.get('seed', 0)}"
    return user_text(text)


def cert_stem(cert, mutant: bool = False) -> str:
    """The file stem of a certificate's outputs: its Source's (solver/source.py), from the header."""
    stem = Source.from_header(cert.source, packed.unpack(cert.start)).stem(Rules.from_dict(cert.rules))
    return f"Mutant{stem}{mutation_stem(cert.info)}" if mutant else stem


def module_name(cert, mutant: bool = False) -> str:
    """The Lean module (and `lake build` target) of a certificate's rendered module."""
    return f"{MODULE_PREFIX}.{cert_stem(cert, mutant)}"


def theorem_short_name(deal: Optional[int], kind: str = "unwinnable") -> str:
    return f"freecell_{deal}_{kind}" if deal is not None else f"position_{kind}"


def theorem_name(cert) -> str:
    """The full name of a certificate's Lean theorem."""
    deal = int(cert.source["deal"]) if cert.source.get("kind") == "ms" else None
    return f"{module_name(cert)}.{theorem_short_name(deal)}"


def win_module(stem: str) -> str:
    """The Lean module (and `lake build` target) of a rendered winning line."""
    return f"{MODULE_PREFIX}.{stem}"
