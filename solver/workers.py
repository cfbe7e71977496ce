"""What every worker process of a pool runs first (the surveys' --jobs): ``orphan_watch``; how the parent
reads a multiprocessing pool's results without waiting for ever on a worker that was killed:
``pool_results``, and ends the pool: ``end_pool`` (with the workers' temporary files: ``pool_folder``). SIGTERM
taken as Ctrl-C in the parent, which stops its workers and says so in one line: solver/sigterm.py."""
import multiprocessing as mp
import multiprocessing.pool
import os
import shutil
import signal
import tempfile
import threading
import time
from contextlib import contextmanager

from .errors import FreecellError, WorkerLost

def lost(exitcode):
    """The one line of :class:`WorkerLost` for a worker that ended with ``exitcode`` (multiprocessing's: minus the
    signal's number when a signal ended it; None when the pool cannot tell): what ended it, when known, and no
    more."""
    if exitcode is None:
        how = "what ended it is not known"
    elif exitcode == -signal.SIGKILL:
        how = "killed by SIGKILL, as the system's out-of-memory killer and kill -9 do"
    elif exitcode < 0:
        try:
            how = f"ended by {signal.Signals(-exitcode).name}"
        except ValueError:
            how = f"ended by signal {-exitcode}"
    else:
        how = f"it exited with status {exitcode}"
    return f"a worker process ended abruptly ({how}), so the result it was computing is lost and nothing is claimed " \
           "for it"


HELD = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def signals_held():
    """Around the start of a pool's processes: SIGINT and SIGTERM held (blocked) in this thread, so every
    process it forks -- and every thread it starts, such as the one that forks a pool's replacement workers --
    begins with them held; a worker's initializer sets its own handlers and then lets them through
    (:func:`let_signals_through`). A signal that comes meanwhile waits: the parent gets it at the end of the
    block (its Ctrl-C path), a worker once its handlers are set. Without this, a SIGTERM that reached a
    worker in its first instants (a pool's terminate() right after a quick task) met the parent's handler,
    or none at all (Python drops a signal caught between fork and its after-fork bookkeeping): the worker
    lived on and the pool's terminate() waited for ever for it (a survey of one deal with --jobs 2 hung
    about once in ten runs on a loaded machine)."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def cpus() -> int:
    """The CPUs this process may use: the default number of processes of a check that shares its work."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def start_pool(jobs, initializer, initargs):
    """A multiprocessing pool of ``jobs`` workers (forked where the system can fork), started with SIGINT and
    SIGTERM held (:func:`signals_held`), each running ``initializer(*initargs)`` first (which calls
    :func:`orphan_watch`). A pool the system cannot start (no memory, no thread or process left: Python's pool
    then leaves the workers it had forked waiting for ever) is one line, its workers killed."""
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    before = {p.pid for p in mp.active_children()}
    pool = mp.pool.Pool.__new__(mp.pool.Pool)     # ctx.Pool's pool, held here when its __init__ fails
    try:
        with signals_held():
            pool.__init__(jobs, initializer, initargs, context=ctx)
        return pool
    except BaseException as e:      # a Ctrl-C or SIGTERM held meanwhile comes here too: the pool is not returned
        with signals_held():
            if getattr(pool, "_terminate", None) is not None:
                pool._terminate.cancel()        # its own terminate at exit could wait for the killed workers' lock
            _no_replacements(pool)      # its worker thread, if it started, replaced every worker killed here
            for p in mp.active_children():
                if p.pid not in before:
                    p.kill()
                    p.join(5)
        if not isinstance(e, (RuntimeError, OSError, MemoryError)):
            raise
        raise FreecellError(f"cannot start {jobs} worker processes ({e or type(e).__name__}): free some memory, "
                            f"or use fewer processes") from None


