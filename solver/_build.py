"""cffi API-mode builder of the C search core: `solver._fc` from solver/fc.h (the cdef) and solver/fc.c.

Run by setuptools (setup.py's cffi_modules) on `pip install -e .`, i.e. by `make setup`.
"""
import os

from cffi import FFI

here = os.path.dirname(os.path.abspath(__file__))
ffibuilder = FFI()
with open(os.path.join(here, "fc.h")) as f:
    ffibuilder.cdef(f.read())
ffibuilder.set_source(
    "solver._fc",
    '#include <stdint.h>\n#include "fc.h"',
    sources=["solver/fc.c"],
    include_dirs=["solver"],
    libraries=["z"],          # zlib: the disk search's files (fc.c, "The files")
    extra_compile_args=["-O2", "-std=c99", "-DNDEBUG", "-Wall", "-Wno-unused-function"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
