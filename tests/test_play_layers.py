"""The web app reaches the engine and the Lean side through one adapter: play/engine.py is the only
module of play/ that imports solver or certgen (so adapting to a change of their APIs is one file), and
neither solver nor certgen imports play."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported_packages(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_only_the_adapter_imports_the_engine():
    offenders = {p.name: sorted(imported_packages(p) & {"solver", "certgen"})
                 for p in sorted((ROOT / "play").glob("*.py")) if p.name != "engine.py"}
    assert {k: v for k, v in offenders.items() if v} == {}
    assert imported_packages(ROOT / "play" / "engine.py") >= {"solver", "certgen"}


def test_the_engine_does_not_import_the_app():
    users = [str(p.relative_to(ROOT)) for pkg in ("solver", "certgen") for p in sorted((ROOT / pkg).glob("*.py"))
             if "play" in imported_packages(p)]
    assert users == []
