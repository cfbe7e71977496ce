"""``python -m solver``: see :mod:`solver.cli`; a Ctrl-C while it is imported: solver.errors.main_of."""
if __name__ == "__main__":
    from .errors import main_of     # a module of a few classes and strings: it imports nothing
    main_of("solver.cli")
