"""``python -m solver``: see :mod:`solver.cli`.

A Ctrl-C is one line (solver.errors.INTERRUPTED) and exit status 130 from the first line of this file on:
while the modules are imported too, not only in the command (solver.cliargs.run says it there). The
interpreter's own start-up before this file runs (its site modules, runpy, the empty solver/__init__.py)
runs no code of ours: a Ctrl-C there is still Python's KeyboardInterrupt traceback."""
if __name__ == "__main__":
    try:
        from .cli import main
        status = main()
    except KeyboardInterrupt as exc:    # Ctrl-C while the modules are imported (or on the way out)
        import sys
        from .errors import interrupted     # imports nothing: already loaded, or quick to load again
        print(interrupted(exc), file=sys.stderr)
        status = 130
    raise SystemExit(status)
