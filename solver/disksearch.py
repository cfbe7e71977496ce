"""The enumeration past memory: delayed duplicate detection on disk (fc_ddd in solver/ddd_*.c).

When the positions would not fit in the memory the user gives (``--memory 16G``), the reachable set is
found breadth first by layers, the visited positions kept as sorted files of 24-byte keys (KEY_BYTES: every
position packs into their 191 bits) in a temporary folder (``--tmp DIR``): each layer's successors are sorted
in a buffer of that size (memory / 24 keys), written as runs,
merged and subtracted from every earlier layer (Korf's external-memory search; Freecell Solver's
``depth_dbm_fc_solver``). The files are compressed (each key as its difference from the one before, through
zlib: about a byte a position; docs/ARCHITECTURE.md, "The files"): ``disk`` and ``disk_peak`` are their real bytes. The
set is the in-memory enumeration's (84,767 positions for #11982).

    r = explore_within(deals.ms_deal(11982), STANDARD, memory=1 << 20, tmp=None)
    r.states, r.complete, r.disk        # 84767, True, True (the in-memory store would need about 2 MB)
    ...                                 # a certificate: certgen.certificate.write_search(..., r.search, ...)
    r.close()                           # the temporary folder is removed (also on errors and Ctrl-C)

The verdict is the house rule's (solver.solve.judge): a won position found gives the line read back
through the layer files, replayed against the spec. Past DDD_MAXF = 32 layers the older ones are merged into
one file and their depths are gone: the line read back then begins at the oldest layer kept, and the line
from the start to its first position is found by another disk search that looks for that position (a target,
fc_ddd_target), read back the same way (DiskSearch.full_line); the solver's line only when these fail.

A named work folder (``work_dir``, the CLI's ``--work-dir DIR``) makes the search resumable: the C core
writes a checkpoint (the state file ``search.state``) at the end of every layer and the folder is kept when
the search stops before its end (a limit, Ctrl-C, SIGTERM, an error); the same call on the same folder goes
on from the last finished layer. Once the search ended, the certificate's sort goes in steps, each ending
with the sort state ``sort.state`` (a sorted run a step): the same command after a kill goes on from the last
finished run, not from the search. At the natural end (complete or won) its files are removed.
"""
import errno
import fcntl
import os
import re
import shutil
import stat
import struct
import sys
import tempfile
import threading
import time
import zlib

from . import packed, solve
from .errors import FreecellError
from .journal import lock_file, release_lock
from .limits import DISK_WIN_STATES, IN_MEMORY_MAX_STATES, STORE_BYTES_PER_POSITION
from .lines import apply_move
from .progress import bar
from .search import CHUNK, P64_SIZE, STATUS, Found, _error, _interruptible, _rules_c, explore, ffi, lib, pos_to_c
from .sigterm import restore_term, term_as_interrupt

MIN_OVERFLOW = 1 << 20          # the overflow set's smallest limit (DDD_OVFMIN in ddd_internal.h; fc_ddd_overflow_limit)
KEY_BYTES, KEY_BITS = 24, 191   # the disk search's key (dkey_t in fc_internal.h): its buffer holds memory / 24 of them


