"""The JSON forms of the API: positions, moves and the start of a game, read strictly.

A position is ``{"cols": [[card, ...] x 8], "cells": [card, ...], "home": [C, D, H, S]}`` with the
columns listed bottom card first and cards named as Freecell Solver names them ("TS", "AH"); a place is
a column number 1..8, "cell" or "home"; a move is ``{"card": "5H", "to": 3}``. Every reader raises
:class:`BadRequest` with one line naming the problem.
"""
from . import engine

MAX_BOARD_TEXT = 4000          # characters of a pasted board


class BadRequest(Exception):
    """A request the API refuses (HTTP 400 unless ``status`` says otherwise); one-line message."""

    def __init__(self, message, status=400):
        super().__init__(" ".join(str(message).split()))
        self.status = status


def _card(value, what):
    if not isinstance(value, str) or len(value) > 8:
        raise BadRequest(f"{what}: expected a card name such as \"TS\", got {_shown(value)}")
    try:
        return engine.parse_card(value)
    except engine.FreecellError:
        raise BadRequest(f"{what}: {_shown(value)} is not a card (rank A 2-9 T J Q K, suit C D H S)") from None


def _shown(value, limit=30):
    import json
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def cells_of(body):
    """The rules' number of free cells (default 4)."""
    n = body.get("cells", 4)
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= engine.MAX_CELLS:
        raise BadRequest(f"cells must be a whole number from 0 to {engine.MAX_CELLS}, got {_shown(n)}")
    return n


def position_from(value, cells):
    """A validated engine position from its JSON form."""
    if not isinstance(value, dict):
        raise BadRequest("position: expected an object with cols, cells and home")
    extra = sorted(set(value) - {"cols", "cells", "home"})
    if extra:
        raise BadRequest(f"position: unknown field {_shown(extra[0])}")
    cols, cell_cards, home = value.get("cols"), value.get("cells", []), value.get("home", [0, 0, 0, 0])
    if not isinstance(cols, list) or len(cols) != 8 or not all(isinstance(c, list) for c in cols):
        raise BadRequest("position: cols must be a list of 8 columns (lists of cards, bottom first)")
    if sum(len(c) for c in cols) > 52:
        raise BadRequest("position: more than 52 cards in the columns")
    if not isinstance(cell_cards, list) or len(cell_cards) > engine.MAX_CELLS:
        raise BadRequest(f"position: cells must be a list of at most {engine.MAX_CELLS} cards")
    if not isinstance(home, list) or len(home) != 4 or \
            any(isinstance(h, bool) or not isinstance(h, int) or not 0 <= h <= 13 for h in home):
        raise BadRequest("position: home must be 4 foundation heights 0..13 (clubs, diamonds, hearts, spades)")
    pos = (tuple(tuple(_card(c, f"column {i + 1}") for c in col) for i, col in enumerate(cols)),
           tuple(_card(c, "free cells") for c in cell_cards), tuple(home))
    try:
        return engine.check_position(pos, cells)
    except engine.FreecellError as exc:
        raise BadRequest(f"position: {str(exc).removeprefix('board: ')}") from None


def position_json(pos):
    return {"cols": [[engine.card_name(c) for c in col] for col in pos[0]],
            "cells": [engine.card_name(c) for c in pos[1]], "home": list(pos[2])}


def place_from(value, what="to"):
    if value in ("cell", "home"):
        return engine.CELL if value == "cell" else engine.HOME
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 8:
        return value - 1
    raise BadRequest(f"{what}: expected a column 1..8, \"cell\" or \"home\", got {_shown(value)}")


def place_json(p):
    return "cell" if p == engine.CELL else "home" if p == engine.HOME else p + 1


def move_from(value):
    """(card, destination) of a player's move ``{"card": ..., "to": ...}``."""
    if not isinstance(value, dict) or "card" not in value or "to" not in value:
        raise BadRequest("move: expected an object {\"card\": \"5H\", \"to\": 3 | \"cell\" | \"home\"}")
    extra = sorted(set(value) - {"card", "to"}, key=str)
    if extra:       # the card's place is the position's business: a "from" or "count" would be ignored
        raise BadRequest(f"move: unknown key {_shown(extra[0])}: a move takes card, to")
    return _card(value["card"], "move"), place_from(value["to"], "move: to")


def step_json(step):
    """A single spec move (card, src, dst)."""
    card, src, dst = step
    return {"card": engine.card_name(card), "from": place_json(src), "to": place_json(dst)}


def known_keys(body, allowed):
    """``body`` when it has only the keys ``allowed``; else one line naming the first unknown key (a
    misspelt "cels" is not silently the default)."""
    extra = sorted(set(body) - set(allowed))
    if extra:
        raise BadRequest(f"unknown key {_shown(extra[0])}: this request takes "
                         + ", ".join(sorted(allowed)))
    return body


def start_from(body):
    """The engine's Start from ``{"deal": N}``, ``{"code": "SOL1-..."}`` or ``{"board": "text"}``."""
    given = [k for k in ("deal", "code", "board") if body.get(k) is not None]
    if len(given) != 1:
        raise BadRequest("give exactly one of deal (a number), code (a SiggySoft deal code) or board (text)")
    key = given[0]
    value = body[key]
    if key == "deal" and (isinstance(value, bool) or not isinstance(value, int)):
        # A number, not text: "5" is refused (the page sends numbers); the limit as the engine prints it.
        kind = "text" if isinstance(value, str) else "a boolean" if isinstance(value, bool) else \
            "a number with a point or an exponent" if isinstance(value, float) else "null" if value is None else "not a number"
        raise BadRequest(f"deal must be a whole number from 1 to {engine.MAX_DEAL}, got {_shown(value)} ({kind}; "
                         f"send a JSON number)")
    elif key != "deal" and not isinstance(value, str):
        raise BadRequest(f"{key} must be text, got {_shown(value)}")
    elif key == "board" and len(value) > MAX_BOARD_TEXT:
        raise BadRequest(f"board: the text is longer than {MAX_BOARD_TEXT} characters")
    elif key == "code" and len(value) > 200:
        raise BadRequest("code: longer than any deal code (200 characters)")
    try:
        return engine.start_from(**{"board_text" if key == "board" else key: value})
    except engine.FreecellError as exc:
        raise BadRequest(str(exc)) from None
