"""The rules a search runs under: one value for the whole project.

``cells`` (0..8, default 4) and ``foundation_return`` (default False) are the spec's parameters (Lean's
``Rules``, ``solver.spec.Rules``); ``autoplay``, ``canonical`` and ``supermoves`` are the C core's counting
mode (automatic moves to the foundations, positions counted up to the order of the columns, runs of cards
moved in one step within seed 004's limit (f+1)·2^e), off by default.
Certificates and Lean theorems exist for the spec rules only.

Forms: ``to_dict()`` (--json output: the spec's two keys, plus the counting keys only when a counting mode is
on), ``header()`` (a certificate header's rules: the spec's two keys, plus ``"column_order": true`` for a
certificate up to the order of the columns, and ``"autoplay": "safe"`` beside it for one with safe automatic moves,
docs/CERTIFICATE.md), ``from_dict()`` (reads both),
``spec()`` (the transliterated spec's value), and ``stem()`` (the part of a file or Lean module name that
says which rules).
"""
from collections import namedtuple

from .errors import FreecellError

MAX_CELLS = 8                                            # FC_MAX_CELLS (solver/fc.h; a test keeps them equal)
AUTOPLAY = ("none", "safe", "horne", "twos", "all")      # the FC_AUTOPLAY_* modes, by name
PROVED_AUTOPLAY = ("horne", "safe", "twos")              # coq/FreeCell/Autoplay.v (no foundation returns)


