"""``python -m certgen``: see :mod:`certgen.cli`; a Ctrl-C or SIGTERM while it is imported: solver.errors.main_of."""
from solver.errors import main_of   # a module of a few classes and strings: it imports nothing
from solver.sigterm import ignore_when_taken, term_as_interrupt    # light (os, signal, sys, threading)
term_as_interrupt()                 # SIGTERM as Ctrl-C from here on, while the modules are imported too
main_of("certgen.cli", ignore_when_taken)