def _size(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000


def io_words(no, folder=None):
    """A failed write's errno in words ("no space left on the device (disk full)" for ENOSPC, and for an errno
    not known when the device of ``folder`` has no block left), or None when nothing is known."""
    if not no and folder is not None:
        try:
            st = os.statvfs(folder if os.path.isdir(folder) else os.path.dirname(os.path.abspath(folder)))
            no = errno.ENOSPC if st.f_bavail == 0 else 0
        except OSError:
            pass
    if no == errno.ENOSPC:
        return "no space left on the device (disk full)"
    return os.strerror(no) if no else None


def _start_error(code, eio, no=0, folder=None):
    """The error of a disk search that could not start (fc_ddd_new/resume's code; eio: the words for FC_EIO,
    followed by what ``no``, the errno, says, or by "disk full" when ``folder``'s device is)."""
    if code == lib.FC_EIO:
        why = io_words(no, folder)
        return FreecellError(f"{eio}: {why}" if why else eio)
    if code == lib.FC_EBADRULES:
        return FreecellError("the disk search does not take these rules (--hand)")
    return _error(code, "cannot start the disk search: ")


STATE_FILE = "search.state"                     # the checkpoint (docs/ARCHITECTURE.md, "Checkpoints")
SORT_STATE_FILE = "sort.state"                  # the sort's, once the search ended (fc_ddd_sort_step)
LOCK_FILE = "search.lock"                       # held (lockf, journal.lock_file) by the one process in the folder
_OWN_FILE = re.compile(r"^([LRVS]\d{6}\.keys|search\.state\.tmp|sort\.state(\.tmp)?|search\.lock)$")   # the
# search's other files


# A file of keys or records (fc.c, "The files"): a head of 32 bytes starting "FCDK", then blocks, each a head of
# 12 bytes (its deflated bytes, its encoded bytes, the CRC-32 of these 8 bytes and the deflated ones: all
# little-endian) and its deflated bytes; a block holds at most DDD_BRAW encoded, DDD_ZMAX deflated bytes.
_KEYS_NAME = re.compile(r"[LRVS][0-9]{6,20}\.keys\Z", re.ASCII)
_FILE_HEAD, _BLOCK_HEAD, _MAGIC = 32, 12, b"FCDK"
_BLOCK_RAW = 65536 + 2 * 64
_BLOCK_DEFLATED = _BLOCK_RAW + _BLOCK_RAW // 8 + 1024


def damaged_file(folder):
    """The first file of a disk search's folder (sorted by name) whose bytes fail the check its reader makes,
    or None: a head without the magic, a block whose lengths pass their bounds or whose CRC-32 does not match.
    A file that only ends early is not named (it may be the layer the search was writing when it stopped).
    What fc.c reports as EIO does not say which file: this names it (read after the search stopped)."""
    try:
        names = sorted(n for n in os.listdir(folder) if _KEYS_NAME.match(n))
    except OSError:
        return None
    for name in names:
        try:
            with open(os.path.join(folder, name), "rb") as f:
                head = f.read(_FILE_HEAD)
                if len(head) == _FILE_HEAD and not head.startswith(_MAGIC):
                    return name
                while len(head) == _FILE_HEAD:
                    block = f.read(_BLOCK_HEAD)
                    if len(block) < _BLOCK_HEAD:
                        break
                    deflated, encoded, crc = struct.unpack("<III", block)
                    if deflated > _BLOCK_DEFLATED or encoded > _BLOCK_RAW:
                        return name
                    data = f.read(deflated)
                    if len(data) < deflated:
                        break
                    if zlib.crc32(data, zlib.crc32(block[:8])) != crc:
                        return name
        except OSError:
            continue
    return None


TMP_PREFIX = "freecell-disk-"                  # a temporary folder: freecell-disk-PID-XXXXXXXX (mkdtemp's end)
OWNER_FILE = "owner.lock"                       # in it: held (flock) by its process while the folder lives
# exactly the names _temporary_folder makes (mkdtemp's 8 characters) and the files a search writes in one
_TMP_NAME = re.compile(r"freecell-disk-[0-9]{1,10}-[a-z0-9_]{8}", re.ASCII)
_TMP_FILE = re.compile(r"[LRVS][0-9]{6,20}\.keys|owner\.lock|\.owner-[a-z0-9_]{8}", re.ASCII)


def _temporary_folder(tmp):
    """A new temporary folder for a disk search in ``tmp`` (None: the system's): (its path, the open file of its
    OWNER_FILE, whose flock this process holds until :meth:`DiskSearch.close` has removed the folder). The file
    is locked under another name and then renamed, so an OWNER_FILE that is there and not held is one whose
    process has ended (:func:`sweep_stale`). A file system without flock: no OWNER_FILE, and the folder is never
    swept."""
    path = tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{os.getpid()}-", dir=tmp)
    fd = None
    try:
        fd, part = tempfile.mkstemp(prefix=".owner-", dir=path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:                     # no locks here (e.g. some network file systems)
            os.remove(part)
        else:
            os.rename(part, os.path.join(path, OWNER_FILE))
    except BaseException:
        if fd is not None:
            os.close(fd)
        shutil.rmtree(path, ignore_errors=True)
        raise
    return path, fd


def _stale_files(dfd):
    """The files of the folder open as ``dfd`` when it is a dead search's temporary folder: every entry a regular
    file named as a search names its files, OWNER_FILE among them; None otherwise (anything else in it: not
    ours to remove)."""
    names = os.listdir(dfd)
    if OWNER_FILE not in names:
        return None
    for name in names:
        if not _TMP_FILE.fullmatch(name) or not stat.S_ISREG(os.stat(name, dir_fd=dfd, follow_symlinks=False).st_mode):
            return None
    return names


def sweep_stale(folder):
    """Remove from ``folder`` the disk searches' temporary folders that their processes left: a process killed
    with SIGKILL (the out-of-memory killer, ``kill -9``) or a machine stopped cannot remove its own, nor the
    one its line's read-back (:meth:`DiskSearch.full_line`) made. A folder goes only when all of these hold:
    it is this user's, a real folder (not a link), named exactly as :func:`_temporary_folder` names them
    (freecell-disk-PID-XXXXXXXX); its OWNER_FILE is a regular file whose lock this call takes (nobody holds it:
    its process ended, the lock went with it); and it holds nothing but regular files named as a search names
    its files (layer files, OWNER_FILE). Anything else stays: a live search's folder, a work folder, folders of
    older versions of this program (no pid in their names, no OWNER_FILE), any folder of the user's. Every step
    goes through the open folders (``dir_fd``), so a folder swapped for a link meanwhile leads nowhere else;
    files are removed one by one, then the folder (no recursion). Nothing is said; errors are ignored (what
    cannot be read or removed stays). Locks must be shared by every machine that uses the folder: on a network
    file system whose flock is local to each machine (NFS with local_lock), give each machine its own --tmp."""
    try:
        top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        uid = os.getuid()
        for name in os.listdir(top):
            if _TMP_NAME.fullmatch(name):
                _sweep_one(top, name, uid)
    except OSError:
        pass
    finally:
        os.close(top)


def _sweep_one(top, name, uid):
    """sweep_stale's work on the entry ``name`` of the folder open as ``top``."""
    try:
        dfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=top)
    except OSError:
        return
    fd = None
    try:
        if os.fstat(dfd).st_uid != uid:
            return
        fd = os.open(OWNER_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dfd)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)          # held: a live search (an OSError: it stays)
        files = _stale_files(dfd)
        if files is None:
            return
        for f in files:
            os.unlink(f, dir_fd=dfd)
        os.rmdir(name, dir_fd=top)
    except OSError:
        return
    finally:
        if fd is not None:
            os.close(fd)
        os.close(dfd)


