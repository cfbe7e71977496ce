"""coqc for tests: where it is, the skip without it, compiling a file after the library, a state as a Coq
term, and a theorem's statement checked."""
import shutil

import pytest

from certgen import coqcheck

COQC = shutil.which("coqc")
needs_coqc = pytest.mark.skipif(COQC is None, reason="no coqc: install Debian's coq (apt-get install -y coq)")


def coqc_file(path, out_dir):
    assert coqcheck.build_library(COQC, out_dir) is None
    return coqcheck.run_coqc(COQC, path, out_dir)


def state_term(s):
    cols = "; ".join("[" + "; ".join(f"card {c.rank} {c.suit}" for c in col) + "]" for col in s.cols)
    cells = "; ".join(f"card {c.rank} {c.suit}" for c in s.cells)
    return f"state [{cols}] [{cells}] [{'; '.join(map(str, s.home))}]"


def statement_checks(theorems):
    """Coq text: each theorem given the statement written here (a changed statement fails to type), then its
    assumptions printed."""
    return "".join(f"Definition check_{n} : {st} := {n}.\nPrint Assumptions {n}.\n" for n, st in theorems.items())
