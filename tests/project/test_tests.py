"""The tests' own layout (docs/TESTING.md): laid out like the source, every test file in tests/solver/,
tests/certgen/, tests/play/ or tests/project/, none directly in tests/; and no test module imports another
(what several share is a fixture in a conftest.py or a plain function in tests/helpers/)."""
import re

from helpers import ROOT
from helpers.imports import imports

TESTS = ROOT / "tests"
FOLDERS = ("certgen", "play", "project", "solver")
# an import written in a program's text (a string run by a subprocess) too
IMPORT_LINE = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", re.M)


def names_of_test_modules():
    return {p.stem for p in TESTS.rglob("test_*.py")} | {"conftest", "tests"}


def offenders(path, banned):
    """`FILE:LINE imports NAME` for each import in the file at ``path`` of a module named in ``banned`` (NAME: the
    first component of the module's name), read as statements and in the file's text (a program in a string)."""
    found = {(line, name.split(".")[0]) for name, line, _ in imports(path) if name.split(".")[0] in banned}
    text = path.read_text(encoding="utf-8")
    for m in IMPORT_LINE.finditer(text):
        name = (m.group(1) or m.group(2)).split(".")[0]
        if name in banned:
            found.add((text.count("\n", 0, m.start(m.lastindex)) + 1, name))
    return [f"{path.name}:{line} imports {name}" for line, name in sorted(found)]


def test_no_test_file_sits_directly_in_tests():
    assert sorted(p.name for p in TESTS.glob("*.py")) == ["conftest.py"]
    folders = sorted(p.name for p in TESTS.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == sorted(FOLDERS + ("helpers",)), folders
    assert sorted(str(p.relative_to(TESTS)) for p in TESTS.rglob("test_*.py") if p.parent.name not in FOLDERS) == []
    assert all(any(TESTS.joinpath(f).glob("test_*.py")) for f in FOLDERS)


def test_no_test_module_imports_another():
    banned = names_of_test_modules()
    assert "test_core" in banned and "test_tests" in banned
    assert [line for p in sorted(TESTS.rglob("*.py")) for line in offenders(p, banned)] == []


def test_the_check_sees_every_form_of_an_import_of_a_test_module(tmp_path):
    f = tmp_path / "test_x.py"
    f.write_text("import os\nfrom test_core import ms\n\n\ndef g():\n    import conftest\n    from tests.solver import "
                 "test_cli\n\n\nPROGRAM = '''\nfrom test_disksearch import DEEP\n'''\nfrom helpers import ROOT\n")
    assert offenders(f, {"test_core", "test_disksearch", "conftest", "tests"}) == [
        "test_x.py:2 imports test_core", "test_x.py:6 imports conftest", "test_x.py:7 imports tests",
        "test_x.py:11 imports test_disksearch"]