def _not_a_search(work_dir):
    return FreecellError(f"--work-dir {work_dir}: not empty and holds no disk search (no {STATE_FILE}); give an "
                         f"empty or new folder")


def _lock(work_dir):
    """Take the work folder's lock (an exclusive record lock on its search.lock, which holds the owner's pid): (the
    open file, whether this call made it), or one FreecellError line when another process holds it. Two
    processes in one folder would remove and rewrite each other's files (a false "unwinnable" came out)."""
    path = os.path.join(work_dir, LOCK_FILE)
    made = not os.path.exists(path)

    def busy(owner):
        return FreecellError(f"--work-dir {work_dir}: in use by another search" +
                             (f" (process {owner})" if owner else "") + ": wait for it to stop, or give another folder")
    return lock_file(path, f"--work-dir {work_dir}: {LOCK_FILE}", busy), made


def resume_words(name, layer, positions, sort=None):
    """The line said when a search goes on from its work folder's checkpoint; ``sort``: (runs, positions
    sorted) when the search had ended and its sort goes on."""
    if sort is not None:
        return (f"resuming {name} from its sort: the search ended at layer {layer:,} with {positions:,} positions, "
                f"{sort[1]:,} of them sorted in {sort[0]:,} runs")
    return f"resuming {name} from layer {layer:,}, {positions:,} positions"


def say_resume(name):
    """An on_resume for explore_disk: resume_words on stderr; on a terminal on a line of its own (the line is
    cleared first: a survey's tier bar, drawn by the parent process, may stand on it without a newline)."""
    def say(layer, positions, sort=None):
        clear = "\r\033[K" if sys.stderr.isatty() else ""
        print(clear + resume_words(name, layer, positions, sort), file=sys.stderr, flush=True)
    return say


def work_state(work_dir):
    """What a --work-dir holds: "state" (a search to go on with), "empty" (missing, empty, or only files of a
    search that left no state: a start cut short before its first checkpoint, or a certificate's sort) or
    "other" (files that are not a disk search's)."""
    if not os.path.isdir(work_dir):
        return "empty"
    names = os.listdir(work_dir)
    if STATE_FILE in names:
        return "state"
    return "empty" if all(_OWN_FILE.match(n) for n in names) else "other"


