"""Where things are in the checkout: the one module that knows its folders and files."""
import os
import shutil

from solver.errors import printable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATES = os.path.join(ROOT, "certgen", "templates")        # the jinja2 templates of the Lean files
LEAN_SRC = os.path.join(ROOT, "lean")                         # the Lean library (lakefile.lean: srcDir)
SPEC_LEAN = os.path.join(LEAN_SRC, "FreeCell", "Spec.lean")
CERT_LEAN = os.path.join(LEAN_SRC, "FreeCell", "Cert.lean")
DECODE_LEAN = os.path.join(LEAN_SRC, "FreeCell", "Decode.lean")
GENERATED = os.path.join(LEAN_SRC, "FreeCell", "Generated")   # rendered modules: FreeCell.Generated.*
AUDIT_FILE = os.path.join(LEAN_SRC, "Audit.lean")
SPEC_PY = os.path.join(ROOT, "solver", "spec.py")
COQ_SRC = os.path.join(ROOT, "coq", "FreeCell")               # the Coq library (certgen/coqcheck.py)
SPEC_COQ = os.path.join(COQ_SRC, "Spec.v")
OUT = os.path.join(ROOT, "out")                               # certificates and standalone files
KNOWN_TABLE = os.path.join(ROOT, "docs", "KNOWN.md")
INSTALL_LEAN = os.path.join(ROOT, "scripts", "install_lean.sh")

PROVERS = ("lean", "coq")                                    # the pipeline's provers, in its order (lake, coqc)


def on_path(program):
    """``program`` as PATH finds it, as an absolute path (the tools run in folders of their own, where a
    relative PATH entry such as ``bin`` names nothing), or None."""
    found = shutil.which(program)
    return os.path.abspath(found) if found else None


def shown(path):
    """A path as people read it: relative to the checkout when it lies inside it, on one line (a control
    character is written as its escape, so a name cannot start a line of the output of its own)."""
    path = os.path.abspath(path)
    text = os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path
    return printable(text)
