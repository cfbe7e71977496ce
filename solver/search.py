"""The binding: the one module that talks to the C core (solver/fc.h, compiled by cffi into ``solver._fc``).
Everything else in the project calls the functions here; the constants come from the header (``lib.FC_*``).

Positions here are the project's plain tuples ``(cols, cells, home)``: ``cols`` 8 tuples of card indices
bottom -> top, ``cells`` a sorted tuple of card indices, ``home`` the 4 foundation heights (C, D, H, S).
P64 is the 64-byte packed form (see solver/fc.h and solver/packed.py); equal positions have equal P64
bytes. Rules are :class:`solver.rules.Rules` values.

    from solver import search, deals
    r = search.explore(deals.ms_deal(11982))          # spec rules: 4 cells, no foundation returns
    r.states, r.max_home, r.won, r.complete           # 84767, 2, False, True
    r.records()                                       # the 84,767 positions as P64 bytes, start first

Import cost matters (the CLI's whole ``explore --deal 11982`` process has a budget of 0.08 s): this
module imports only the compiled core and the standard library's ``time`` and ``collections``; ``threading``
comes with the solver's calls, tqdm with a progress bar.
"""
import time
from collections import namedtuple

from .errors import FreecellError
from .progress import bar
from .rules import AUTOPLAY as AUTOPLAY_NAMES, STANDARD

try:
    from ._fc import ffi, lib
except ImportError as exc:      # the .so is built by `make setup` (pip install -e .)
    raise FreecellError(f"the C search core is not built ({exc}); run 'make setup'") from None

P64_SIZE = lib.FC_P64_SIZE
MAX_CELLS = lib.FC_MAX_CELLS
MAX_SUCC = lib.FC_MAX_SUCC
SORTED_MAX = lib.FC_SORTED_MAX  # up to this many states, sorted_batches decodes the records once, in 64 bytes each
MAX_LINE = lib.FC_MAX_LINE      # longest line of move codes the solver writes
CELL = lib.FC_TO_CELL           # a move's destination: the free cells (also a source, in solver.lines)
HOME = lib.FC_TO_HOME           # a move's destination: the card's foundation

AUTOPLAY = {name: getattr(lib, "FC_AUTOPLAY_" + name.upper()) for name in AUTOPLAY_NAMES}
ORDERS = {"bfs": lib.FC_ORDER_BFS, "dfs": lib.FC_ORDER_DFS}
STATUS = {lib.FC_RUNNING: "running", lib.FC_DONE: "done", lib.FC_WON: "won", lib.FC_LIMIT: "limit"}
_ERRORS = {lib.FC_ENOMEM: "out of memory", lib.FC_EBADPOS: "not a valid position",
           lib.FC_EBADRULES: "rules out of range", lib.FC_EENCODE: "internal: position not encodable",
           lib.FC_ERANGE: "index out of range", lib.FC_EILLEGAL: "an illegal move"}

CHUNK = 1 << 16                 # states expanded per C call: a bar moves, and Ctrl-C is seen, between calls


def _error(code, what=""):
    msg = _ERRORS.get(code, f"error {code}")
    if code == lib.FC_ENOMEM:
        return MemoryError(f"{what}{msg}")
    return FreecellError(f"{what}{msg}")


def _rules_c(rules):
    """The ``fc_rules *`` of a Rules value (None: the spec's standard rules)."""
    rules = STANDARD if rules is None else rules
    r = ffi.new("fc_rules *")
    r.cells = rules.cells
    r.foundation_return = int(rules.foundation_return)
    r.autoplay = AUTOPLAY[rules.autoplay]
    r.canonical = int(rules.canonical)
    r.supermoves = int(rules.supermoves)
    r.hand = int(rules.hand)
    return r


# --- positions -----------------------------------------------------------------------------------------