class DiskSearch:
    """One disk search owned by the C core and its temporary folder (removed by ``close``). While the
    folder exists -- the search, the sort, the certificate streamed from it -- a SIGTERM (``timeout``,
    ``kill``, a batch scheduler) stops it like Ctrl-C, so its files are removed (SIGKILL cannot be: the next
    disk search there removes them, :func:`sweep_stale`). With a work folder instead, ``close`` keeps it (the
    last checkpoint's files) unless the search reached its end."""

    def __init__(self, start, rules, memory, tmp=None, max_states=None, stop_on_win=True, key_bits=0,
                 work_dir=None, target=None, overflow=None):
        """key_bits: 0 (the key's KEY_BITS = 191, which every position fits), or fewer for tests (positions
        needing more then go to the overflow set, kept whole in memory). work_dir: a named folder (made when missing) for a resumable
        search instead of a temporary one (see the module's docstring). target: a P64 record (as the search
        stores its positions: up to column order when the rules are canonical) to look for instead of a won
        position (fc_ddd_target): ``won`` then means it was reached; not with a work_dir. overflow: the bytes the
        positions past the key may take in memory (None: a quarter of ``memory``, fc_ddd_overflow_limit)."""
        self.start, self.rules, self.dir, self._term, self._d = start, rules, None, None, None
        self.work_dir, self.seconds, self._lock, self._sorting = work_dir, 0.0, None, False
        self._busy = threading.Lock()    # held by a sort step's thread while it runs (_sort_step)
        self.memory, self.tmp, self.key_bits, self.progress = memory, tmp, key_bits, False
        self.overflow, self._owner, self._made_parents = overflow, None, []
        if work_dir is not None and target is not None:
            raise ValueError("a disk search with a target keeps no work folder")
        if work_dir is not None:
            self._open_work_dir(memory, max_states, stop_on_win, key_bits)
            self._limit_overflow()
            sweep_stale(self._readback_tmp())       # what a killed run's line read-back left beside it
            return
        if tmp is not None and not os.path.isdir(tmp):
            raise FreecellError(f"--tmp {tmp}: " + ("not a folder" if os.path.exists(tmp) else "no such folder"))
        self._term = term_as_interrupt()
        sweep_stale(tmp or tempfile.gettempdir())   # the folders a killed run left where this one makes its own
        try:
            self.dir, self._owner = _temporary_folder(tmp)
        except OSError as e:
            self.close()
            raise FreecellError(f"--tmp {tmp or tempfile.gettempdir()}: cannot make a temporary folder there "
                                f"({e.strerror or e})") from None
        err = ffi.new("int *")
        try:
            d = lib.fc_ddd_new(pos_to_c(start), _rules_c(rules), os.fsencode(self.dir), memory, max_states or 0,
                               int(bool(stop_on_win)), key_bits, err)
        except BaseException:           # e.g. a size the core's types cannot hold: no folder left behind
            self.close()
            raise
        if d == ffi.NULL:
            folder, no = self.dir, ffi.errno     # fc_ddd_new's failed write (what it removed after keeps it)
            self.close()
            raise _start_error(err[0], f"cannot write in the temporary folder {folder}", no, os.path.dirname(folder))
        self._d = d
        self._limit_overflow()
        if target is not None:
            e = lib.fc_ddd_target(d, ffi.from_buffer(bytes(target)))
            if e < 0:
                self.close()
                raise _error(e, "cannot look for that position: ")

    def _limit_overflow(self):
        if self.overflow is not None and self._d is not None:
            lib.fc_ddd_overflow_limit(self._d, self.overflow)

    def _open_work_dir(self, memory, max_states, stop_on_win, key_bits):
        """Start in work_dir, or go on with the search whose state it holds (one FreecellError line when it
        holds something else, a damaged state or an incomplete set of files; the folder is then untouched)."""
        wd = self.work_dir
        if os.path.exists(wd) and not os.path.isdir(wd):
            raise FreecellError(f"--work-dir {wd}: not a folder")
        if os.path.islink(wd) and not os.path.exists(wd):      # makedirs would say "File exists"
            raise FreecellError(f"--work-dir {wd}: a symbolic link to no folder (it points to {os.readlink(wd)})")
        if work_state(wd) == "other":
            raise _not_a_search(wd)
        made_folder = not os.path.lexists(wd)      # removed again when the search cannot start in it
        made_parents = _missing_parents(wd)
        try:
            os.makedirs(wd, exist_ok=True)
        except OSError as e:
            raise FreecellError(f"--work-dir {wd}: {e.strerror or e}") from None
        self._made_parents = made_parents       # removed with the folder at the end, when still empty
        self._lock, made = _lock(wd)
        kind = work_state(wd)           # again, under the lock: its last owner may have changed it
        if kind == "other":
            self._unlock(made)
            raise _not_a_search(wd)
        try:
            for name in os.listdir(wd) if kind == "empty" else ():   # a start cut short, a sort: no state left
                if name != LOCK_FILE:
                    os.remove(os.path.join(wd, name))
        except OSError as e:
            self.close()
            raise FreecellError(f"--work-dir {wd}: {e.strerror or e}") from None
        self._term = term_as_interrupt()
        self.dir = wd
        err = ffi.new("int *")
        no = 0                              # the errno of a failed first write
        why = ffi.new("char[]", 512)
        args = (pos_to_c(self.start), _rules_c(self.rules), os.fsencode(wd), memory, max_states or 0,
                int(bool(stop_on_win)), key_bits)
        try:
            if kind == "state":
                d = lib.fc_ddd_resume(*args, err, why, 512)
            else:
                d = lib.fc_ddd_new(*args, err)
                no = ffi.errno if d == ffi.NULL else 0
                if d != ffi.NULL:
                    self._d = d
                    if self.stats().status == lib.FC_RUNNING and lib.fc_ddd_keep(d, 1) < 0:
                        no = self.stats().sys_errno
                        self._d, err[0] = None, lib.FC_EIO
                        lib.fc_ddd_free(d)      # its files go (the folder was empty)
                        d = ffi.NULL
        except BaseException:
            self.close()
            raise
        if d != ffi.NULL and why[0] != b"\0":       # gone on with, but not as far as the folder said
            note = ffi.string(why).decode("utf-8", "replace")
            print(f"note: --work-dir {wd}: {note}", file=sys.stderr, flush=True)
        if d == ffi.NULL:
            self._unlock(made)              # nothing else of the folder is removed
            self.dir = None
            self.close()
            if made_folder:                 # made by this call: not left behind, empty
                self._remove_made(wd)
            if err[0] in (lib.FC_ESTATE, lib.FC_EOTHER, lib.FC_EOVERFLOW):
                reason = ffi.string(why).decode("utf-8", "replace")
                remedy = {lib.FC_EOTHER: "remove the folder or give another --work-dir",
                          lib.FC_EOVERFLOW: "give a larger --memory to go on"}.get(
                              err[0], "it cannot be resumed: remove the folder to start again")
                raise FreecellError(f"--work-dir {wd}: {reason} ({remedy})")
            raise _start_error(err[0], f"--work-dir {wd}: cannot write the search's files there", no, wd)
        self._d = d

    def _remove_made(self, folder):
        """Remove the (empty) work folder and the parents the search made for it, deepest first; one holding
        anything stays."""
        try:
            os.rmdir(folder)
            for parent in self._made_parents:
                os.rmdir(parent)
        except OSError:
            pass

    def _unlock(self, remove):
        """Let the lock go (and its file, when this process made it: a refused folder is left as it was)."""
        if remove:
            try:
                os.remove(os.path.join(self.work_dir, LOCK_FILE))
            except OSError:
                pass
        release_lock(self._lock)
        self._lock = None

    @property
    def resumed(self):
        """(layer, positions) the search went on from when it was resumed from a checkpoint, else None."""
        st = self.stats()
        return (int(st.resumed_layer), int(st.resumed_states)) if st.resumed else None

    @property
    def sort_resumed(self):
        """(runs, positions sorted) the sort went on from when the search had ended and its sort was resumed
        from the folder's sort state, else None."""
        st = self.stats()
        return (int(st.sort_resumed_runs), int(st.sort_resumed_positions)) if st.sort_resumed else None

    def kept(self):
        """Whether close() keeps the work folder: a --work-dir search stopped before its natural end."""
        return self.work_dir is not None and self._d is not None and \
            (self._sorting or self.stats().status not in (lib.FC_DONE, lib.FC_WON))

    def close(self):
        """Remove every file and the temporary folder; release the C memory. A work folder: kept with the last
        checkpoint's files when the search stopped before its end (to go on), else emptied and removed."""
        held, came = self._d is not None, None
        if held:
            # a sort step that a signal left running in its thread (a second Ctrl-C or SIGTERM can end
            # _interruptible's wait early, as its running out does) is stopped and waited for: its memory goes
            lib.fc_ddd_cancel(self._d)
            came = _acquire_through_signals(self._busy)
        try:
            self._close()
        finally:
            if held:
                self._busy.release()
        if came is not None and sys.exc_info()[0] is None:
            raise came          # a first Ctrl-C or SIGTERM that came meanwhile stops the command, once closed

    def _close(self):
        if self._d is not None:
            # closed while an exception goes by (Ctrl-C, SIGTERM, an error) -- even after the search's last
            # call ended it -- a work folder stays: its answer was not given yet (a certificate not written)
            keep = self.kept() or (self.work_dir is not None and sys.exc_info()[0] is not None)
            if self.work_dir is not None and not keep:
                lib.fc_ddd_keep(self._d, 0)
            lib.fc_ddd_free(self._d)
            self._d = None
            if self.work_dir is not None and not keep:
                try:
                    os.remove(os.path.join(self.dir, LOCK_FILE))
                except OSError:
                    pass
                self._remove_made(self.dir)
        if self._lock is not None:
            self._unlock(False)
        if self.dir is not None and self.work_dir is None:
            shutil.rmtree(self.dir, ignore_errors=True)
        if self._owner is not None:         # after the folder is gone: until then no sweep_stale takes it
            os.close(self._owner)
            self._owner = None
        self.dir = None
        restore_term(self._term)
        self._term = None

    def stats(self):
        st = ffi.new("fc_ddd_info *")
        lib.fc_ddd_stats(self._d, st)
        return st

    def __len__(self):
        return int(self.stats().states)

    def _bits(self):
        """The bits of the search's key: KEY_BITS, or key_bits when a test narrowed it."""
        return self.key_bits if 0 < self.key_bits < KEY_BITS else KEY_BITS

    def _failed(self, st, sorting=False):
        files = "its files were removed"
        if self.work_dir is not None:
            files = (f"the whole search is kept in {self.work_dir}: the same command sorts again" if sorting else
                     f"the last finished layer is kept in {self.work_dir}: the same command goes on from there") + \
                " once the cause is gone (a damaged file cannot be mended: then remove the folder)"
        if st.status == lib.FC_EIO:
            head = (f"the disk search enumerated all {st.states:,} positions, but sorting them for the certificate "
                    f"failed" if sorting else       # after FC_DONE: the enumeration was complete, the sort failed
                    f"the disk search stopped after {st.states:,} positions")
            bad = damaged_file(self.dir) if st.sys_errno == errno.EIO else None
            if bad is not None and bad.startswith("S") and self.work_dir is not None:   # a sorted run: made again
                try:
                    os.remove(os.path.join(self.dir, SORT_STATE_FILE))
                except OSError:
                    pass
                return FreecellError(f"{head}: {os.path.join(self.dir, bad)}: damaged (its checksum does not "
                                     f"match) (no certificate written; the whole search is kept in "
                                     f"{self.work_dir}: the same command sorts again)")
            if bad is not None:           # the positions of a layer are lost: no command can go on from it
                again = (f"the same command would stop here again: remove the folder {self.work_dir} to start "
                         f"again" if self.work_dir is not None else "its files were removed: the same command "
                         "starts again")
                return FreecellError(f"{head}: {os.path.join(self.dir, bad)}: damaged (its checksum does not "
                                     f"match): the positions it holds are lost (nothing is claimed: the verdict is "
                                     f"unknown; {again})")
            why = io_words(st.sys_errno) or os.strerror(errno.EIO)
            claim = "no certificate written" if sorting else "nothing is claimed: the verdict is unknown"
            return FreecellError(f"{head}: {self.dir}: {why} ({claim}; {files})")
        if st.status == lib.FC_EOVERFLOW:
            whose = "as set" if self.overflow is not None else "a quarter of --memory"
            return FreecellError(f"the disk search stopped after {st.states:,} positions: {st.overflow:,} of them "
                                 f"do not pack into the key ({self._bits()} bits) and their set in memory would "
                                 f"pass its limit of "
                                 f"{_size(st.overflow_limit)} ({whose}, at least 1 MB; nothing is claimed: the "
                                 f"verdict is unknown" + (f"; {files})" if self.work_dir is not None else ")"))
        return _error(st.status, "the disk search stopped: ")

    def run(self, progress=False, desc="explore on disk"):
        """Run to the end: "done", "won" or "limit" (an error: one FreecellError line); ``desc``: the bar's."""
        self.progress = progress        # the line's read-back (full_line) shows its searches' bars too
        with bar(progress, unit=" positions", unit_scale=True, desc=desc) as b:
            done = 0
            while True:
                t = time.process_time()
                status = lib.fc_ddd_run(self._d, CHUNK)
                self.seconds += time.process_time() - t
                st = self.stats()
                b.update(st.states - done)
                done = st.states
                if progress:
                    over = f", {st.overflow:,} over the key ({_size(st.overflow_memory)})" if st.overflow else ""
                    b.set_postfix_str(f"layer {st.layer:,}, disk {_size(st.disk)}{over}", refresh=False)
                if status < 0:
                    raise self._failed(st)
                if status != lib.FC_RUNNING:
                    return STATUS[status]

    def line(self):
        """(first, the positions (P64) from layer ``first`` to the won one (or the target)), read back through
        the layer files: ``first`` is 0 unless the older layers were merged into one file (their depths are
        gone), then the oldest layer kept (fc_ddd_line)."""
        first = ffi.new("uint64_t *")
        n = lib.fc_ddd_line(self._d, ffi.NULL, 0, first)
        if n < 0:
            raise _error(n, "cannot read the line back: ")
        out = ffi.new("uint8_t[]", n * P64_SIZE)
        got = lib.fc_ddd_line(self._d, out, n, first)
        if got != n:
            raise _error(got if got < 0 else lib.FC_ERANGE, "cannot read the line back: ")
        blob = ffi.buffer(out, n * P64_SIZE)[:]
        return int(first[0]), [blob[i:i + P64_SIZE] for i in range(0, len(blob), P64_SIZE)]

    def _readback_tmp(self):
        """Where :meth:`full_line`'s searches make their temporary folders: beside a work folder (the survey's
        FILE.csv.work/: its disk), else in the same --tmp (None: the system's temporary folder)."""
        return self.tmp if self.tmp is not None or self.work_dir is None else \
            os.path.dirname(os.path.abspath(self.work_dir))

    def full_line(self):
        """The positions (P64) from the start to the won one (or the target): :meth:`line`, and when it begins
        past the merged layers (at depth D), before it the line from the start to its first position P, found
        by a new disk search from the start for P (a target: the same rules and buffer, in a temporary folder
        beside this one's) -- whose own line may begin past its merged layers: the same again, each time at
        least 32 layers shallower, until a line begins at the start. None when such a search fails (an error,
        Ctrl-C excepted, or P not reached: a bug)."""
        first, recs = self.line()
        tmp = self._readback_tmp()
        while first:
            words = f"reading the line back: a search to depth {first:,}"
            if not self.progress:
                print(words, file=sys.stderr, flush=True)
            try:
                s = DiskSearch(self.start, self.rules, self.memory, tmp, key_bits=self.key_bits, target=recs[0],
                               overflow=self.overflow)
                try:
                    status = s.run(self.progress, desc=words)
                    depth, head = s.line() if status == "won" else (None, None)
                finally:
                    s.close()
            except (FreecellError, MemoryError):
                return None
            if head is None or head[-1] != recs[0] or len(head) != first - depth + 1:
                return None
            first, recs = depth, head[:-1] + recs
        return recs

    def sorted_batches(self, size):
        """Every position's P64 record in ascending order, ``size`` records at a time (external sort). The sort
        goes in steps (fc_ddd_sort_step: a sorted run each; with a work folder each ends with the sort state,
        so a kill loses one run at most); a step runs in a thread that Ctrl-C and SIGTERM stop within about a
        second (fc_ddd_cancel), the work folder kept."""
        self._sorting = True            # a sort not read to its end: a work folder keeps the layers and state
        d = self._d
        while True:
            e = _interruptible(self._sort_step, (), cancel=lambda: lib.fc_ddd_cancel(d))
            if e < 0:
                raise self._failed(self.stats(), sorting=True) if e == lib.FC_EIO else \
                    _error(e, "cannot sort the positions: ")
            if e == 0:
                break
        out, got = ffi.new("uint8_t[]", size * P64_SIZE), 0
        while True:
            m = lib.fc_ddd_next_p64(self._d, out, size)
            if m == 0:
                st = self.stats()
                if st.status < 0:
                    raise self._failed(st, sorting=True)
                if got != st.states:        # a sort state that lied about its runs (their files hold together)
                    raise self._sort_lost(got, st.states)
                self._sorting = False
                return
            got += m
            yield ffi.buffer(out, m * P64_SIZE)[:]

    def _sort_step(self):
        """fc_ddd_sort_step in _interruptible's thread, holding ``_busy`` (close() frees the search only once it
        has it); a search already closed when the thread starts: FC_ESTOPPED."""
        with self._busy:
            return lib.FC_ESTOPPED if self._d is None else lib.fc_ddd_sort_step(self._d)

    def _sort_lost(self, got, states):
        """The error of a sort whose runs do not hold every position (a sort state forged to agree with its
        files): a work folder loses its sort state, so that the same command sorts again."""
        where = "its files were removed"
        if self.work_dir is not None:
            try:
                os.remove(os.path.join(self.dir, SORT_STATE_FILE))
            except OSError:
                pass
            where = f"the whole search is kept in {self.work_dir}: the same command sorts again"
        return FreecellError(f"the disk search enumerated all {states:,} positions, but its sorted runs hold "
                             f"{got:,} (no certificate written; {where})")


