"""The thin Python wrapper around the C search core (solver/fc.h, compiled by cffi into ``solver._fc``).

Positions here are the project's plain tuples ``(cols, cells, home)``: ``cols`` 8 tuples of card indices
bottom -> top, ``cells`` a sorted tuple of card indices, ``home`` the 4 foundation heights (C, D, H, S).
P64 is the 64-byte packed form (see solver/fc.h); equal positions have equal P64 bytes.

    from solver import search, deals
    r = search.explore(deals.ms_deal(11982))          # spec rules: 4 cells, no foundation returns
    r.states, r.max_home, r.won, r.complete           # 84767, 2, False, True
    r.records()                                       # the 84,767 positions as P64 bytes, start first

Import cost matters (the CLI's whole ``explore --deal 11982`` process has a budget of 0.08 s): this
module imports only the compiled core and the standard library's ``time``; tqdm is imported only when a
progress bar is asked for.
"""
import time

from ._fc import ffi, lib
from . import packed
from .errors import FreecellError

P64_SIZE = 64
MAX_SUCC = lib.FC_MAX_SUCC

AUTOPLAY = {"none": lib.FC_AUTOPLAY_NONE, "safe": lib.FC_AUTOPLAY_SAFE, "horne": lib.FC_AUTOPLAY_HORNE,
            "twos": lib.FC_AUTOPLAY_TWOS, "all": lib.FC_AUTOPLAY_ALL}
ORDERS = {"bfs": lib.FC_ORDER_BFS, "dfs": lib.FC_ORDER_DFS}
STATUS = {lib.FC_RUNNING: "running", lib.FC_DONE: "done", lib.FC_WON: "won", lib.FC_LIMIT: "limit"}
_ERRORS = {lib.FC_ENOMEM: "out of memory", lib.FC_EBADPOS: "not a valid position",
           lib.FC_EBADRULES: "rules out of range", lib.FC_EENCODE: "internal: position not encodable",
           lib.FC_ERANGE: "index out of range"}

CHUNK = 1 << 16       # states expanded per C call: a progress bar moves, and Ctrl-C is seen, between calls


def _error(code, what=""):
    msg = _ERRORS.get(code, f"error {code}")
    if code == lib.FC_ENOMEM:
        return MemoryError(f"{what}{msg}")
    return FreecellError(f"{what}{msg}")


# --- rules ---------------------------------------------------------------------------------------------

class Rules:
    """The rules value: ``cells`` (0..8, default 4) and ``foundation_return`` (default False) are the spec;
    ``autoplay`` ("none", "safe", "horne", "twos", "all"; True means "safe") and ``canonical`` (dedupe
    positions up to column order) are the second counting mode, off by default."""

    __slots__ = ("cells", "foundation_return", "autoplay", "canonical")

    def __init__(self, cells=4, foundation_return=False, autoplay="none", canonical=False):
        if isinstance(cells, bool) or not isinstance(cells, int) or not 0 <= cells <= 8:
            raise FreecellError(f"cells must be a whole number from 0 to 8, got {cells!r}")
        if autoplay is True:
            autoplay = "safe"
        elif autoplay is False or autoplay is None:
            autoplay = "none"
        if autoplay not in AUTOPLAY:
            raise FreecellError(f"autoplay must be one of {', '.join(AUTOPLAY)}, got {autoplay!r}")
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "foundation_return", bool(foundation_return))
        object.__setattr__(self, "autoplay", autoplay)
        object.__setattr__(self, "canonical", bool(canonical))

    def __setattr__(self, name, value):
        raise AttributeError("Rules is immutable; use _replace")

    def _tuple(self):
        return (self.cells, self.foundation_return, self.autoplay, self.canonical)

    def _replace(self, **kw):
        d = dict(zip(self.__slots__, self._tuple()))
        d.update(kw)
        return Rules(**d)

    def __eq__(self, other):
        return isinstance(other, Rules) and self._tuple() == other._tuple()

    def __hash__(self):
        return hash(self._tuple())

    def __repr__(self):
        return ("Rules(cells=%d, foundation_return=%r, autoplay=%r, canonical=%r)" % self._tuple())

    def to_c(self):
        r = ffi.new("fc_rules *")
        r.cells = self.cells
        r.foundation_return = int(self.foundation_return)
        r.autoplay = AUTOPLAY[self.autoplay]
        r.canonical = int(self.canonical)
        return r


STANDARD = Rules()


def _rules(rules):
    return STANDARD if rules is None else rules


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


pack_p64 = packed.pack      # Position tuple -> the 64-byte P64 record (solver/packed.py)
unpack_p64 = packed.unpack  # P64 record -> Position tuple, foundation heights derived


def p64_check(rec):
    """True when ``rec`` is the P64 form of a valid position (by the C core)."""
    p = ffi.new("fc_pos *")
    return len(rec) == P64_SIZE and lib.fc_p64_to_pos(rec, p) == 0


def autoplay(pos, rules):
    """``pos`` after the rules' automatic moves (itself when rules.autoplay is "none")."""
    p = pos_to_c(pos)
    n = lib.fc_autoplay(p, _rules(rules).to_c())
    if n < 0:
        raise _error(n)
    return pos_from_c(p)


