"""The enumeration past memory: delayed duplicate detection on disk (fc_ddd in solver/fc.c).

When the positions would not fit in the memory the user gives (``--memory 16G``), the reachable set is
found breadth first by layers, the visited positions kept as sorted files of 16-byte keys in a temporary
folder (``--tmp DIR``): each layer's successors are sorted in a buffer of that size, written as runs,
merged and subtracted from every earlier layer (Korf's external-memory search; Freecell Solver's
``depth_dbm_fc_solver``). The files are compressed (each key as its difference from the one before, through
zlib: about a byte a position; fc.c, "The files"): ``disk`` and ``disk_peak`` are their real bytes. The
set is the in-memory enumeration's (84,767 positions for #11982).

    r = explore_within(deals.ms_deal(11982), STANDARD, memory=1 << 20, tmp=None)
    r.states, r.complete, r.disk        # 84767, True, True (the in-memory store would need about 2 MB)
    ...                                 # a certificate: certgen.certificate.write_search(..., r.search, ...)
    r.close()                           # the temporary folder is removed (also on errors and Ctrl-C)

The verdict is the house rule's (solver.lines.judge): a won position found gives the line read back
through the layer files, replayed against the spec.
"""
import errno
import os
import shutil
import signal
import tempfile
import threading
import time

from . import packed
from .errors import FreecellError
from .progress import bar
from .search import CHUNK, P64_SIZE, STATUS, Found, _error, _rules_c, explore, ffi, lib, pos_to_c

# The in-memory store's bytes a position (23.2 measured at 2.95 M, 23.7 at 100 M; scripts/bench.py --store):
# --memory M enumerates in memory up to M / 24 positions, then on disk.
BYTES_PER_STATE = 24
MIN_MEMORY = 1 << 16            # the disk search's smallest buffer (fc_ddd_new)
IN_MEMORY_MAX = 2 ** 31 - 1     # the in-memory store numbers its positions with 31 bits (MAX_STATES_CAP in fc.c)


def _size(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000


def _term_as_interrupt():
    """From now on (in the main thread), SIGTERM raises KeyboardInterrupt: the Ctrl-C path, which removes
    the search's files. Returns the handler it replaced (None outside the main thread), for
    :func:`_restore_term`."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_interrupt)


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _restore_term(old):
    if old is not None:
        signal.signal(signal.SIGTERM, old)


class DiskSearch:
    """One disk search owned by the C core and its temporary folder (removed by ``close``). While the
    folder exists -- the search, the sort, the certificate streamed from it -- a SIGTERM (``timeout``,
    ``kill``, a batch scheduler) stops it like Ctrl-C, so its files are removed (SIGKILL cannot be)."""

    def __init__(self, start, rules, memory, tmp=None, max_states=None, stop_on_win=True, key_bits=0):
        """key_bits: 0, or fewer bits than the 16-byte key's 127 for tests (more positions then go to the
        overflow set, kept whole in memory)."""
        self.start, self.rules, self.dir, self._term, self._d = start, rules, None, None, None
        if tmp is not None and not os.path.isdir(tmp):
            raise FreecellError(f"--tmp {tmp}: " + ("not a folder" if os.path.exists(tmp) else "no such folder"))
        self._term = _term_as_interrupt()
        try:
            self.dir = tempfile.mkdtemp(prefix="freecell-disk-", dir=tmp)
        except OSError as e:
            self.close()
            raise FreecellError(f"--tmp {tmp or tempfile.gettempdir()}: cannot make a temporary folder there "
                                f"({e.strerror or e})") from None
        err = ffi.new("int *")
        try:
            d = lib.fc_ddd_new(pos_to_c(start), _rules_c(rules), self.dir.encode(), memory, max_states or 0,
                               int(bool(stop_on_win)), key_bits, err)
        except BaseException:           # e.g. a size the core's types cannot hold: no folder left behind
            self.close()
            raise
        if d == ffi.NULL:
            folder = self.dir
            self.close()
            if err[0] == lib.FC_EIO:
                raise FreecellError(f"cannot write in the temporary folder {folder}")
            if err[0] == lib.FC_EBADRULES:
                raise FreecellError("the disk search does not take these rules (--hand)")
            raise _error(err[0], "cannot start the disk search: ")
        self._d = d
        self.seconds = 0.0

    def close(self):
        """Remove every file and the temporary folder; release the C memory."""
        if self._d is not None:
            lib.fc_ddd_free(self._d)
            self._d = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        _restore_term(self._term)
        self._term = None

    def stats(self):
        st = ffi.new("fc_ddd_info *")
        lib.fc_ddd_stats(self._d, st)
        return st

    def __len__(self):
        return int(self.stats().states)

    def _failed(self, st, sorting=False):
        if st.status == lib.FC_EIO:
            why = "no space left on the device (disk full)" if st.sys_errno == errno.ENOSPC \
                else os.strerror(st.sys_errno)
            if sorting:                    # after FC_DONE: the enumeration was complete, the sort failed
                return FreecellError(f"the disk search enumerated all {st.states:,} positions, but sorting them "
                                     f"for the certificate failed: {self.dir}: {why} (no certificate written; "
                                     f"its files were removed)")
            return FreecellError(f"the disk search stopped after {st.states:,} positions: {self.dir}: {why} "
                                 f"(nothing is claimed: the verdict is unknown; its files were removed)")
        if st.status == lib.FC_EOVERFLOW:
            return FreecellError(f"the disk search stopped after {st.states:,} positions: {st.overflow:,} of them "
                                 f"do not pack into 16 bytes and their set in memory would pass its limit of "
                                 f"{_size(st.overflow_limit)} (a quarter of --memory, at least 1 MB; nothing is claimed: the "
                                 f"verdict is unknown)")
        return _error(st.status, "the disk search stopped: ")

    def run(self, progress=False):
        """Run to the end: "done", "won" or "limit" (an error: one FreecellError line)."""
        with bar(progress, unit=" positions", unit_scale=True, desc="explore on disk") as b:
            done = 0
            while True:
                t = time.perf_counter()
                status = lib.fc_ddd_run(self._d, CHUNK)
                self.seconds += time.perf_counter() - t
                st = self.stats()
                b.update(st.states - done)
                done = st.states
                if progress:
                    over = f", {st.overflow:,} over 16 B ({_size(st.overflow_memory)})" if st.overflow else ""
                    b.set_postfix_str(f"layer {st.layer:,}, disk {_size(st.disk)}{over}", refresh=False)
                if status < 0:
                    raise self._failed(st)
                if status != lib.FC_RUNNING:
                    return STATUS[status]

    def line(self):
        """The positions (P64) from the start to the won one, read back through the layer files; None when
        the older layers were merged into one file (their depths are gone)."""
        n = lib.fc_ddd_line(self._d, ffi.NULL, 0)
        if n == lib.FC_ERANGE:
            return None
        if n < 0:
            raise _error(n, "cannot read the line back: ")
        out = ffi.new("uint8_t[]", n * P64_SIZE)
        got = lib.fc_ddd_line(self._d, out, n)
        if got != n:
            raise _error(got if got < 0 else lib.FC_ERANGE, "cannot read the line back: ")
        blob = ffi.buffer(out, n * P64_SIZE)[:]
        return [blob[i:i + P64_SIZE] for i in range(0, len(blob), P64_SIZE)]

    def sorted_batches(self, size):
        """Every position's P64 record in ascending order, ``size`` records at a time (external sort)."""
        e = lib.fc_ddd_sort_p64(self._d)
        if e < 0:
            raise self._failed(self.stats(), sorting=True) if e == lib.FC_EIO else _error(e, "cannot sort the positions: ")
        out = ffi.new("uint8_t[]", size * P64_SIZE)
        while True:
            m = lib.fc_ddd_next_p64(self._d, out, size)
            if m == 0:
                st = self.stats()
                if st.status < 0:
                    raise self._failed(st, sorting=True)
                return
            yield ffi.buffer(out, m * P64_SIZE)[:]