def pos_to_c(pos):
    """The plain Position tuple as a new ``fc_pos *`` (checked by the C core)."""
    cols, cells, home = pos
    if len(cols) != 8 or len(home) != 4 or len(cells) > 8:
        raise FreecellError("a position has 8 columns, at most 8 free cells and 4 foundations")
    p = ffi.new("fc_pos *")
    try:
        for i, col in enumerate(cols):
            if len(col) > 52:
                raise FreecellError(f"column {i + 1} has more than 52 cards")
            p.len[i] = len(col)
            p.col[i][0:len(col)] = list(col)
        cs = sorted(cells)
        p.ncells = len(cs)
        p.cells[0:len(cs)] = cs
        p.home = list(home)
    except (OverflowError, TypeError):
        raise FreecellError("not a valid position (card indices are 0..51, heights 0..13)") from None
    if lib.fc_pos_check(p, 8):
        raise FreecellError("not a valid position (each card must be in exactly one place)")
    return p


def pos_from_c(p):
    """The plain Position tuple of an ``fc_pos`` (pointer or struct)."""
    cols = tuple(tuple(p.col[i][0:p.len[i]]) for i in range(8))
    return cols, tuple(p.cells[0:p.ncells]), tuple(p.home)


def autoplay(pos, rules):
    """``pos`` after the rules' automatic moves (itself when rules.autoplay is "none")."""
    p = pos_to_c(pos)
    n = lib.fc_autoplay(p, _rules_c(rules))
    if n < 0:
        raise _error(n)
    return pos_from_c(p)


def successors(pos, rules=None):
    """moves(pos) as a list of Position tuples, in the C core's order (see fc.h)."""
    p = pos_to_c(pos)
    out = ffi.new("fc_pos[]", MAX_SUCC)
    n = lib.fc_successors(p, _rules_c(rules), out, MAX_SUCC)
    if n < 0:
        raise _error(n)
    return [pos_from_c(out[i]) for i in range(n)]


def successors_p64(rec, rules=None):
    """moves() of a P64 position, as a list of P64 bytes."""
    if len(rec) != P64_SIZE:
        raise FreecellError(f"a packed position has {P64_SIZE} bytes, got {len(rec)}")
    out = ffi.new("uint8_t[]", MAX_SUCC * P64_SIZE)
    n = lib.fc_successors_p64(rec, _rules_c(rules), out, MAX_SUCC)
    if n < 0:
        raise _error(n)
    buf = ffi.buffer(out, n * P64_SIZE)[:]
    return [buf[i:i + P64_SIZE] for i in range(0, len(buf), P64_SIZE)]


# --- the search ----------------------------------------------------------------------------------------

