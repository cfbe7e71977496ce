"""Atomic writes: every output file (certificates, Lean modules, tables, pictures) is written to a
temporary file in the same folder, flushed and synced, then renamed over the target, so a crash or a
bad run never leaves a half-written file behind."""
import os
import tempfile


def write_atomic(path: str, data) -> str:
    """Write `data` (bytes, or str as UTF-8) to `path` atomically; return `path`."""
    try:
        return _write_atomic(path, data)
    except OSError as exc:
        # Name the file the user asked for, not the temporary one (`--out DIR` fails at the rename).
        raise OSError(exc.errno, exc.strerror or str(exc), path) from None


def _write_atomic(path, data):
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual permissions
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
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
