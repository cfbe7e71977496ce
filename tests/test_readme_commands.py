"""The README's commands run as written after `make setup` (issue 10, item 13): the instruction to use the
checkout's virtual environment comes once, before the first `python …` command, and every
`python -m MODULE COMMAND` names a module and a command that exist."""
import re

import pytest

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
ACTIVATE = ". .venv/bin/activate"
COMMAND = re.compile(r"(?<![\w/.])python (?:-m (\w+)(?: ([a-z][\w-]*))?|scripts/)")


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


def _commands():
    found = set()
    for line in README:
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
