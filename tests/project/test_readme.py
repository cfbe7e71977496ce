"""The README's commands run as written after `make setup`: the instruction to use the checkout's virtual
environment comes once, before the first `python …` command; every `python -m MODULE COMMAND` of the README
and of docs/*.md names a module and a command that exist; the README is short and links every doc; and the
figures the docs repeat agree with their one source in the code."""
import re

import pytest

from helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
ACTIVATE = ". .venv/bin/activate"
COMMAND = re.compile(r"(?<![\w/.])python (?:-m ([\w.]+)(?: ([a-z][\w-]*))?|scripts/)")   # a module: a package


def _activate_line():
    """The index of the README's line, inside a ```sh block, that activates the venv."""
    block = None
    for i, line in enumerate(README):
        if line.startswith("```"):
            block = line.strip()[3:] if block is None else None
        elif block == "sh" and line.startswith(ACTIVATE):
            return i
    return None


def test_the_venv_instruction_comes_before_every_python_command():
    at = _activate_line()
    assert at is not None, f"no `{ACTIVATE}` line in a sh block of the README"
    early = [(i + 1, line) for i, line in enumerate(README[:at]) if COMMAND.search(line)]
    assert early == [], f"python commands before the instruction to activate the venv: {early}"
    assert sum(ACTIVATE in line for line in README) <= 3        # said once (and pointed back to)


DOCS = sorted((ROOT / "docs").glob("*.md"))


def _commands():
    found = set()
    for line in README + [line for doc in DOCS for line in doc.read_text(encoding="utf-8").splitlines()]:
        for m in COMMAND.finditer(line):
            if m.group(1):
                found.add((m.group(1), m.group(2)))
    return sorted(found, key=str)


@pytest.mark.parametrize("module,command", _commands())
def test_every_readme_command_exists(module, command):
    assert module in ("solver", "certgen", "play"), module
    if module == "play":
        from play.cli import build_parser
    else:
        build_parser = __import__(f"{module}.cli", fromlist=["build_parser"]).build_parser
    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    assert command is None or command in sub.choices, f"python -m {module} {command}: no such command"


def test_the_readme_is_short_and_indexes_every_doc():
    assert len(README) <= 150
    text = "\n".join(README)
    missing = [doc.name for doc in DOCS if f"(docs/{doc.name})" not in text]
    assert missing == [], f"docs not in the README's index: {missing}"
    assert max(len(line) for line in README) <= 130


def test_no_work_log_in_the_docs():
    for path in [ROOT / "README.md"] + DOCS:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"[Ss]essions? [0-9]+", text), path.name


def test_the_play_pages_thresholds_are_the_codes():
    # the README said 110/125 (from an older measurement) where play/catalog.py grades 113/127
    from play import catalog
    text = " ".join((ROOT / "docs" / "PLAY.md").read_text(encoding="utf-8").split())
    assert f"Easy up to {catalog.EASY_MAX} single-card moves, Medium {catalog.EASY_MAX + 1}–{catalog.MEDIUM_MAX}, " \
           f"Hard {catalog.MEDIUM_MAX + 1} or more" in text


def test_the_coq_tables_winning_lines_are_the_solvers():
    # the table said 121 moves for deal 1 where `make prove DEAL=1` and prove-coq print 143
    from solver.rules import STANDARD
    from solver.solve import solve
    from solver.source import load
    rows = [line for line in (ROOT / "docs" / "COQ.md").read_text(encoding="utf-8").splitlines()
            if re.match(r"\| \d+ \| winnable \|", line)]
    assert len(rows) == 3
    for row in rows:
        deal, moves = re.match(r"\| (\d+) \| winnable \| (\d+) moves", row).groups()
        assert solve(load(deal=int(deal)).position, STANDARD).length == int(moves), row


def test_readme_says_a_damaged_certificate_exits_2():
    for doc in ("README.md", "docs/COMMANDS.md"):
        text = (ROOT / doc).read_text(encoding="utf-8").replace("\n  ", " ")    # a list item's lines joined
        row = next(line for line in text.splitlines() if line.startswith(("| `python -m certgen check",
                                                                            "- `python -m certgen check")))
        assert re.search(r"exit 2\b.*damaged", row), row
