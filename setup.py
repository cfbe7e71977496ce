# The C search core (solver._fc) and the checker's replay of winning lines (certgen._fcreplay, from
# checker/fccheck.c) are compiled by cffi (API mode) when the package is installed: `pip install -e .`
from setuptools import setup

setup(cffi_modules=["solver/_build.py:ffibuilder", "certgen/_build_replay.py:ffibuilder"])
