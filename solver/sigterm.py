"""SIGTERM taken as Ctrl-C: while a command runs (solver/cliargs.py's runner; and the jobs that must stop their
workers or keep their files: the disk search, the surveys, a journal, coqc), SIGTERM raises
:class:`solver.errors.Terminated`, a KeyboardInterrupt said as SIGTERM, so that it takes every Ctrl-C path:
one line, exit status 130. Light on purpose (os, signal, threading): every command imports it."""
import os
import signal
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
    return signal.signal(signal.SIGTERM, _raise_terminated)


def _raise_terminated(signum, frame):
    """Terminated in the process that asked for it. In a process forked from it (a pool's worker before its
    initializer set SIGTERM back to the default) the default: the process ends, killed by SIGTERM. Raising
    there let the exception be swallowed in the fork's bootstrap (multiprocessing prints "Exception ignored")
    and the worker went on to wait for tasks, so a pool's terminate() (which sends SIGTERM, then joins)
    waited for ever: a survey of one quick deal with --jobs 2 hung about once in ten runs."""
    if os.getpid() != _term_owner:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise Terminated


def restore_term(old):
    if old is not None:
        signal.signal(signal.SIGTERM, old)
