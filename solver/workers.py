"""What every worker process of a pool runs first (the surveys' --jobs): ``orphan_watch``; how the parent
reads a multiprocessing pool's results without waiting for ever on a worker that was killed:
``pool_results``; and SIGTERM taken as Ctrl-C (``term_as_interrupt``): by the disk search, to remove or keep
its files, and by the surveys' parents, to stop their workers and say so in one line."""
import multiprocessing as mp
import os
import signal
import threading
import time

from .errors import Terminated, WorkerLost

LOST = ("a worker process ended abruptly (killed: the system's out-of-memory killer, or kill -9), so the "
        "result it was computing is lost and nothing is claimed for it")


def orphan_watch(parent):
    """In a worker: ignore SIGINT (Ctrl-C is the parent's to handle: it stops the pool; a worker would
    print a traceback), and exit as soon as the parent process is gone. Killed with SIGKILL, the parent
    cannot stop its workers: without this they would finish their search (minutes, gigabytes for a big
    one) or wait on their queue for ever. The watch is a thread: the C core releases the GIL, so it runs
    during a long search too. A worker that finishes a task before the watch sees the parent gone writes its
    result into a pipe nobody reads: SIGPIPE's default action ends it there, without a word (Python ignores
    SIGPIPE, and the pool's worker printed two BrokenPipeError tracebacks on the parent's stderr)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)   # the parent's term_as_interrupt is not the worker's: a
    #                                                 pool's terminate() ends it at once (a disk search sets its own)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)

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


def term_as_interrupt():
    """From now on (in the main thread), SIGTERM raises Terminated (a KeyboardInterrupt): the Ctrl-C path
    (said as SIGTERM, solver.cliargs.TERMINATED). Returns the handler it replaced (None outside the main
    thread), for :func:`restore_term`."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_terminated)


def _raise_terminated(signum, frame):
    raise Terminated


def restore_term(old):
    if old is not None:
        signal.signal(signal.SIGTERM, old)
