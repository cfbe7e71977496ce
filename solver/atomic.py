"""Writing the output files (certificates, Lean modules, tables, pictures, CSV) without losing anything.

- A regular file, or a path that does not exist yet, is replaced atomically: the data goes to a temporary
  file in the same folder, flushed and synced, then renamed over the target, so a crash or a bad run never
  leaves a half-written file behind. A symbolic link to a regular file stays a link: the file it points to
  is replaced.
- Anything else that exists -- a device (`/dev/null`, `/dev/full`), a FIFO, a terminal, or a path reached
  through `/dev` or `/proc` such as `/dev/stdout` -- is written in place (opened and streamed); renaming a
  file over it would replace the special file itself. Errors (e.g. a full disk) are raised as OSError
  naming the path.
- `-` is standard output. Once a command's data went there, its messages for people go to standard
  error (``sys.stdout`` is pointed at ``sys.stderr``), so they do not end up inside the data.

:func:`check_not_input` refuses an output that is one of the command's inputs (same resolved path, or
the same file through another name), before anything is written.
"""
import errno
import os
import stat
import sys

from .errors import FreecellError

STDOUT = "-"
_DATA_OUT = None                # the real standard output once messages were sent to stderr


def is_stdout(path) -> bool:
    """True when `path` is `-` or names the same file as file descriptor 1 (/dev/stdout, a shell's
    redirection target, /proc/self/fd/1)."""
    if path is None:
        return False
    if path == STDOUT:
        return True
    try:
        a, b = os.fstat(1), os.stat(path)
    except (OSError, ValueError):
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def messages_to_stderr():
    """Point ``sys.stdout`` at ``sys.stderr`` (the data owns standard output); `-` still writes there."""
    global _DATA_OUT
    if _DATA_OUT is None:
        _DATA_OUT = sys.stdout
    sys.stdout = sys.stderr


def write_atomic(path: str, data) -> str:
    """Write `data` (bytes, or str as UTF-8) to `path` as the module docstring says; return `path`."""
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return write_atomic_with(path, lambda f: f.write(payload))


def write_atomic_with(path: str, emit) -> str:
    """The same for data written a piece at a time: ``emit(f)`` writes it to the binary file f (the
    temporary file, the special file, or standard output)."""
    if path == STDOUT:
        _write_stdout(emit)
        return path
    try:
        if _in_place(path):
            _write_in_place(path, emit)
        else:
            _write_atomic(os.path.realpath(path), emit)
    except OSError as exc:
        # Name the file the user asked for, not the temporary one (`--out DIR` fails at the rename).
        raise _named(exc, path) from None
    return path


def temp_folder_for(path, made=None):
    """Where a temporary file for the output `path` goes: the folder write_atomic renames into (made
    when missing; the folders made appended to the list ``made``), or None (the system's) when `path` is
    standard output or written in place."""
    if path == STDOUT or _in_place(path):
        return None
    folder = os.path.dirname(os.path.realpath(path))
    _makedirs(folder, made)
    return folder


def remove_made(made):
    """Remove the folders of ``made`` (temp_folder_for's list) that are still empty, innermost first: an
    output that was never written leaves no folder behind. A folder something was put into stays."""
    for d in reversed(made):
        try:
            os.rmdir(d)
        except OSError:
            return


def unwritable(folder):
    """Why no file can be made in the existing ``folder`` ("read-only file system", "no permission"), or
    None when one can (the system's own check, access(2): root's right to write anywhere counts)."""
    if os.access(folder, os.W_OK | os.X_OK):
        return None
    try:
        read_only = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        read_only = False
    return "read-only file system" if read_only else "no permission"


def _named(exc, path):
    return OSError(exc.errno, reason(exc, path), path)


def reason(exc, path=None) -> str:
    """Why ``exc`` (an OSError about ``path``) happened, in words: a full disk says so, and a file standing
    where a folder of the path should be is named ("somefile is a file, not a folder") instead of the
    system's bare "File exists" / "Not a directory"."""
    if exc.errno == errno.ENOSPC:
        return "no space left on the device (disk full)"
    path = path if path is not None else exc.filename
    if exc.errno in (errno.EEXIST, errno.ENOTDIR) and isinstance(path, str) and path:
        blocker = file_in_the_way(path)
        if blocker is not None:
            return f"{blocker} is a file, not a folder"
    return exc.strerror or str(exc)


def file_in_the_way(path):
    """The first component of ``path`` (as written, shortest first; the last one too) that exists and is
    not a folder while more of the path follows it or a folder is wanted there, else None."""
    parts = os.path.normpath(path).split(os.sep)
    for i in range(1, len(parts) + 1):
        prefix = os.sep.join(parts[:i]) or os.sep
        if os.path.exists(prefix) and not os.path.isdir(prefix):
            return prefix
        if not os.path.exists(prefix):
            return None
    return None


def _in_place(path) -> bool:
    """True when `path` exists and is not a regular file, or is reached through /dev or /proc."""
    try:
        st = os.stat(path)
    except OSError:
        return False                # a new path (or one the write itself will report on)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
    if not stat.S_ISREG(st.st_mode):
        return True
    # A regular file behind /dev/stdout or /proc/self/fd/1 (the shell's redirection): the shell holds
    # it open, so it is written in place like the terminal or pipe it usually is.
    p = os.path.abspath(path)
    for _ in range(40):
        if p.startswith(("/dev/", "/proc/")):
            return True
        if not os.path.islink(p):
            return False
        p = os.path.join(os.path.dirname(p), os.readlink(p))
    return False


def _write_in_place(path, emit):
    with open(path, "wb") as f:     # truncating a device or a FIFO is harmless
        emit(f)
        f.flush()


def _write_stdout(emit):
    out = _DATA_OUT if _DATA_OUT is not None and sys.stdout is sys.stderr else sys.stdout
    try:
        out.flush()
        emit(out.buffer)
        out.buffer.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise _named(exc, "standard output") from None
    messages_to_stderr()            # the data owns standard output now; messages go to stderr


def _makedirs(folder, made=None):
    """os.makedirs without its recursion (a path of a thousand nested folders is no RecursionError); the
    folders it made, outermost first, appended to ``made`` as they are made: when a deeper one
    cannot be (a name too long), the list holds those already made."""
    missing = []
    while folder and not os.path.isdir(folder):
        missing.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for d in reversed(missing):
        try:
            os.mkdir(d)
            if made is not None:
                made.append(d)
        except FileExistsError:
            if not os.path.isdir(d):
                raise


def _write_atomic(path, emit):
    import tempfile     # here, not at the top: `explore` without --out must start fast
    folder = os.path.dirname(path)
    _makedirs(folder)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)      # keep the permissions of the file replaced
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask                          # mkstemp makes 0600; give the usual permissions
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as f:
            emit(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def _same_file(a, b) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_not_input(out_path, *inputs, what="output"):
    """Raise FreecellError (one line, before anything is written) when `out_path` would replace one of
    `inputs`. `None` and `-` (standard input/output) are skipped, and so is an output that is written in
    place (a device, `/dev/stdout`): it replaces no file."""
    if out_path is None or out_path == STDOUT:
        return
    try:
        if _in_place(out_path):
            return
    except OSError:
        return                      # a directory: the write reports it
    for inp in inputs:
        if inp is None or inp == STDOUT:
            continue
        if _same_file(out_path, inp):
            raise FreecellError(f"the {what} {out_path} is the input {inp}: writing it would destroy the "
                                f"input; choose another file")
