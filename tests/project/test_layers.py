"""The layering of the packages, read from their import statements (anywhere in a module, functions too):

  * solver/ is the engine and never imports certgen;
  * only the binding, solver/search.py, imports the compiled C core (solver._fc);
  * certgen imports solver's public modules, never the engine's command line (solver.cli);
  * the web app (play/) reaches solver and certgen through one adapter, play/engine.py, which imports
    their public names only and neither command line; solver and certgen never import play;
  * imports inside functions only where start-up time needs them (`python -m solver deal` and `explore`
    must not pay for json, tqdm, hashlib, the C core, ...), each listed here with its reason.
"""
import ast
import re
from collections import Counter

from helpers import ROOT
from helpers.imports import imports


def modules(package, root=ROOT):
    return sorted((root / package).glob("*.py"))


def offending(package, bad, allowed_files=()):
    return [f"{p.relative_to(ROOT)}:{line} imports {name}" for p in modules(package) if p.name not in allowed_files
            for name, line, _ in imports(p) if bad(name)]


def test_the_import_reader_sees_every_form(tmp_path):
    # the rules below are only as good as the reader: it must see relative, absolute and nested imports
    pkg = tmp_path / "solver"
    pkg.mkdir()
    f = pkg / "m.py"
    f.write_text("import certgen.render\nfrom ._fc import lib\n\ndef g():\n    from . import _fc\n"
                 "    from solver.cli import main\n")
    names = {(n, fn) for n, _, fn in imports(f)}
    assert {("certgen.render", None), ("solver._fc", None), ("solver._fc", "g"), ("solver.cli", "g")} <= names


def test_the_engine_never_imports_certgen():
    assert offending("solver", lambda n: n == "certgen" or n.startswith("certgen.")) == []


def test_only_the_binding_imports_the_c_core():
    assert offending("solver", lambda n: n.startswith("solver._fc"), allowed_files=("search.py",)) == []
    assert offending("certgen", lambda n: n.startswith("solver._fc")) == []


def test_certgen_never_imports_the_engines_command_line():
    assert offending("certgen", lambda n: n in ("solver.cli", "solver.__main__") or n.startswith("solver.cli.")) == []


def test_certgen_imports_only_public_names_of_the_engine():
    assert offending("certgen", lambda n: n.startswith("solver.") and "._" in n) == []


def _engine_or_certgen(n):
    return n.split(".")[0] in ("solver", "certgen")


def test_only_the_adapter_of_the_web_app_imports_the_engine():
    assert offending("play", _engine_or_certgen, allowed_files=("engine.py",)) == []
    assert {n.split(".")[0] for n, _, _ in imports(ROOT / "play" / "engine.py")} >= {"solver", "certgen"}


def test_the_adapter_imports_public_names_and_no_command_line():
    bad = ("solver.cli", "solver.__main__", "certgen.cli", "certgen.__main__")
    assert [n for n, _, _ in imports(ROOT / "play" / "engine.py") if _engine_or_certgen(n)
            and ("._" in n or any(n == b or n.startswith(b + ".") for b in bad))] == []


def test_the_engine_and_certgen_never_import_the_web_app():
    assert offending("solver", lambda n: n.split(".")[0] == "play") == []
    assert offending("certgen", lambda n: n.split(".")[0] == "play") == []