def _acquire_through_signals(lock, poll=0.05):
    """Acquire ``lock`` through the signals that come meanwhile (Ctrl-C, SIGTERM): the first one's exception is
    returned (None: none came), for the caller to raise once it is done unless another one goes by (a first
    SIGTERM dropped would leave the command deaf to the next ones: solver/sigterm.py)."""
    came = None
    while True:
        try:
            if lock.acquire(timeout=poll):
                return came
        except BaseException as e:  # a signal: the wait goes on
            came = came or e


class DiskResult(Found):
    """What the disk search found, read like solver.search.ExploreResult (see Found), with its figures:
    layers, runs (sorted runs written), disk_peak (bytes of files at most), overflow and overflow_bytes (the
    positions kept whole in memory, as they do not pack into the key: none unless key_bits narrowed it for a
    test, and their bytes), total_seconds
    (``seconds`` is this run's processor time, every thread's, as a ledger row's seconds are; this adds the
    earlier runs' of a resumed search, up to the checkpoint it went on from); with a work folder: resumed ((layer, positions) it went on from, or None), checkpoints,
    checkpoint_bytes (the last state file's), checkpoint_seconds, work_dir and kept (the folder stays, to go
    on)."""
    disk = True

    def _stats(self, st):
        self.layers = int(st.layer) + (0 if self.complete else 1)
        self.runs = int(st.runs)
        self.disk_peak = int(st.disk_peak)
        self.overflow = int(st.overflow)                  # positions kept whole (over the key)
        self.overflow_bytes = int(st.overflow_memory)
        self.work_dir = self.search.work_dir
        self.resumed = (int(st.resumed_layer), int(st.resumed_states)) if st.resumed else None
        self.checkpoints = int(st.checkpoints)
        self.checkpoint_bytes = int(st.checkpoint_bytes)
        self.checkpoint_seconds = float(st.checkpoint_seconds)
        self.total_seconds = float(st.prior_seconds) + self.seconds   # this run's and the earlier runs'
        self.kept = self.search.kept()

    def winning_line(self):
        """Positions from the start to a won one (up to column order when the rules are canonical): read back
        through the layer files, past the merged layers through further disk searches
        (:meth:`DiskSearch.full_line`); only when these fail, the solver's line (solver.solve, verified there)
        replayed. None without a win or when the solver finds none."""
        if not self.won:
            return None
        recs = self.search.full_line()
        if recs is not None:
            return [packed.unpack(rec) for rec in recs]
        r = solve.solve(self.search.start, self.rules)
        if r.verdict != "winnable":
            return None
        line = [self.search.start]
        for mv in r.moves:
            line.append(apply_move(line[-1], mv, self.rules))
        return line


