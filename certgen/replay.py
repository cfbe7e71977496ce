"""The independent replay of the survey's winning lines: checker/fccheck.c's library mode (``certgen._fcreplay``).

The search core (solver/*.c) finds a line for each deal of a batch (solver.search.solve_deals); before a
deal counts as winnable its line is replayed here by code that shares nothing with the search: the
checker's own dealer (msDeal, read by its record parser) and its own move rules, written from
lean/FreeCell/Spec.lean (``can_home``, ``stacks_on``, the sources and destinations its ``moves`` allows),
played on a table of the columns' cards (``fcc_replay``). A line is accepted only when every move is
legal and the last position is won.

    from certgen import replay
    replay.line(1, codes)                  # 0: replays to a won position; k: move k is illegal;
                                           # len(codes) + 1: legal, but the end is not won
"""
from solver.errors import FreecellError

try:
    from ._fcreplay import ffi, lib
except ImportError as exc:      # built by `make setup` (pip install -e .), next to the search core
    raise FreecellError(f"the checker's replay is not built ({exc}); run 'make setup'") from None


def line(deal, codes, cells=4, foundation_return=False):
    """fcc_replay: 0 when ``codes`` (move codes, solver/fc.h) replay from deal ``deal`` to a won position,
    k when move k is not legal, len(codes) + 1 when the last position is not won."""
    buf = ffi.new("uint16_t[]", list(codes) or [0])
    r = lib.fcc_replay(deal, cells, int(bool(foundation_return)), buf, len(codes))
    if r < 0:
        raise FreecellError(f"cannot replay deal {deal} with {cells} free cells")
    return r


def batch(b, cells=4, foundation_return=False):
    """fcc_replay on every line of a solver.search.DealBatch ``b``: a list, one answer a deal (-1 for a deal
    without a line)."""
    out = ffi.new("int32_t[]", max(1, b.count))
    lib.fcc_replay_deals(b.first, b.count, cells, int(bool(foundation_return)), b.length, b.offset, b.moves, out)
    return ffi.unpack(out, b.count)
