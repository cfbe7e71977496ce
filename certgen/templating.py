"""The jinja2 environment every generated file is rendered with (templates in certgen/templates/, the Coq
ones in certgen/templates/coq/): undefined names are errors, nothing is escaped (user text reaches a
template only through certgen.usertext.user_text)."""
import functools

import jinja2

from .paths import TEMPLATES

LEAN_VERSION = "4.35.0"
GENERATOR = "freecell-proof certgen"


def read_text(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


@functools.lru_cache(maxsize=None)
def _env():
    """One environment a process: it keeps each template compiled once."""
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                              autoescape=False)


def render_text(template: str, **context) -> str:
    """The template (a path below certgen/templates/) filled in with ``context``."""
    return _env().get_template(template).render(generator=GENERATOR, lean_version=LEAN_VERSION, **context)