def let_signals_through():
    """In a worker, once its handlers are set: the signals :func:`signals_held` held."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)


def orphan_watch(parent, tmp=None):
    """In a worker: ignore SIGINT (Ctrl-C is the parent's to handle: it stops the pool; a worker would
    print a traceback), and exit as soon as the parent process is gone. Killed with SIGKILL, the parent
    cannot stop its workers: without this they would finish their search (minutes, gigabytes for a big
    one) or wait on their queue for ever. The watch is a thread: the C core releases the GIL, so it runs
    during a long search too. A worker that finishes a task before the watch sees the parent gone writes its
    result into a pipe nobody reads: SIGPIPE's default action ends it there, without a word (Python ignores
    SIGPIPE, and the pool's worker printed two BrokenPipeError tracebacks on the parent's stderr).
    ``tmp``: the parent's :func:`pool_folder`, where the worker's temporary files go (``tempfile.tempdir``: a
    disk search's folder without a work folder), so that the parent removes them when the pool ends, even
    those of a worker killed with SIGKILL, which cannot remove its own."""
    if tmp is not None:
        tempfile.tempdir = tmp
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)   # the parent's term_as_interrupt is not the worker's: a
    #                                                 pool's terminate() ends it at once (a disk search sets its own)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # a result written to a parent gone: the end, no traceback
    let_signals_through()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)
    try:
        threading.Thread(target=watch, daemon=True).start()
    except RuntimeError:            # no thread left (memory): a worker without its watch could outlive the
        os._exit(1)                 # parent; ending now, it is a lost worker to the parent (pool_results)


def pool_results(pool, results, poll=1.0):
    """The items of ``results`` (an iterator of ``pool``'s ``imap`` or ``imap_unordered``) as they come.
    A multiprocessing pool whose worker is killed starts another one and waits for ever for the lost task's
    result: this raises :class:`WorkerLost` instead, as soon as one of the pool's processes has ended (no
    worker of a pool made without ``maxtasksperchild`` ends by itself while it runs)."""
    workers = _workers(pool)
    while True:
        try:
            yield results.next(timeout=poll)
        except StopIteration:
            return
        except mp.TimeoutError:
            _check_workers(pool, workers)


def windowed(tasks, submit, wait_first, window, result=lambda f: f.result()):
    """The results of ``tasks`` (an iterable read as it goes) as they come, in any order, at most ``window``
    of them in flight, so that memory stays flat however many tasks there are: ``submit(task)`` gives a
    future, ``wait_first(futures)`` the set of those done (at least one) and the set of the others, and
    ``result(future)`` its result. The surveys' engines: :func:`pool_windowed`, certgen/survey.py's Dask."""
    inflight = set()
    for t in tasks:
        while len(inflight) >= window:
            done, inflight = wait_first(inflight)
            for f in done:
                yield result(f)
        inflight.add(submit(t))
    while inflight:
        done, inflight = wait_first(inflight)
        for f in done:
            yield result(f)


def pool_windowed(pool, fn, tasks, window, poll=1.0):
    """:func:`windowed` on a multiprocessing pool: ``fn(task)`` of each task. A worker killed:
    :class:`WorkerLost`, as :func:`pool_results` says."""
    workers = _workers(pool)
    came = threading.Event()

    def submit(task):
        return pool.apply_async(fn, (task,), callback=lambda _r: came.set(), error_callback=lambda _e: came.set())

    def wait_first(futures):
        while True:
            done = {f for f in futures if f.ready()}
            if done:
                return done, futures - done
            came.wait(poll)
            came.clear()        # a result that came meanwhile is seen by ready() on the next turn
            _check_workers(pool, workers)
    yield from windowed(tasks, submit, wait_first, window, lambda f: f.get())


def _workers(pool):
    """``pool``'s processes (``pool._pool``: multiprocessing has no public name for that list)."""
    return list(pool._pool)


def _check_workers(pool, workers):
    """WorkerLost when one of ``pool``'s processes (``workers``, those at the start) has ended, saying how. The
    pool's own thread joins an ended worker (its exit code then set) before it takes it out of ``pool._pool``:
    one missing from there has its code."""
    gone = {p.pid for p in pool._pool} != {p.pid for p in workers}
    ended = [p.exitcode for p in workers if p.exitcode is not None]
    if gone or ended:
        raise WorkerLost(lost(ended[0] if ended else None)) from None


def pool_folder():
    """In the parent, before a pool whose workers make temporary files (a disk search without a work folder):
    a new folder in the system's temporary one for them (``orphan_watch``'s ``tmp``), removed by ``end_pool``."""
    try:
        return tempfile.mkdtemp(prefix="freecell-pool-")
    except OSError as e:
        raise FreecellError(f"{tempfile.gettempdir()}: cannot make a temporary folder there ({e.strerror or e})") \
            from None


def end_pool(pool, lost=False, tmp=None, grace=30):
    """Stop a multiprocessing pool at the end of a survey's pass, without ``pool.terminate()``: that first takes
    the task queue's lock, which an idle worker holds while it waits for its next task, so a worker that died
    there (killed, or ended by a signal at the wrong moment) makes it wait for ever -- after a lost worker
    (:class:`WorkerLost`), after a SIGTERM to the survey (1 run in 8).
    So: the pool is stopped from making new workers; unless ``lost``, each worker gets SIGTERM (a disk search in it
    keeps or removes its files), with SIGCONT so that a stopped one (kill -STOP) takes it, and up to ``grace``
    seconds to end; then what is left is killed (SIGKILL) and the pool's own terminate cancelled (it would also
    run at exit); so are the programs the workers ran (SIGTERM: the fast checker, which a worker ended by the
    signal's default left running, minutes on a big certificate). ``pool._pool``, ``_worker_handler``, ``_change_notifier`` and ``_terminate`` are the pool's own
    (multiprocessing has no public names for them).
    Then the pool's folder ``tmp`` (:func:`pool_folder`) is removed, with what a killed worker left in it (a disk
    search's files). All of it with SIGINT and SIGTERM held (:func:`signals_held`): one that comes meanwhile (a
    Ctrl-C, the worker's SIGTERM reaching the parent too) is taken once the pool has ended. Raised half-way, it
    left the pool's own terminate to run at exit, where it waited for ever for the task queue's lock held by a
    worker just stopped (a survey sent SIGTERM as its last chunk came in hung, about 1 run in 100)."""
    try:
        with signals_held():
            pool._terminate.cancel()
            _no_replacements(pool)
            procs = list(pool._pool)
            programs = [pid for p in procs if p.exitcode is None for pid in _children(p.pid)]
            if not lost:
                for p in procs:
                    if p.exitcode is None:
                        p.terminate()
                        _go_on(p)       # a stopped worker (kill -STOP) takes its SIGTERM only once it goes on
                deadline = time.monotonic() + grace
                for p in procs:
                    p.join(max(0.0, deadline - time.monotonic()))
            for p in procs:
                if p.exitcode is None:
                    p.kill()
            for p in procs:
                p.join(5)
            for pid in programs:        # a worker ended by the signal's default leaves them running: gone too
                _signal(pid, signal.SIGTERM)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _go_on(proc):
    """SIGCONT to ``proc``, a worker that may be stopped; nothing when it has already ended."""
    _signal(proc.pid, signal.SIGCONT)


def _signal(pid, sig):
    """``sig`` to process ``pid``; nothing when it has already ended."""
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _children(pid):
    """The processes that worker ``pid`` runs (the fast checker: a child process), which its end by SIGTERM's
    or SIGKILL's default would leave running on their own (Linux's /proc; elsewhere none are known)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
            return [int(x) for x in f.read().split()]
    except (OSError, ValueError):
        return []


def _no_replacements(pool):
    """The pool's worker thread (``_worker_handler``, the pool's own) stopped: it forks no replacement for a
    worker that ends from now on. Nothing to do when that thread never started (a pool whose start failed)."""
    handler = getattr(pool, "_worker_handler", None)
    if handler is None or handler.ident is None:
        return
    handler._state = mp.pool.TERMINATE
    pool._change_notifier.put(None)
    handler.join(5)
