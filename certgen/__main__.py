"""``python -m certgen``: see :mod:`certgen.cli`; a Ctrl-C while it is imported: solver.errors.main_of."""
from solver.errors import main_of   # a module of a few classes and strings: it imports nothing
main_of("certgen.cli")
