"""``python -m certgen``: see :mod:`certgen.cli`. A Ctrl-C while the modules are imported is one line and
exit status 130, as in ``python -m solver`` (solver/__main__.py, which says what is not covered)."""
try:
    from .cli import main
    status = main()
except KeyboardInterrupt as exc:        # Ctrl-C while the modules are imported (or on the way out)
    import sys
    from solver.errors import interrupted
    print(interrupted(exc), file=sys.stderr)
    status = 130
raise SystemExit(status)
