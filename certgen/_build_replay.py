"""cffi API-mode builder of ``certgen._fcreplay``: the independent checker's replay of winning lines.

It compiles checker/fccheck.c -- the fast certificate checker, which shares no source with the search core
(solver/*.c) -- in its library mode (-DFCCHECK_LIBRARY: the rules, the dealer and the records, none of
the certificate reader, so no zlib). Run by setuptools (setup.py's cffi_modules) on `pip install -e .`.
"""
import os

from cffi import FFI

DECLARATIONS = """
int fcc_replay(uint64_t deal, int cells, int foundation_return, const uint16_t *codes, int n);
int fcc_replay_deals(uint64_t first, int count, int cells, int foundation_return, const int32_t *len,
                     const uint64_t *offset, const uint16_t *codes, int32_t *result);
"""

here = os.path.dirname(os.path.abspath(__file__))
ffibuilder = FFI()
ffibuilder.cdef(DECLARATIONS)
ffibuilder.set_source(
    "certgen._fcreplay",
    "#include <stdint.h>\n" + DECLARATIONS,
    sources=["checker/fccheck.c"],
    define_macros=[("FCCHECK_LIBRARY", "1")],
    extra_compile_args=["-O2", "-std=c99", "-Wall", "-Wno-unused-function"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
