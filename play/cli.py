"""``python -m play serve``: the FreeCell page on http://127.0.0.1:8000 (loopback only unless --host).

Bad input gives one line ``error: …`` and exit status 2. The page and its API need the ``web`` extra
(``pip install -e '.[web]'``; ``make play`` installs it).
"""
import argparse
import os
import sys

PROG = "python -m play"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)


def _port(text):
    # solver/numbers.py's reading (digits only), written out: play reaches solver through play/engine.py only
    if not (text.isascii() and text.isdigit() and len(text) <= 5) or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"--port must be a whole number from 1 to 65535, got {text!r}")
    return int(text)


def build_parser():
    p = _Parser(prog=PROG, description="FreeCell in the browser, with proofs: winning lines replayed under "
                "the spec rules, unwinnable deals with a certificate and a Lean theorem.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    s = sub.add_parser("serve", help="start the web app (default http://127.0.0.1:8000)")
    s.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 opens it to the network)")
    s.add_argument("--port", type=_port, default=8000, help="port (default 8000)")
    s.add_argument("--cache-dir", default=None,
                   help="where verdicts, certificates and Lean files are kept (default out/play-cache)")
    s.add_argument("--cache-max", type=_size, default=None, metavar="SIZE",
                   help="the most the cache may hold, e.g. 1G or 500M (default 1G); the deals least recently "
                        "used are removed first")
    s.add_argument("--quiet", action="store_true", help="no request log")
    return p


def _size(text):
    from .engine import size_of             # solver's reading of a size (K, M, G, T), through play/engine.py
    try:
        return size_of(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cannot_listen(host, port):
    """Why the server could not listen on ``host``:``port`` (the port taken, the address not this machine's,
    a name that does not resolve), or None: the bind is tried here, as uvicorn would, before uvicorn
    starts, so the answer is one line instead of its log."""
    import socket
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        return f"the address does not resolve ({getattr(exc, 'strerror', None) or exc})"
    family, kind, proto, _, addr = infos[0]
    try:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)     # as uvicorn does
            sock.bind(addr)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def serve(args):
    try:
        import uvicorn
        from .app import DEFAULT_CACHE, create_app
    except ImportError as exc:
        print(f"error: the web extra is not installed ({exc.name} is missing): "
              f"run `pip install -e '.[web]'` or `make play`", file=sys.stderr)
        return 2
    cache = os.path.abspath(args.cache_dir or DEFAULT_CACHE)
    try:
        if os.path.exists(cache) and not os.path.isdir(cache):
            raise NotADirectoryError(20, "it is not a folder")
        os.makedirs(cache, exist_ok=True)
        if not os.access(cache, os.W_OK | os.X_OK):
            raise PermissionError(13, "it is not writable")
    except OSError as exc:
        print(f"error: cannot use {cache} as the cache directory: {exc.strerror or exc}", file=sys.stderr)
        return 2
    shown = f"[{args.host}]" if ":" in args.host else args.host
    why = cannot_listen(args.host, args.port)
    if why is not None:
        print(f"error: cannot listen on {shown}:{args.port}: {why}", file=sys.stderr)
        return 2
    app = create_app(cache_dir=cache, **({} if args.cache_max is None else {"cache_max": args.cache_max}))
    print(f"FreeCell with proofs: http://{shown}:{args.port}/  (cache {cache}; Ctrl-C stops it)", flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning" if args.quiet else "info")
    except OSError as exc:
        print(f"error: cannot listen on {shown}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.command != "serve":
        build_parser().print_help()
        return 2
    return serve(args)