def _missing_parents(path):
    """The folders above ``path`` that do not exist yet (makedirs will make them), the deepest first."""
    out, p = [], os.path.dirname(os.path.abspath(path))
    while not os.path.lexists(p) and os.path.dirname(p) != p:
        out.append(p)
        p = os.path.dirname(p)
    return out


def explore_disk(start, rules, memory, tmp=None, max_states=None, progress=False, stop_on_win=True, key_bits=0,
                 work_dir=None, on_resume=None, desc="explore on disk", overflow=None, first=None):
    """The disk search from ``start`` to its end (see the module's docstring). Its folder is removed when
    it fails or is interrupted; on success by the result's ``close()``. With ``work_dir`` the folder is kept
    when the search stops before its end, and a folder holding this search's state is gone on with:
    ``on_resume(layer, positions)`` is called first; ``desc``: the progress bar's words; ``overflow``: see
    DiskSearch. ``first``: called when the folder's state is gone on with (its start, rules and key checked,
    its lock held) and its search has not ended; a result it returns (a win in memory) is the answer, and
    the folder is left as it is."""
    s = DiskSearch(start, rules, memory, tmp, max_states, stop_on_win, key_bits, work_dir, overflow=overflow)
    try:
        if first is not None and s.resumed is not None and s.stats().status == lib.FC_RUNNING:
            r = first()
            if r is not None:
                s.close()               # kept: its search has not ended
                print(f"note: --work-dir {work_dir}: a win was found in memory, so the search its files hold is "
                      f"not needed: remove the folder", file=sys.stderr, flush=True)
                return r
        if on_resume is not None and s.resumed is not None:
            on_resume(*s.resumed, **({"sort": s.sort_resumed} if s.sort_resumed is not None else {}))
        return DiskResult(s, s.run(progress, desc))
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt) and s.work_dir is not None:    # close() keeps it with an exception going
            # by, even when the search had just ended (its answer was not given yet)
            print(f"note: the disk search's state is kept in {s.work_dir}: the same command goes on from its last "
                  f"finished layer", file=sys.stderr, flush=True)
        s.close()
        raise