# Imports inside functions, and why (everything else is imported at the top of its module).
LAZY = {
    ("solver/atomic.py", "_write_atomic"): "tempfile: only when a file is written, not on `explore`'s start-up",
    ("solver/cli.py", "cmd_explore"): "the C core and the replay machinery: not for `deal`",
    ("solver/cli.py", "_explore_report"): "the replay machinery (solver.lines): not for `deal`",
    ("solver/cli.py", "cmd_analyze"): "the C core, svg: not for `deal`",
    ("solver/cli.py", "cmd_solve"): "the C core: not for `deal`",
    ("solver/cli.py", "cmd_survey"): "the C core, multiprocessing: not for `deal`",
    ("solver/progress.py", "bar"): "tqdm: only when a bar is shown",
    ("solver/search.py", "_interruptible"): "threading: only for the solver's blocking calls, not for `explore`",
    ("solver/report.py", "write_json"): "json: only with --json",
    ("solver/report.py", "analysis_picture"): "svg (xml.sax, urllib): only with --svg",
    ("solver/rules.py", "spec"): "solver.spec (typing): not for `deal` or `explore`",
    ("solver/source.py", "stem"): "hashlib: not for `deal`",
    ("solver/source.py", "load"): "solver.games and solver.siggysoft (hashlib): only for --code",
    ("solver/cli.py", "_survey_difficulty"): "the C core: only for survey --difficulty",
    ("solver/cli.py", "_is_difficulty_journal"): "solver.difficulty (the C core): only for a plain survey's --out",
    ("solver/cli.py", "cmd_rules"): "the supermove limit: not for `deal`",
    ("solver/cli.py", "cmd_deal"): "os.urandom and siggysoft for --random, games for other games' codes",
    ("solver/cli.py", "_other_game"): "solver.games (hashlib): only for another game's code",
    ("solver/cli.py", "_explore_hand"): "solver.hand: only with --hand",
    ("solver/report.py", "exposed_pictures"): "svg: only with --svg-dir",
    ("solver/analyze.py", "exposing_positions"): "solver.packed: only for the exposing positions",
    ("solver/errors.py", "main_of"): "the command's CLI module: imported inside the Ctrl-C handler",
    ("certgen/cli.py", "cmd_build"): "certgen.prove (jinja2, the renderers): not for check or info",
    ("certgen/cli.py", "cmd_render"): "certgen.render (jinja2): only for render",
    ("certgen/cli.py", "cmd_render_shipped"): "certgen.render (jinja2): only for render-shipped",
    ("certgen/cli.py", "cmd_spec_doc"): "certgen.specdoc: only for spec-doc",
    ("certgen/cli.py", "cmd_prove"): "certgen.prove (jinja2, the renderers): not for check or info",
    ("certgen/cli.py", "cmd_prove_known"): "certgen.prove: only for prove-known",
    ("certgen/cli.py", "cmd_audit"): "certgen.audit: only for audit",
    ("certgen/cli.py", "cmd_prove_win"): "certgen.prove: only for prove-win",
    ("certgen/cli.py", "cmd_prove_coq"): "certgen.prove: only for prove-coq",
    ("certgen/cli.py", "cmd_audit_coq"): "certgen.coqcheck: only for audit-coq",
    ("certgen/cli.py", "cmd_survey"): "certgen.survey and solver.survey (multiprocessing, the journal): only for survey",
    ("certgen/cli.py", "cmd_certify_list"): "certgen.certify and solver.survey (the prove pipeline, the journal): only for certify-list",
    ("certgen/cli.py", "cmd_prove_survey"): "certgen.prove: only for prove-survey",
    ("certgen/survey.py", "dask_client"): "dask.distributed: the optional extra `cluster`, only with --engine dask",
    ("certgen/survey.py", "_dask"): "dask.distributed: the optional extra `cluster`, only with --engine dask",
    ("play/cli.py", "_size"): "play.engine (the solver): not for `--help` or a bad option",
    ("play/cli.py", "cannot_listen"): "socket: only when the server starts",
    ("play/cli.py", "serve"): "uvicorn and play.app: the optional extra `web`, refused in one line without it",
    ("play/wire.py", "_shown"): "json: only to word a bad request",
}


def test_imports_inside_functions_are_the_listed_ones():
    found = {(str(p.relative_to(ROOT)), func) for pkg in PACKAGES for p in modules(pkg)
             for _, _, func in imports(p) if func is not None}
    assert found == set(LAZY)


def test_scripts_import_the_installed_package():
    # `make setup` installs the packages into .venv in editable mode: a script imports them as they are
    edits = sorted(p.name for p in (ROOT / "scripts").glob("*.py") if "sys.path" in p.read_text(encoding="utf-8"))
    assert edits == []


# Public functions of certgen/ with no caller outside tests/, and why they stay.
TEST_ONLY = {}


def test_every_public_function_of_certgen_has_a_caller_outside_the_tests():
    words = Counter(w for d in ("solver", "certgen", "play", "scripts") for p in sorted((ROOT / d).glob("*.py"))
                    for w in re.findall(r"\w+", p.read_text(encoding="utf-8")))
    unused = {(str(p.relative_to(ROOT)), node.name) for p in modules("certgen")
              for node in ast.parse(p.read_text(encoding="utf-8")).body
              if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
              and words[node.name] == 1}                                       # its own `def` only
    assert unused == set(TEST_ONLY)
PACKAGES = ("solver", "certgen", "play")


def import_graph(root=ROOT):
    """Module -> the modules of solver/, certgen/ and play/ it imports (at module level or in a function)."""
    mods = {f"{pkg}.{p.stem}": p for pkg in PACKAGES for p in sorted((root / pkg).glob("*.py"))}
    graph = {}
    for name, path in mods.items():
        targets = set()
        for imported, _, _ in imports(path):
            while imported and imported not in mods:       # solver.lines.judge -> solver.lines
                imported = imported.rpartition(".")[0]
            if imported and imported != name and not imported.endswith(".__init__"):
                targets.add(imported)
        graph[name] = targets
    return graph


def cycles(graph):
    """Every import circle, each once, as its modules in order (first the smallest name)."""
    found = set()

    def walk(start, node, path):
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                found.add(tuple(path))
            elif nxt > start and nxt not in path:
                walk(start, nxt, path + [nxt])
    for start in sorted(graph):
        walk(start, start, [start])
    return sorted(" -> ".join(c + (c[0],)) for c in found)


def test_the_cycle_finder_finds_a_circle_through_a_function_level_import(tmp_path):
    for pkg in PACKAGES:
        (tmp_path / pkg).mkdir()
    (tmp_path / "solver" / "a.py").write_text("from . import b\n")
    (tmp_path / "solver" / "b.py").write_text("def f():\n    from .c import g\n")
    (tmp_path / "solver" / "c.py").write_text("import solver.a\n")
    (tmp_path / "solver" / "d.py").write_text("from solver import a\n")
    assert cycles(import_graph(tmp_path)) == ["solver.a -> solver.b -> solver.c -> solver.a"]


def test_no_import_circles():
    # module-level and function-level imports alike: a function-local import hides a circle, it does not end it
    assert cycles(import_graph()) == []
