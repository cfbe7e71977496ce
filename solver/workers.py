"""What every worker process of a pool runs first (the surveys' --jobs): ``orphan_watch``; and how the
parent reads a multiprocessing pool's results without waiting for ever on a worker that was killed:
``pool_results``."""
import multiprocessing as mp
import os
import signal
import threading
import time

from .errors import WorkerLost

LOST = ("a worker process ended abruptly (killed: the system's out-of-memory killer, or kill -9), so the "
        "result it was computing is lost and nothing is claimed for it")


def orphan_watch(parent):
    """In a worker: ignore SIGINT (Ctrl-C is the parent's to handle: it stops the pool; a worker would
    print a traceback), and exit as soon as the parent process is gone. Killed with SIGKILL, the parent
    cannot stop its workers: without this they would finish their search (minutes, gigabytes for a big
    one) or wait on their queue for ever. The watch is a thread: the C core releases the GIL, so it runs
    during a long search too."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)
    threading.Thread(target=watch, daemon=True).start()


def pool_results(pool, results, poll=1.0):
    """The items of ``results`` (an iterator of ``pool``'s ``imap`` or ``imap_unordered``) as they come.
    A multiprocessing pool whose worker is killed starts another one and waits for ever for the lost task's
    result: this raises :class:`WorkerLost` instead, as soon as one of the pool's processes has ended (no
    worker of a pool made without ``maxtasksperchild`` ends by itself while it runs). ``pool._pool`` is the
    pool's list of processes (multiprocessing has no public name for it)."""
    workers = {p.pid for p in pool._pool}
    while True:
        try:
            yield results.next(timeout=poll)
        except StopIteration:
            return
        except mp.TimeoutError:
            now = list(pool._pool)
            if {p.pid for p in now} != workers or any(p.exitcode is not None for p in now):
                raise WorkerLost(LOST) from None