class DiskResult(Found):
    """What the disk search found, read like solver.search.ExploreResult (see Found), with its figures:
    layers, runs (sorted runs written), disk_peak (bytes of files at most), overflow and overflow_bytes (the
    positions kept whole in memory, as they do not pack into the 16-byte key, and their bytes)."""
    disk = True

    def _stats(self, st):
        self.layers = int(st.layer) + (0 if self.complete else 1)
        self.runs = int(st.runs)
        self.disk_peak = int(st.disk_peak)
        self.overflow = int(st.overflow)                  # positions kept whole (over the 16-byte key)
        self.overflow_bytes = int(st.overflow_memory)

    def winning_line(self):
        """Positions from the start to a won one: read back through the layer files, or (when the older
        layers were merged) the solver's line (solver.solve, verified there) replayed; None without a win
        or when the solver finds none."""
        if not self.won:
            return None
        recs = self.search.line()
        if recs is not None:
            return [packed.unpack(rec) for rec in recs]
        from .lines import apply_move
        from .solve import solve         # solve imports the search machinery: only for a win past the layers
        r = solve(self.search.start, self.rules)
        if r.verdict != "winnable":
            return None
        line = [self.search.start]
        for mv in r.moves:
            line.append(apply_move(line[-1], mv, self.rules))
        return line


def explore_disk(start, rules, memory, tmp=None, max_states=None, progress=False, stop_on_win=True, key_bits=0):
    """The disk search from ``start`` to its end (see the module's docstring). Its folder is removed when
    it fails or is interrupted; on success by the result's ``close()``."""
    s = DiskSearch(start, rules, memory, tmp, max_states, stop_on_win, key_bits)
    try:
        return DiskResult(s, s.run(progress))
    except BaseException:
        s.close()
        raise


def explore_within(start, rules, memory, tmp=None, max_states=None, progress=False, stop_on_win=True,
                   on_disk=False):
    """The enumeration in ``memory`` bytes: in memory (solver.search.explore) while the positions fit in
    it (memory / BYTES_PER_STATE of them, at most IN_MEMORY_MAX), else again from the start on disk
    (explore_disk); ``on_disk``: on disk at once (a set known not to fit). The result (an ExploreResult or a DiskResult) is closed by
    the caller."""
    if on_disk:
        return explore_disk(start, rules, memory, tmp, max_states, progress, stop_on_win)
    fits = min(memory // BYTES_PER_STATE, IN_MEMORY_MAX)
    if max_states is not None and max_states <= fits:
        return explore(start, rules, max_states=max_states, progress=progress, stop_on_win=stop_on_win)
    r = explore(start, rules, max_states=max(fits, 1), progress=progress, stop_on_win=stop_on_win)
    if r.status != "limit":
        return r
    r.close()
    return explore_disk(start, rules, memory, tmp, max_states, progress, stop_on_win)
