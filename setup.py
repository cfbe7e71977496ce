# The C search core is compiled by cffi (API mode) when the package is installed: `pip install -e .`
from setuptools import setup

setup(cffi_modules=["solver/_build.py:ffibuilder"])
