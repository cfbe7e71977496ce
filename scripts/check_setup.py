#!/usr/bin/env python3
"""What `make setup` needs before it builds anything, checked with the Python that will make the venv.

`python3 scripts/check_setup.py` prints one line `error: …` saying what to install and exits 1 when
something is missing: the `venv` module (with ensurepip), the C headers, a C compiler (the one setuptools
will call: $CC, else the compiler Python was built with) and zlib's header (the core links zlib: the disk
search compresses its files). cffi compiles the C core with them; without this check pip fails after a
page of setuptools output. (The Makefile checks the Python version itself, in a line any Python can run.)
Run as `--installed` with the venv's Python after the install: the package, the compiled core and the
dependencies must import, under the package's own name and version.
"""
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig

def venv_problem():
    try:
        import ensurepip  # noqa: F401  (Debian splits it off into python3-venv)
        import venv  # noqa: F401
    except ImportError:
        return "this Python cannot make a virtual environment: install python3-venv (e.g. apt-get install python3-venv)"
    return None


def headers_problem():
    include = sysconfig.get_paths().get("include") or ""
    if not os.path.exists(os.path.join(include, "Python.h")):
        return (f"the Python C headers are missing (no Python.h in {include}): install them "
                f"(e.g. apt-get install python3-dev)")
    return None


def compiler_command(environ=os.environ):
    cc = environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    parts = shlex.split(cc)
    return parts[0] if parts else "cc"


def compiler_problem(environ=os.environ):
    cc = compiler_command(environ)
    if shutil.which(cc) is None:
        return f"no C compiler ({cc} is not found): install a C compiler (e.g. apt-get install gcc)"
    return None


def zlib_problem(environ=os.environ):
    """The C core links zlib (the disk search compresses its files): its header must be found."""
    cc = environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    try:
        p = subprocess.run(shlex.split(cc) + ["-E", "-"], input="#include <zlib.h>\n", capture_output=True,
                           text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None                     # the compiler itself: compiler_problem says so
    if p.returncode != 0:
        return "the zlib headers are missing (no zlib.h): install them (e.g. apt-get install zlib1g-dev)"
    return None


def installed_problem():
    try:
        from importlib.metadata import PackageNotFoundError, version
        try:
            got = version("freecell-proof")
        except PackageNotFoundError:
            return ("pip installed the package under another name (an old setuptools?): "
                    "run `make clean setup`")
        import certgen  # noqa: F401
        import jinja2  # noqa: F401
        import msgpack  # noqa: F401
        import certgen._fcreplay  # noqa: F401
        import solver._fc  # noqa: F401
        import tqdm  # noqa: F401
    except ImportError as e:
        return f"the installation is incomplete ({e}): run `make clean setup`"
    return None if got else "the package has no version: run `make clean setup`"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv in (["--help"], ["-h"]):
        print(__doc__.strip())
        return 0
    unknown = argv[1:] if argv[:1] == ["--installed"] else argv
    if unknown:
        print(f"error: unrecognized arguments: {' '.join(unknown)} (it takes --installed or nothing)", file=sys.stderr)
        return 2
    checks = [installed_problem] if argv == ["--installed"] else \
        [venv_problem, headers_problem, compiler_problem, zlib_problem]
    for check in checks:
        why = check()
        if why:
            print(f"error: {why}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