class Rules(namedtuple("Rules", "cells foundation_return autoplay canonical supermoves hand")):
    """A frozen value (a named tuple: equal rules are equal and hash alike; `collections` is loaded at
    start-up anyway, where `dataclasses` would cost the explore command ~9 ms). Checked when made."""
    __slots__ = ()

    def __new__(cls, cells=4, foundation_return=False, autoplay="none", canonical=False, supermoves=False,
                hand=0):
        if isinstance(cells, bool) or not isinstance(cells, int) or not 0 <= cells <= MAX_CELLS:
            raise FreecellError(f"cells must be a whole number from 0 to {MAX_CELLS}, got {cells!r}")
        if autoplay not in AUTOPLAY:
            raise FreecellError(f"autoplay must be one of {', '.join(AUTOPLAY)}, got {autoplay!r}")
        if not all(isinstance(v, bool) for v in (foundation_return, canonical, supermoves)):
            raise FreecellError("foundation_return, canonical and supermoves are True or False")
        if hand not in (0, 1) or isinstance(hand, bool):
            raise FreecellError(f"hand must be 0 or 1 (favors a game), got {hand!r}")
        if hand and (autoplay != "none" or canonical):
            raise FreecellError("--hand works with the plain rules only (no --autoplay/--canonical)")
        return super().__new__(cls, cells, foundation_return, autoplay, canonical, supermoves, hand)

    def _replace(self, **changes) -> "Rules":
        return Rules(**{**self._asdict(), **changes})

    @property
    def counting(self) -> bool:
        """A counting mode (automatic moves or column order) is on: not the spec's rules."""
        return self.autoplay != "none" or self.canonical or self.supermoves

    def unproved(self) -> str:
        """The one rule for "unwinnable" in a counting mode: "" when a complete enumeration under these
        rules that reaches no won position proves that no won position is reachable under the spec rules
        (``cells``, ``foundation_return``), else the reason in words (the verdict is then "unknown";
        solver.verdict.decide applies it, for explore, analyze, solve, survey and certgen alike):

        * no counting mode: the enumerated set is a fence (Lean's fence theorem, certificates);
        * ``canonical`` (positions up to the order of the columns): Coq, coq/FreeCell/Columns.v,
          ``unwinnable_of_fence_up_to_column_order``;
        * ``autoplay`` "horne", "safe" or "twos", only without foundation returns: Coq,
          coq/FreeCell/Autoplay.v. "horne" (aces always; another card once both foundations of the other colour
          reach its rank - 1; Autoplay.v's ``safeHome``, ``lowOthers``): ``unwinnable_of_autoplay_fence`` and,
          with ``canonical``, ``unwinnable_of_autoplay_fence_up_to_column_order``; "safe" (seed 004's rule:
          aces and twos always, another card as with horne, or once both foundations of the other colour reach
          its rank - 2 and the other suit of its colour rank - 3; Autoplay.v's ``lowSafe``):
          ``unwinnable_of_safe_autoplay_fence`` and ``unwinnable_of_safe_autoplay_fence_up_to_column_order``;
          "twos" (aces and twos only; ``lowTwos``): ``unwinnable_of_twos_autoplay_fence`` and its
          ``_up_to_column_order`` form. fc_internal.h's safe_home was read beside these definitions (not proved equal
          to them). The C core applies the rule to the start and after every move, so the enumerated set
          holds, after automatic moves, the start and every move of each member: the theorems' hypotheses;
        * ``supermoves`` changes nothing: moves.c's gen_moves makes every single move and then adds the
          supermoves (gen_super, all=1), so the enumerated set contains the one without them and is closed
          under the single moves all the same -- a set with no won position in it says the same;
        * ``autoplay`` "all" (every next card; for tests only), or "horne", "safe" or "twos" with foundation
          returns: nothing proves that these automatic moves lose no win."""
        if self.autoplay == "none":
            return ""
        if self.autoplay in PROVED_AUTOPLAY:
            if not self.foundation_return:
                return ""
            return (f"no win in this counting mode (automatic moves '{self.autoplay}' are proved to lose no win "
                    f"only without foundation returns: use --autoplay none for a proof)")
        return (f"no win in this counting mode (automatic moves '{self.autoplay}' are not proved to lose no "
                f"win: use --autoplay horne, safe, twos or none for a proof)")

    def proves_unwinnable(self) -> bool:
        """A complete enumeration without a won position under these rules proves the deal unwinnable under
        the spec rules (:meth:`unproved` says which theorem, or why not)."""
        return not self.unproved()

    def words(self) -> list:
        """The rules in words, one phrase each: the free cells ("5 free cells"), the foundations ("foundation
        returns allowed" or "nothing back from the foundations"), then each counting mode that is on ("up to
        column order", "safe automatic moves", "supermoves", "1 favor of the hand"). Every message and
        generated file says the rules with these (solver.report.rules_words, certgen.names.rules_text), and the
        disk search's C core word for word (ddd_state.c's rules_words; tests/solver/test_ddd_state.py compares them)."""
        out = [f"{self.cells} free cell" + ("" if self.cells == 1 else "s"),
               "foundation returns allowed" if self.foundation_return else "nothing back from the foundations"]
        if self.canonical:
            out.append("up to column order")
        if self.autoplay != "none":
            out.append(f"{self.autoplay} automatic moves")
        if self.supermoves:
            out.append("supermoves")
        if self.hand:
            out.append(f"{self.hand} favor" + ("" if self.hand == 1 else "s") + " of the hand")
        return out

    def plain(self) -> "Rules":
        """The same spec parameters without the counting mode."""
        return self._replace(autoplay="none", canonical=False, supermoves=False)

    def to_dict(self) -> dict:
        d = {"cells": self.cells, "foundation_return": self.foundation_return}
        if self.hand:
            d["hand"] = self.hand
        if self.counting:
            d.update(autoplay=self.autoplay, canonical=self.canonical)
            if self.supermoves:
                d["supermoves"] = True
        return d

    @property
    def column_order(self) -> bool:
        """Up to the order of the columns: the spec's rules, positions taken as classes of column reorderings
        (a certificate up to column order, ``"column_order": true`` in its header), and nothing else but,
        without foundation returns, the safe automatic moves (``"autoplay": "safe"`` beside it: each position
        taken after them; coq/FreeCell/CertAuto.v)."""
        safe = self.autoplay == "safe" and not self.foundation_return
        return self.canonical and self == self.plain()._replace(canonical=True, autoplay=self.autoplay) and \
            (self.autoplay == "none" or safe)

    def header(self) -> dict:
        """The rules as a certificate header holds them: the spec's two keys, ``"column_order": True`` when
        :attr:`column_order` (only ``True``: absent means fixed columns) and ``"autoplay": "safe"`` with the
        safe automatic moves. Other counting modes have no certificate."""
        if self.counting and not self.column_order:
            raise FreecellError("certificates exist for the spec rules, fixed columns or up to column order "
                                "(--canonical), the latter also with --autoplay safe without --foundation-return "
                                "(no other --autoplay, no --supermoves)")
        d = {"cells": self.cells, "foundation_return": self.foundation_return}
        if self.hand:
            d["hand"] = self.hand
        if self.column_order:
            d["column_order"] = True
        if self.autoplay != "none":
            d["autoplay"] = self.autoplay
        return d

    @classmethod
    def from_dict(cls, d) -> "Rules":
        """The rules of ``to_dict()`` or ``header()`` (``"column_order": True`` is ``canonical=True``)."""
        unknown = sorted(set(d) - {"cells", "foundation_return", "autoplay", "canonical", "supermoves", "hand",
                                   "column_order"})
        if unknown:
            raise FreecellError(f"unknown rules: {', '.join(map(str, unknown))}")
        d = dict(d)
        if "column_order" in d:
            if d.pop("column_order") is not True or "canonical" in d:
                raise FreecellError("column_order is true or absent (and not given with canonical)")
            d["canonical"] = True
        return cls(**d)

    def spec(self):
        """The spec's value (solver.spec.Rules); the counting modes have none."""
        if self.counting:
            raise FreecellError("the spec rules have no automatic moves, no column-order counting and no "
                                "supermoves")
        from .spec import Rules as SpecRules        # spec imports typing: not on the start-up path
        if self.hand:
            return SpecRules(cells=self.cells, foundation_return=self.foundation_return, hand=self.hand)
        return SpecRules(cells=self.cells, foundation_return=self.foundation_return)

    def stem(self) -> str:
        """"" for the standard rules, else e.g. "Cells5", "FoundationReturn", "Cells1FoundationReturn";
        "ColumnOrder" at the end up to column order (a certificate up to column order), then "SafeAutoplay" with the
        safe automatic moves."""
        if self.counting and not self.column_order:
            raise FreecellError("certificates and Lean modules need the plain spec rules, fixed columns or up "
                                "to column order (--canonical, also with --autoplay safe; no other --autoplay, no "
                                "--supermoves)")
        return (f"Cells{self.cells}" if self.cells != 4 else "") + \
               ("FoundationReturn" if self.foundation_return else "") + ("Hand1" if self.hand else "") + \
               ("ColumnOrder" if self.column_order else "") + ("SafeAutoplay" if self.autoplay == "safe" else "")


STANDARD = Rules()


def supermove_limit(free_cells: int, empty_columns: int, to_empty: bool = False) -> int:
    """Seed 004's limit on the cards one supermove may carry: (f+1)·2^e, f the empty free cells, e the empty
    columns not counting the destination (``to_empty``: the destination is one of the empty columns)."""
    e = empty_columns - (1 if to_empty else 0)
    if free_cells < 0 or e < 0:
        raise FreecellError("free cells and empty columns are whole numbers (an empty destination needs one)")
    return (free_cells + 1) << e
