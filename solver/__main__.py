"""``python -m solver``: see :mod:`solver.cli`."""
import sys

from .cli import main

if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:   # Ctrl-C while starting up or shutting down
        sys.exit(130)
