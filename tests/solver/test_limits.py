"""solver/limits.py holds every default limit (positions a search may store) and every bytes-a-position
figure; no other module of solver/, certgen/ or play/ defines one, and limits.py imports nothing (``--help``
reads it without the C core)."""
import ast
import re

from helpers import ROOT

# A name that says it is a limit or a cost a position, or a figure written in decimal from a million up.
LIMIT_NAME = re.compile(r"STATES|LIMIT|BYTES_PER|PER_STATE|PER_POSITION|PER_RECORD")

# Constants that look like limits and are not, and why.
NOT_LIMITS = {
    ("certgen/certificate.py", "MAX_STATES"): "the certificate format's bound on records (build/fccheck has it too)",
    ("certgen/certificate.py", "LEVEL9_MAX"): "the records up to which a body is compressed at zlib level 9",
    ("certgen/render.py", "KERNEL_MAX_STATES"): "the kernel form's bound on the certificates it renders",
    ("solver/siggysoft.py", "MAX_NUMBERED"): "the deal code format's numbered deals, 1 to 1,000,000",
    ("play/catalog.py", "RANDOM_RANGE"): "the deals the page draws a random one from",
    ("certgen/usertext.py", "LIMIT"): "characters of a user's text kept in a generated file's comment",
}


def _decimal_figure(node):
    """An int written as one decimal literal of at least 1,000,000 (``1 << 20`` is a size, not a figure)."""
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 1_000_000


def limit_constants(root=ROOT):
    """(file, name) of every module-level constant of solver/, certgen/, play/ that is a limit by its name or
    its value, limits.py's left out."""
    out = set()
    for pkg in ("solver", "certgen", "play"):
        for p in sorted((root / pkg).glob("*.py")):
            rel = str(p.relative_to(root))
            if rel == "solver/limits.py":
                continue
            for node in ast.parse(p.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.Assign):
                    names, value = [t.id for t in node.targets if isinstance(t, ast.Name)], node.value
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                    names, value = [node.target.id], node.value
                else:
                    continue
                out |= {(rel, n) for n in names if n.isupper() and (LIMIT_NAME.search(n) or _decimal_figure(value))}
    return out


def test_the_scan_finds_a_limit_by_name_or_by_figure(tmp_path):
    for pkg in ("solver", "certgen", "play"):
        (tmp_path / pkg).mkdir()
    (tmp_path / "solver" / "a.py").write_text("DEFAULT_MAX_STATES = 3_000_000\nCHUNK = 1 << 20\nFOO = 2_000_000\n")
    (tmp_path / "play" / "b.py").write_text("SERVER_BYTES_PER_POSITION = 7\nEASY_MAX = 113\n")
    (tmp_path / "solver" / "limits.py").write_text("SOLVE_STATES = 3_000_000\n")
    assert limit_constants(tmp_path) == {("solver/a.py", "DEFAULT_MAX_STATES"), ("solver/a.py", "FOO"),
                                         ("play/b.py", "SERVER_BYTES_PER_POSITION")}


def test_only_limits_defines_limits():
    assert limit_constants() == set(NOT_LIMITS)


def test_limits_imports_nothing():
    tree = ast.parse((ROOT / "solver" / "limits.py").read_text(encoding="utf-8"))
    assert [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))] == []
