"""SIGTERM taken as Ctrl-C: while a command runs (solver/cliargs.py's runner; and the jobs that must stop their
workers or keep their files: the disk search, the surveys, a journal, coqc), SIGTERM raises
:class:`solver.errors.Terminated`, a KeyboardInterrupt said as SIGTERM, so that it takes every Ctrl-C path:
one line, exit status 130; a SIGTERM after that one is ignored until the process ends (:func:`_taken`), and so is
one after the line of a command stopped by Ctrl-C (:func:`ignore_when_taken`). Light on purpose (os, signal,
sys, threading): every command imports it."""
import os
import signal
import sys
import threading

from .errors import Terminated


_term_owner = None      # the process that set _raise_terminated (its forked children inherit the handler)


def term_as_interrupt():
    """From now on (in the main thread), SIGTERM raises Terminated (a KeyboardInterrupt): the Ctrl-C path
    (said as SIGTERM, solver.errors.TERMINATED). Returns the handler it replaced (None outside the main
    thread), for :func:`restore_term`. A process forked from this one inherits the handler; there SIGTERM
    keeps its default meaning (:func:`_raise_terminated`)."""
    global _term_owner
    if threading.current_thread() is not threading.main_thread():
        return None
    _term_owner = os.getpid()
    if sys.unraisablehook is not _dropped:
        _python_hook[:] = [sys.unraisablehook]
        sys.unraisablehook = _dropped
    return signal.signal(signal.SIGTERM, _raise_terminated)


_python_hook = []       # sys.unraisablehook before _dropped took its place


def _dropped(unraisable):
    """sys.unraisablehook: an exception Python drops ("Exception ignored in": raised in a weakref callback such as
    importlib's module locks', a __del__). A Terminated there did not stop anything, and the SIGTERMs after a
    first are ignored (:func:`_taken`): SIGTERM is taken as Ctrl-C again and sent again a moment later, from a
    thread (sent from here, its handler would run here, in the hook, and be dropped too), to raise where it
    can; nothing said. Any other: Python's hook."""
    if isinstance(unraisable.exc_value, Terminated) and os.getpid() == _term_owner:
        signal.signal(signal.SIGTERM, _raise_terminated)
        again = threading.Timer(0.01, os.kill, (os.getpid(), signal.SIGTERM))
        again.daemon = True
        try:
            again.start()
        except RuntimeError:        # no thread can start (the interpreter ends): here, at worst dropped again
            os.kill(os.getpid(), signal.SIGTERM)
        return
    _python_hook[0](unraisable)


def _raise_terminated(signum, frame):
    """Terminated in the process that asked for it, once (the SIGTERMs after it: :func:`_taken`). In a process
    forked from it (a pool's worker before its initializer set SIGTERM back to the default) the default: the
    process ends, killed by SIGTERM. Raising there let the exception be swallowed in the fork's bootstrap
    (multiprocessing prints "Exception ignored") and the worker went on to wait for tasks, so a pool's
    terminate() (which sends SIGTERM, then joins) waited for ever: a survey of one quick deal with --jobs 2
    hung about once in ten runs."""
    if _forked():
        return
    signal.signal(signal.SIGTERM, _taken)
    raise Terminated


def _taken(signum, frame):
    """SIGTERM once one was taken as Ctrl-C: ignored in that process, on its way out (its one line said once, exit
    status 130, not a death by the signal as the process ends); in a process forked from it, the default, as in
    :func:`_raise_terminated` (a pool's worker must end when the pool sends it SIGTERM)."""
    _forked()


def _forked():
    """In a process forked from the one that set the handler: SIGTERM's default meaning, the signal sent again
    (the process ends, killed by SIGTERM); True there."""
    if os.getpid() == _term_owner:
        return False
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
    return True


def restore_term(old):
    """SIGTERM's handler back to ``old`` (what :func:`term_as_interrupt` returned), unless a SIGTERM was taken: the
    next ones are then ignored until the process ends (:func:`_taken`)."""
    if old is not None and signal.getsignal(signal.SIGTERM) is not _taken:
        signal.signal(signal.SIGTERM, old)


def ignore_when_taken(stopped=False):
    """As a command ends (solver/cliargs.py's runner, its last step): once a SIGTERM was taken, or the command
    stopped on a Ctrl-C (``stopped``), the next SIGTERMs are ignored by the system (SIG_IGN), as the
    interpreter's finalization puts a Python handler (:func:`_taken`, :func:`_raise_terminated`) back to the
    default, and a SIGTERM then ended the process (exit status 143) after its one line. Nothing is forked after
    it (a fork would inherit SIG_IGN)."""
    if threading.current_thread() is not threading.main_thread():
        return
    if stopped or signal.getsignal(signal.SIGTERM) is _taken:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