def explore_within(start, rules, memory, tmp=None, max_states=None, progress=False, stop_on_win=True,
                   on_disk=False, work_dir=None, on_resume=None):
    """The enumeration in ``memory`` bytes: in memory (solver.search.explore) while the positions fit in
    it (memory / STORE_BYTES_PER_POSITION of them, at most IN_MEMORY_MAX_STATES), else again from the start on
    disk (explore_disk); ``on_disk``: on disk at once (a set known not to fit), as always with a ``work_dir``
    (a resumable search is one on disk from its start; one holding a state goes on). There, with
    ``stop_on_win``, a depth-first search in memory looks for a win first (up to DISK_WIN_STATES positions, as
    many as fit in ``memory``), and its win is the answer: the search on disk goes breadth first, so it reaches
    a win only after every position as near the start (deal 1: more than 10 minutes with 1G, against 21,063
    positions depth first). So too on a work folder whose search has not ended, once its state is gone on with
    (the folder's lock held, its start and rules this search's: a folder of another search, or one in use, is
    refused first): its files are then left as they are. The result (an ExploreResult or a DiskResult) is
    closed by the caller."""
    disk = dict(work_dir=work_dir, on_resume=on_resume)
    fits = min(memory // STORE_BYTES_PER_POSITION, IN_MEMORY_MAX_STATES)
    if on_disk or work_dir is not None:
        def win_in_memory():
            r = explore(start, rules, max_states=max(1, min(fits, DISK_WIN_STATES, max_states or fits)),
                        stop_on_win=True)
            if r.won:
                return r
            r.close()
            return None
        if stop_on_win and (work_dir is None or work_state(work_dir) == "empty"):
            r = win_in_memory()
            if r is not None:
                return r
        return explore_disk(start, rules, memory, tmp, max_states, progress, stop_on_win,
                            first=win_in_memory if stop_on_win else None, **disk)
    if max_states is not None and max_states <= fits:
        return explore(start, rules, max_states=max_states, progress=progress, stop_on_win=stop_on_win)
    r = explore(start, rules, max_states=max(fits, 1), progress=progress, stop_on_win=stop_on_win)
    if r.status != "limit":
        return r
    r.close()
    return explore_disk(start, rules, memory, tmp, max_states, progress, stop_on_win, **disk)
