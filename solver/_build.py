"""cffi API-mode builder of the C search core: `solver._fc` from solver/fc.h (the cdef) and the C files of
solver/ (docs/ARCHITECTURE.md, "The C core").

Run by setuptools (setup.py's cffi_modules) on `pip install -e .`, i.e. by `make setup`.
"""
import os

from cffi import FFI

# the core's files, one job each (docs/ARCHITECTURE.md, "The C core"); fc_internal.h and ddd_internal.h hold what
# they share
CORE = ("position", "key", "moves", "store", "search", "records", "best", "solve", "line", "ddd_files", "ddd_search", "ddd_state")

here = os.path.dirname(os.path.abspath(__file__))
ffibuilder = FFI()
with open(os.path.join(here, "fc.h")) as f:
    ffibuilder.cdef(f.read())
ffibuilder.set_source(
    "solver._fc",
    '#include <stdint.h>\n#include "fc.h"',
    sources=[f"solver/{name}.c" for name in CORE],
    include_dirs=["solver"],
    libraries=["z"],          # zlib: the disk search's files (ddd_files.c)
    extra_compile_args=["-O2", "-std=c99", "-DNDEBUG", "-Wall", "-Wno-unused-function"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
