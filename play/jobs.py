"""Bounded solver work: a few worker threads, a cap on jobs in flight, and a time limit per request.

Every search the API starts has a state limit (its own bound on time and memory: the C core stores at
most that many positions). On top of that a request waits at most ``timeout`` seconds for its answer;
a job that is still running then finishes in the background (its result may still fill a cache) but
holds its slot until it ends, and when all slots are taken a new request is refused at once
(:class:`Busy`, HTTP 429) instead of queueing without end. The C core releases the GIL while it works,
so the server keeps answering other requests meanwhile.
"""
import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor


class Busy(Exception):
    """Every slot is taken: try again in a moment."""


class TimedOut(Exception):
    """The job did not finish within the request's time limit."""


class Jobs:
    def __init__(self, workers=2, slots=4):
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="play-solver")
        self._slots = threading.BoundedSemaphore(slots)

    async def run(self, timeout, fn, *args):
        """``fn(*args)`` in a worker thread; its result, or TimedOut / Busy."""
        if not self._slots.acquire(blocking=False):
            raise Busy("the solver is busy with other requests; try again in a moment")
        try:
            fut = self._pool.submit(fn, *args)
        except BaseException:
            self._slots.release()
            raise
        fut.add_done_callback(lambda _f: self._slots.release())
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(fut)), timeout)
        except asyncio.TimeoutError:
            raise TimedOut(f"no answer within the time limit of {timeout:g} s") from None

    def shutdown(self):
        self._pool.shutdown(wait=False, cancel_futures=True)
