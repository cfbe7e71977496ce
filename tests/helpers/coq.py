"""coqc for tests: where it is, the skip without it, compiling a file after the library, a state as a Coq
term, a theorem's statement checked, and a mutant refused both ways."""
import shutil

import pytest

from certgen import coq, coqcheck

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


def coq_refuses(bad, out, stem, check):
    """The mutant ``bad`` rendered as a certificate fails coqc (``certificate_ok`` does not type); rendered as a
    mutant, ``Lemma mutant_rejected : CHECK = false`` is proved."""
    path, _ = coq.render_cert(bad, out, stem=stem)
    run = coqc_file(path, out)
    assert not run.ok and "while it is expected to have type" in run.output, run.output[-2000:]
    path, ctx = coq.render_cert(bad, out, mutant=True, stem=stem + "Mutant")
    assert f"Lemma mutant_rejected : {check} = false." in open(path, encoding="utf-8").read()
    run = coqc_file(path, out)
    assert run.ok, run.output[-2000:]