class Search:
    """One enumeration owned by the C core: created, then ``run`` (in chunks if you like), then read.

    States are numbered in discovery order, 0 being the start (after autoplay if the rules have it).
    The C memory is released by ``close()`` or when the object is garbage-collected.
    """

    def __init__(self, start, rules=None, max_states=None, stop_on_win=True, order="dfs", compact_at=None):
        """``compact_at``: the positions held in 40-byte keys before the store packs them into 16 bytes
        (lib.FC_COMPACT_AT by default; 0 packs at once: the tests of the compact store on small sets)."""
        self.rules = STANDARD if rules is None else rules
        if order not in ORDERS:
            raise FreecellError(f"order must be 'bfs' or 'dfs', got {order!r}")
        if max_states is not None and (isinstance(max_states, bool) or not isinstance(max_states, int)
                                       or max_states < 1):
            raise FreecellError(f"max_states must be a positive whole number, got {max_states!r}")
        self.max_states = max_states
        self.order = order
        err = ffi.new("int *")
        s = lib.fc_search_new(pos_to_c(start), _rules_c(self.rules), max_states or 0, int(bool(stop_on_win)),
                              ORDERS[order], err)
        if s == ffi.NULL:
            raise _error(err[0], "cannot start the search: ")
        self._s = ffi.gc(s, lib.fc_search_free)
        if compact_at is not None:
            lib.fc_search_compact_at(s, compact_at)
        self.seconds = 0.0

    def close(self):
        """Release the C memory now (the object is unusable afterwards)."""
        if self._s is not None:
            ffi.release(self._s)
            self._s = None

    def _h(self):
        if self._s is None:
            raise ValueError("this search was closed")
        return self._s

    def run(self, max_expand=0):
        """Expand up to max_expand more states (0: to the end). Returns the status: "running", "done",
        "won" or "limit"."""
        t = time.perf_counter()
        st = lib.fc_search_run(self._h(), max_expand)
        self.seconds += time.perf_counter() - t
        if st < 0:
            raise _error(st, "search stopped: ")
        return STATUS[st]

    def stats(self):
        st = ffi.new("fc_stats *")
        lib.fc_search_stats(self._h(), st)
        return st

    def __len__(self):
        return lib.fc_search_count(self._h())

    def p64(self, k):
        """State k as P64 bytes."""
        out = ffi.new("uint8_t[64]")
        if lib.fc_search_get_p64(self._h(), k, out):
            raise IndexError(k)
        return ffi.buffer(out, P64_SIZE)[:]

    def state(self, k):
        """State k as a Position tuple."""
        out = ffi.new("fc_pos *")
        if lib.fc_search_get_pos(self._h(), k, out):
            raise IndexError(k)
        return pos_from_c(out)

    def export_p64(self, first=0, count=None):
        """States first.. (all by default) as one bytes object of count*64 bytes, in discovery order."""
        n = len(self)
        first = min(max(first, 0), n)
        count = n - first if count is None else max(0, min(count, n - first))
        if count == 0:
            return b""
        out = ffi.new("uint8_t[]", count * P64_SIZE)
        got = lib.fc_search_export_p64(self._h(), first, count, out)
        return ffi.buffer(out, got * P64_SIZE)[:]

    def export_p64_into(self, first, out):
        """States first.. into ``out`` (a writable buffer), as many whole records as it holds: their count."""
        n = max(0, min(len(out) // P64_SIZE, len(self) - first))
        return lib.fc_search_export_p64(self._h(), first, n, ffi.from_buffer(out)) if n else 0

    def records(self):
        """All states as a list of 64-byte P64 records, in discovery order (index 0 = start)."""
        blob = self.export_p64()
        return [blob[i:i + P64_SIZE] for i in range(0, len(blob), P64_SIZE)]

    def parent(self, k):
        """The state whose expansion first found k (None for the start)."""
        p = lib.fc_search_parent(self._h(), k)
        return None if p < 0 else p

    def moves_to(self, k):
        """The line from the start (as given, before its autoplay) to state k, as single-card move codes
        (card | dest << 8) in the plain rules (fc_search_moves)."""
        cap, buf = MAX_LINE, _line_buffer()
        while True:
            n = lib.fc_search_moves(self._h(), k, buf, cap)
            # A depth-first search's line may be longer than MAX_LINE: a bigger buffer (a step is at most
            # one move and 52 automatic ones).
            if n != lib.FC_ERANGE or not 0 <= k < len(self) or cap >= 53 * (len(self) + 1):
                break
            cap = min(4 * cap, 53 * (len(self) + 1))
            buf = ffi.new("uint16_t[]", cap)
        if n < 0:
            raise _error(n, "cannot read the line: ")
        return list(ffi.unpack(buf, n))

    def line_to(self, k):
        """State indices from the start to k, each one move (plus autoplay) from the previous (the chain of
        parents, read in one pass: fc_search_path)."""
        n = lib.fc_search_path(self._h(), k, ffi.NULL, 0)
        if n < 0:
            raise _error(n, "cannot read the line: ")
        out = ffi.new("uint64_t[]", n)
        lib.fc_search_path(self._h(), k, out, n)
        return list(out)

    def sorted_batches(self, size):
        """Every state's P64 record in the order of the records, as bytes of up to ``size`` records at a time
        (a record may repeat in a counting mode: the caller drops repeats). Up to SORTED_MAX states the
        records are decoded once and sorted in a buffer (fc_search_sort_records); above, the states are
        ordered (fc_search_sort_p64) and decoded again in that order, in less memory."""
        n = len(self)
        order = ffi.new("uint32_t[]", max(n, 1))
        recs = ffi.new("uint8_t[]", max(n, 1) * P64_SIZE) if n <= SORTED_MAX else None
        if (lib.fc_search_sort_records(self._h(), recs, order) if recs is not None else
                lib.fc_search_sort_p64(self._h(), order)) != 0:
            raise MemoryError("cannot sort the positions: out of memory")
        out = ffi.new("uint8_t[]", size * P64_SIZE)
        for first in range(0, n, size):
            m = min(size, n - first)
            if recs is not None:
                lib.fc_p64_gather(recs, order + first, m, out)
            else:
                lib.fc_search_export_p64_at(self._h(), order + first, m, out)
            yield ffi.buffer(out, m * P64_SIZE)[:]

    def successors_p64(self, k):
        """Successors of state k as the search generates them (P64 list)."""
        out = ffi.new("uint8_t[]", MAX_SUCC * P64_SIZE)
        n = lib.fc_search_successors_p64(self._h(), k, out, MAX_SUCC)
        if n < 0:
            raise _error(n)
        buf = ffi.buffer(out, n * P64_SIZE)[:]
        return [buf[i:i + P64_SIZE] for i in range(0, len(buf), P64_SIZE)]

    def find_p64(self, rec):
        """Index of the P64 position among the states, or None."""
        if len(rec) != P64_SIZE:
            return None
        k = lib.fc_search_find_p64(self._h(), rec)
        return None if k < 0 else k

    def memory(self):
        """Bytes the C core holds for this search."""
        return lib.fc_search_memory(self._h())

    def overflow(self):
        """States that do not pack into the 16-byte compact key (kept in the 40-byte form)."""
        return lib.fc_search_overflow(self._h())


class Found:
    """What an enumeration found (the C core's word: the verdict is solver.solve.judge's), in memory or on
    disk (solver.disksearch). ``states``: distinct positions stored; ``max_home``: most cards on the
    foundations in any of them; ``won``: a won position was reached; ``complete``: every reachable
    position was enumerated (the set is closed under moves); ``status``: "done", "won" or "limit";
    ``seconds``: time in the C core. The search stays available (``search``) until ``close()``."""

    def __init__(self, search, status):
        st = search.stats()
        self.search = search
        self.status = status
        self.states = int(st.states)
        self.expanded = int(st.expanded)
        self.generated = int(st.generated)
        self.max_home = int(st.max_home)
        self.won = bool(st.won)
        self.complete = status == "done"
        self.seconds = search.seconds
        self.rules = search.rules
        self._stats(st)

    def _stats(self, st):
        """The figures only one kind of search has."""

    def close(self):
        self.search.close()


class ExploreResult(Found):
    """What explore() found (see Found); the states are readable (``records()``) until ``close()``."""

    def _stats(self, st):
        self.won_index = int(st.won_index) if st.won else None

    def records(self):
        return self.search.records()

    def export_p64(self):
        return self.search.export_p64()

    def winning_line(self):
        """Positions from the start to the first won position (None when no win was found)."""
        if self.won_index is None:
            return None
        return [self.search.state(k) for k in self.search.line_to(self.won_index)]

    def __repr__(self):
        return (f"ExploreResult(states={self.states}, max_home={self.max_home}, won={self.won}, "
                f"complete={self.complete}, status={self.status!r}, seconds={self.seconds:.4f})")


def explore(start_pos, rules=None, max_states=None, progress=False, stop_on_win=True, order="dfs", compact_at=None):
    """Enumerate every position reachable from ``start_pos`` under ``rules`` (default: the spec rules).

    Stops at the first won position when ``stop_on_win`` (verdict winnable), or when a new position is
    found while ``max_states`` are already stored (complete=False: verdict unknown). ``progress`` shows a
    tqdm bar on stderr. ``order`` "dfs" (default: finds wins sooner) or "bfs" (shortest lines); the set
    of a complete enumeration is the same either way. ``compact_at``: as :class:`Search`'s (the same states
    and order whatever it is).

    The C core runs in slices of CHUNK expansions, with or without a bar: Python's Ctrl-C
    (KeyboardInterrupt) is raised between two slices, a few milliseconds after the signal, not at the
    end of a search that may take minutes.
    """
    s = Search(start_pos, rules, max_states=max_states, stop_on_win=stop_on_win, order=order, compact_at=compact_at)
    with bar(progress, total=max_states, unit=" states", unit_scale=True, desc="explore") as b:
        done = 0
        while True:
            status = s.run(CHUNK)
            n = len(s)
            b.update(n - done)
            done = n
            if status != "running":
                return ExploreResult(s, status)


# --- the solver: a winning line as move codes (fc_solve, fc_shorten) -------------------------------------

_LINE_BUFFER = []


def _line_buffer():
    """One ``uint16_t[MAX_LINE]`` for every line the core writes (allocated on first use)."""
    if not _LINE_BUFFER:
        _LINE_BUFFER.append(ffi.new("uint16_t[]", MAX_LINE))
    return _LINE_BUFFER[0]


def _interruptible(call, args, poll=0.05, cancel=None, wait=60.0):
    """``call(*args)`` -- one blocking C call that does not look for signals (fc_solve: minutes with the deep
    portfolio) -- in a daemon thread, the calling thread waiting for it in slices of ``poll`` seconds, so that
    Ctrl-C and SIGTERM (raised in the main thread) stop the command at once instead of after the search (77 s
    on a hard deal). The abandoned call runs on in its thread until it returns or the process ends
    (the commands end right after); its arguments stay referenced by the thread. When no thread can start (no
    memory left: a pool's worker under a tight ``ulimit -v``), the call is made in this thread, a signal
    then waiting for it. ``cancel``: a function that makes the call return soon (a step of the disk search's
    sort: fc_ddd_cancel), called when the wait is interrupted; then the call is waited for (up to ``wait``
    seconds, further signals ignored: its memory is freed after) before the interruption goes on. Returns
    the call's value."""
    import threading        # here, not at the top: explore (a search in slices) never needs a thread
    if threading.current_thread() is not threading.main_thread():
        return call(*args)
    out, done = [], threading.Event()     # not Thread.join: a join interrupted by a signal marks the thread ended

    def run():
        try:
            out.append((True, call(*args)))
        except BaseException as e:      # handed to the caller (cffi raises on a bad argument)
            out.append((False, e))
        finally:
            done.set()
    t = threading.Thread(target=run, daemon=True, name="fc_solve")
    try:
        t.start()
    except RuntimeError:            # no thread left (memory, a pool's worker): the call in this thread
        return call(*args)
    try:
        while not done.wait(poll):
            pass
    except BaseException:
        if cancel is not None:
            cancel()
            end = time.monotonic() + wait
            while time.monotonic() < end:
                try:
                    if done.wait(poll):
                        break
                except BaseException:       # a second Ctrl-C: the call is about to return
                    pass
        raise
    ok, value = out[0]
    if not ok:
        raise value
    return value


def solve_line(position, rules, max_states=0, shorten=0, stages=None):
    """fc_solve under ``rules`` (the solver's speed-ups are the counting mode, e.g. safe autoplay and
    canonical). ``stages``: a portfolio of :class:`Stage` instead of the built-in one (solve.c: PORTFOLIO), e.g.
    solver.solve.DEEP. Returns (status, codes or None, states, expanded, found_len); status "won", "done"
    (the last stage's space ran out: not a proof) or "limit"."""
    res = ffi.new("fc_solve_result *")
    buf = ffi.new("uint16_t[]", MAX_LINE)       # its own: a search left running after Ctrl-C may still write
    args = (pos_to_c(position), _rules_c(rules), _solve_opts(max_states, shorten, stages), buf, MAX_LINE, res)
    n = _interruptible(lib.fc_solve, args)
    if n < 0:
        raise _error(n, "the solver stopped: ")
    st = res.status
    if st == lib.FC_WON:
        return "won", list(ffi.unpack(buf, n)), res.states, res.expanded, res.found_len
    if st not in (lib.FC_DONE, lib.FC_LIMIT):
        raise _error(st, "the solver stopped: ")
    return STATUS[st], None, res.states, res.expanded, 0


class Stage(namedtuple("Stage", "prune states weights")):
    """One stage of the solver's portfolio (fc.h, fc_solve_opts): ``prune`` the FC_PRUNE_* flags (0: none),
    ``states`` the positions it may store (0: the solve's max_states; never more), ``weights`` its
    FC_NWEIGHTS heuristic weights (best.c: score, heap_push; index 10 seeds the tie-breaking)."""
    __slots__ = ()


_WEIGHT_BASES = {"d": lib.FC_WEIGHTS_D, "d2": lib.FC_WEIGHTS_D2, "cells": lib.FC_WEIGHTS_CELLS,
                 "greedy": lib.FC_WEIGHTS_GREEDY}


def weights(base, seed):
    """A Stage's weights as the C core makes its built-in portfolio's (fc_weights: solve.c's W_D, W_D2, W_CELLS,
    W_GREEDY): ``base`` "d" (the plain weights), "d2" (the depth counting less), "cells" (the free cells and
    columns stressed) or "greedy" (the depth ignored), randomised with the tie-breaking seed ``seed``."""
    w = ffi.new("int[]", lib.FC_NWEIGHTS)
    if base not in _WEIGHT_BASES or lib.fc_weights(_WEIGHT_BASES[base], seed, w) < 0:
        raise ValueError(f"no such solver weights: {base!r}")
    return tuple(w)


def _solve_opts(max_states, shorten, stages=None):
    opts = ffi.new("fc_solve_opts *")
    opts.max_states = max_states or 0
    opts.shorten = shorten
    opts.supermoves = 1
    if stages:
        if len(stages) > lib.FC_MAX_STAGES:
            raise FreecellError(f"at most {lib.FC_MAX_STAGES} solver stages, got {len(stages)}")
        opts.nstages = len(stages)
        for i, st in enumerate(stages):
            if len(st.weights) != lib.FC_NWEIGHTS:
                raise FreecellError(f"a solver stage has {lib.FC_NWEIGHTS} weights, got {len(st.weights)}")
            opts.stage_prune[i] = st.prune
            opts.stage_states[i] = st.states
            for j, w in enumerate(st.weights):
                opts.stage_weights[i][j] = w
    return opts


def deal(n):
    """The start Position of deal ``n`` as the C core deals it (fc_deal; solver.deals.ms_deal is the
    Python twin, and the tests hold them equal)."""
    p = ffi.new("fc_pos *")
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 8589934591 or lib.fc_deal(n, p):
        raise FreecellError(f"deal must be a whole number from 1 to 8589934591, got {n!r}")
    return pos_from_c(p)


class DealBatch:
    """What fc_solve_deals wrote for deals ``first`` .. ``first + count - 1`` (C arrays, read in place):
    ``status[i]`` (lib.FC_WON, FC_DONE, FC_LIMIT), ``states[i]``, ``length[i]`` (-1 without a line),
    ``offset[i]`` (the line's first code in ``moves``), ``seconds[i]`` (CPU time). Nothing here is
    trusted: the lines are replayed by the caller."""

    def __init__(self, first, count, status, length, states, offset, seconds, moves):
        self.first, self.count = first, count
        self.status, self.length, self.states = status, length, states
        self.offset, self.seconds, self.moves = offset, seconds, moves

    def line(self, i):
        """The move codes of deal first + i (an empty list without a line)."""
        n = self.length[i]
        return list(ffi.unpack(self.moves + self.offset[i], n)) if n > 0 else []


BATCH_LINE = 200                # move codes a deal's line takes in the batch buffer, on average at most


def solve_deals(first, count, rules, max_states=0, shorten=0):
    """fc_solve on deals first .. first+count-1 in one C call (the deals dealt in C, the solver's memory
    kept from deal to deal), under ``rules`` with the solver's speed-ups (as :func:`solve_line`). Returns a
    :class:`DealBatch` of the deals done: all of them, or fewer when the line buffer filled up (call again
    for the rest)."""
    cap = BATCH_LINE * count + MAX_LINE
    status, length = ffi.new("int32_t[]", count), ffi.new("int32_t[]", count)
    states, offset = ffi.new("uint64_t[]", count), ffi.new("uint64_t[]", count)
    seconds, moves = ffi.new("double[]", count), ffi.new("uint16_t[]", cap)
    n = lib.fc_solve_deals(first, count, _rules_c(rules), _solve_opts(max_states, shorten), status, length,
                           states, offset, seconds, moves, cap)
    if n < 0:
        raise _error(n, "the solver stopped: ")
    return DealBatch(first, n, status, length, states, offset, seconds, moves)


def shorten_line(position, codes, rules, level):
    """fc_shorten on a line of codes (plain rules), repeated until nothing changes."""
    p = pos_to_c(position)
    buf = _line_buffer()
    while True:
        inp = ffi.new("uint16_t[]", codes) if codes else ffi.new("uint16_t[]", 1)
        n = lib.fc_shorten(p, _rules_c(rules), inp, len(codes), level, buf, MAX_LINE)
        if n < 0:
            raise _error(n, "shortening failed: ")
        new = list(ffi.unpack(buf, n))
        if len(new) >= len(codes):
            return new if len(new) == len(codes) else codes
        codes = new
