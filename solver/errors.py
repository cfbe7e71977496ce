"""The one error type user-facing code raises.

Every problem a person can cause (a bad deal number, an unreadable or malformed board, a bad deal code)
is reported as a :class:`FreecellError` whose message is a single line. The command line prints it as
``error: <message>`` on stderr and exits with status 2; it never shows a traceback for one.

Also the words a Ctrl-C is said in (INTERRUPTED, TERMINATED) and the command lines' entry (:func:`main_of`),
which says them while the modules are imported: this module imports nothing.
"""


class FreecellError(Exception):
    """A user-facing error with a one-line message."""

    def __init__(self, message):
        # Keep the promise of one line even if a caller passes something multi-line.
        message = " ".join(str(message).split("\n")).strip()
        super().__init__(message)

    @property
    def message(self):
        return self.args[0] if self.args else ""


def printable(text) -> str:
    """``text`` with every character that does not print (a newline, a terminal's escape) written as its
    escape (``\\n``, ``\\x1b``): a path or a value from the command line shown in a message cannot start a
    line of its own nor drive the terminal."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(text))


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``timeout``, a batch scheduler) where a search turns it into the Ctrl-C path
    (solver/disksearch.py, to remove or keep its files): handled as Ctrl-C is, with the same exit status,
    but said as what it was (TERMINATED)."""


INTERRUPTED = "interrupted (Ctrl-C): stopped before an answer, nothing is claimed"
OUT_OF_MEMORY = ("out of memory: stopped before an answer, so nothing is claimed (a search: try a smaller "
                 "--max-states, or a smaller --memory; a check: check --reference --sample N)")
TERMINATED = "stopped (SIGTERM) before an answer, nothing is claimed"


def interrupted(exc):
    """The one line a command says for a Ctrl-C (``exc``, a KeyboardInterrupt), exit status 130: here, for
    the command lines' runner (solver.cliargs.run) and for :func:`main_of` while it imports it."""
    return TERMINATED if isinstance(exc, Terminated) else INTERRUPTED


def main_of(module, stopped=None):
    """``python -m solver`` and ``python -m certgen`` (their ``__main__``): exit with ``module``'s ``main()``
    (solver.cli, certgen.cli), imported here, so that a Ctrl-C while the modules are imported is one line
    too and exit status 130, and so is a SIGTERM (the ``__main__`` modules take it as Ctrl-C before they call
    this: solver/sigterm.py; the commands' own Ctrl-C is the runner's, solver.cliargs.run). Not covered: the
    interpreter's own start-up before our code runs (its site modules, runpy, the packages' empty
    ``__init__``, this module's and solver/sigterm.py's import), where a Ctrl-C is still Python's
    KeyboardInterrupt traceback and a SIGTERM ends the process without a word. ``stopped``: called with True
    before an exit with status 130 (solver.sigterm.ignore_when_taken)."""
    try:
        import importlib
        status = importlib.import_module(module).main()
    except KeyboardInterrupt as exc:    # Ctrl-C while the modules are imported (or on the way out)
        import sys
        print(interrupted(exc), file=sys.stderr)
        status = 130
    except MemoryError:                 # while the modules are imported (the commands' own: the runner's)
        import sys
        print(f"error: {OUT_OF_MEMORY}", file=sys.stderr)
        status = 1
    if status == 130 and stopped is not None:   # stopped while the modules were imported too: the SIGTERMs
        stopped(True)                           # after the one line ignored to the end, as the runner has them
    raise SystemExit(status)


class InternalError(Exception):
    """A bug caught by a check (e.g. a solver's line that does not replay): one line, exit status 1."""


class WorkerLost(Exception):
    """A worker process of a pool ended abruptly (a signal sent to it alone: SIGKILL from the kernel's
    out-of-memory killer or ``kill -9``, a SIGTERM; the line says which when the pool knows,
    solver.workers.lost): the result it was computing will never come. One line, exit status 1 (nothing is
    claimed for the deals it held; a resumable survey goes on from its journal when started again)."""
