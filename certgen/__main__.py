import sys

try:
    from .cli import main
    sys.exit(main())
except KeyboardInterrupt:       # Ctrl-C while starting up (the imports) or shutting down
    sys.exit(130)
