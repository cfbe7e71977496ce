"""Progress bars (tqdm, on stderr) for the steps that can take more than a second, or nothing.

    with bar(progress, total=n, unit=" states", desc="check") as b:
        b.update(k)

tqdm is imported only when a bar is shown (it costs tens of milliseconds of start-up).
"""
import contextlib
import sys


class _NoBar:
    def update(self, n=1):
        pass


@contextlib.contextmanager
def bar(enabled, total=None, unit="", desc="", **kw):
    """A tqdm bar on stderr when ``enabled``, else an object whose ``update`` does nothing; closed at the end."""
    if not enabled:
        yield _NoBar()
        return
    from tqdm import tqdm
    tqdm.monitor_interval = 0       # no monitor thread: the checker forks worker processes
    b = tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, leave=False, mininterval=0.2, **kw)
    try:
        yield b
    finally:
        b.close()