def successors(pos, rules=None):
    """moves(pos) as a list of Position tuples, in the C core's order (see fc.h)."""
    p = pos_to_c(pos)
    out = ffi.new("fc_pos[]", MAX_SUCC)
    n = lib.fc_successors(p, _rules(rules).to_c(), out, MAX_SUCC)
    if n < 0:
        raise _error(n)
    return [pos_from_c(out[i]) for i in range(n)]


def successors_p64(rec, rules=None):
    """moves() of a P64 position, as a list of P64 bytes."""
    if len(rec) != P64_SIZE:
        raise FreecellError(f"a packed position has {P64_SIZE} bytes, got {len(rec)}")
    out = ffi.new("uint8_t[]", MAX_SUCC * P64_SIZE)
    n = lib.fc_successors_p64(rec, _rules(rules).to_c(), out, MAX_SUCC)
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

    def __init__(self, start, rules=None, max_states=None, stop_on_win=True, order="dfs"):
        self.rules = _rules(rules)
        if order not in ORDERS:
            raise FreecellError(f"order must be 'bfs' or 'dfs', got {order!r}")
        if max_states is not None and (isinstance(max_states, bool) or not isinstance(max_states, int)
                                       or max_states < 1):
            raise FreecellError(f"max_states must be a positive whole number, got {max_states!r}")
        self.max_states = max_states
        self.order = order
        err = ffi.new("int *")
        s = lib.fc_search_new(pos_to_c(start), self.rules.to_c(), max_states or 0, int(bool(stop_on_win)),
                              ORDERS[order], err)
        if s == ffi.NULL:
            raise _error(err[0], "cannot start the search: ")
        self._s = ffi.gc(s, lib.fc_search_free)
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

    def records(self):
        """All states as a list of 64-byte P64 records, in discovery order (index 0 = start)."""
        blob = self.export_p64()
        return [blob[i:i + P64_SIZE] for i in range(0, len(blob), P64_SIZE)]

    def parent(self, k):
        """The state whose expansion first found k (None for the start)."""
        p = lib.fc_search_parent(self._h(), k)
        return None if p < 0 else p

    def line_to(self, k):
        """State indices from the start to k, each one move (plus autoplay) from the previous."""
        line = [k]
        while True:
            p = self.parent(line[-1])
            if p is None:
                return line[::-1]
            line.append(p)

    def home_count(self, k):
        return lib.fc_search_home_count(self._h(), k)

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


class ExploreResult:
    """What explore() found. ``states``: distinct positions stored; ``max_home``: most cards on the
    foundations in any of them; ``won``: a won position was reached; ``complete``: every reachable
    position was enumerated (the set is closed under moves); ``status``: "done", "won" or "limit";
    ``seconds``: time in the C core. The search stays available (``records()``, ``search``) until
    ``close()``."""

    def __init__(self, search, status):
        st = search.stats()
        self.search = search
        self.status = status
        self.states = int(st.states)
        self.expanded = int(st.expanded)
        self.generated = int(st.generated)
        self.max_home = int(st.max_home)
        self.won = bool(st.won)
        self.won_index = int(st.won_index) if st.won else None
        self.complete = status == "done"
        self.seconds = search.seconds
        self.rules = search.rules

    @property
    def verdict(self):
        """"winnable", "unwinnable" (complete enumeration, no win) or "unknown"."""
        if self.won:
            return "winnable"
        return "unwinnable" if self.complete else "unknown"

    def records(self):
        return self.search.records()

    def export_p64(self):
        return self.search.export_p64()

    def winning_line(self):
        """Positions from the start to the first won position (None when no win was found)."""
        if self.won_index is None:
            return None
        return [self.search.state(k) for k in self.search.line_to(self.won_index)]

    def close(self):
        self.search.close()

    def __repr__(self):
        return (f"ExploreResult(states={self.states}, max_home={self.max_home}, won={self.won}, "
                f"complete={self.complete}, status={self.status!r}, seconds={self.seconds:.4f})")


def explore(start_pos, rules=None, max_states=None, progress=False, stop_on_win=True, order="dfs"):
    """Enumerate every position reachable from ``start_pos`` under ``rules`` (default: the spec rules).

    Stops at the first won position when ``stop_on_win`` (verdict winnable), or when a new position is
    found while ``max_states`` are already stored (complete=False: verdict unknown). ``progress`` shows a
    tqdm bar on stderr. ``order`` "dfs" (default: finds wins sooner) or "bfs" (shortest lines); the set
    of a complete enumeration is the same either way.

    The C core runs in slices of CHUNK expansions, with or without a bar: Python's Ctrl-C
    (KeyboardInterrupt) is raised between two slices, a few milliseconds after the signal, not at the
    end of a search that may take minutes.
    """
    s = Search(start_pos, rules, max_states=max_states, stop_on_win=stop_on_win, order=order)
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=max_states, unit=" states", unit_scale=True, desc="explore", leave=False,
                   mininterval=0.2)
    try:
        done = 0
        while True:
            status = s.run(CHUNK)
            if bar is not None:
                n = len(s)
                bar.update(n - done)
                done = n
            if status != "running":
                break
    finally:
        if bar is not None:
            bar.close()
    return ExploreResult(s, status)
