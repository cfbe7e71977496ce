"""The web app: the page (play/static/, served as is: no build step, nothing from other hosts) and its
JSON API. Every answer to bad input is a 4xx with ``{"error": "<one line>"}``; solver work is bounded
per request (state limits here and in play/hints.py, play/verdicts.py; time limits and a cap on jobs in
flight in play/jobs.py).

    POST /api/deal      {"deal": N} | {"code": "SOL1-..."} | {"board": "text"}   -> the start position
    POST /api/moves     {"position": P, "cells": K}                             -> every legal move
    POST /api/move      {"position": P, "cells": K, "move": {"card", "to"}, "autoplay": bool}
    POST /api/autoplay  {"position": P, "cells": K}                             -> the safe automatic moves
    POST /api/hint      {"position": P, "cells": K}                             -> the next move of a line
    POST /api/verdict   (as /api/deal)                                          -> winnable / unwinnable / unknown
    GET  /api/random?difficulty=any|easy|medium|hard[&seed=S]                  -> a deal proven winnable
    GET  /api/daily?date=YYYY-MM-DD                                             -> the day's deal
    GET  /api/files/<stem>/<stem>.cert | .lean                                  -> certificate, standalone Lean file
"""
import asyncio
import contextlib
import datetime
import json
import logging
import os
import re
from concurrent.futures import ThreadPoolExecutor

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from . import catalog, engine, moves, wire
from .hints import Hints
from .jobs import Busy, Jobs, TimedOut
from .verdicts import DEFAULT_CACHE_MAX, Verdicts

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CACHE = os.path.join(ROOT, "out", "play-cache")
MAX_BODY = 32 * 1024           # bytes of a request body (a position is under 1 KB, a pasted board 4 KB)
HINT_TIMEOUT = 3.0             # seconds a hint request waits
VERDICT_TIMEOUT = 30.0         # seconds a verdict request waits (the work goes on and fills the cache)
PICK_TIMEOUT = 10.0            # seconds a random / daily request may spend trying candidates
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
SECURITY_HEADERS = [(b"content-security-policy", b"default-src 'self'; img-src 'self' data:; "
                     b"frame-ancestors 'none'"), (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer")]


def _error(message, status):
    return JSONResponse({"error": message}, status_code=status)


START_KEYS = ("deal", "code", "board")
POSITION_KEYS = ("position", "cells")
MOVE_KEYS = POSITION_KEYS + ("move", "autoplay")


def _once_each(pairs):
    """A JSON object whose keys differ (as the certificate reader asks of a header): ``{"deal":1,"deal":2}``
    is refused, not read as deal 2."""
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise wire.BadRequest(f"the request body has the key {k[:40]!r} twice")
        obj[k] = v
    return obj


async def read_json(request: Request, allowed):
    """The request body as a JSON object with only the keys ``allowed``, each once; BadRequest 413 past
    MAX_BODY bytes, 400 when not JSON, with an unknown key or a key twice."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise wire.BadRequest(f"the request body is larger than {MAX_BODY:,} bytes", 413)
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise wire.BadRequest(f"the request body is larger than {MAX_BODY:,} bytes", 413)
    try:
        body = json.loads(data.decode("utf-8"), object_pairs_hook=_once_each)
    except wire.BadRequest:
        raise
    except (UnicodeDecodeError, ValueError) as exc:
        where = f" (line {exc.lineno}, column {exc.colno})" if hasattr(exc, "lineno") else ""
        raise wire.BadRequest(f"the request body is not JSON{where}") from None
    except RecursionError:
        raise wire.BadRequest("the request body is nested too deeply") from None
    if not isinstance(body, dict):
        raise wire.BadRequest("the request body must be a JSON object")
    return wire.known_keys(body, allowed)


def _start_json(start):
    return {"start": wire.position_json(start.position), "cells": start.cells, "label": start.label,
            "deal": start.deal, "code": start.code, "stem": start.stem,
            "known_unsolvable": start.deal is not None and catalog.is_known_unsolvable(start.deal)}


def _verdict_json(v):
    out = {k: v[k] for k in v if k != "cache_version"}
    if v["verdict"] == "unwinnable":
        base = f"/api/files/{v['stem']}/"
        out["downloads"] = {"certificate": base + v["certificate"]["file"], "lean": base + v["lean_file"]}
    return out


class Api:
    def __init__(self, cache_dir=None, hint_states=engine.PLAY_HINT_STATES, verdict_states=engine.PLAY_VERDICT_STATES,
                 hint_timeout=HINT_TIMEOUT, verdict_timeout=VERDICT_TIMEOUT, workers=2, slots=4,
                 prerender_lean=True, cache_max=DEFAULT_CACHE_MAX):
        self.verdicts = Verdicts(cache_dir or DEFAULT_CACHE, verdict_states, cache_max)
        self.hints = Hints(hint_states)
        self.jobs = Jobs(workers, slots)
        self.renders = ThreadPoolExecutor(max_workers=1, thread_name_prefix="play-render")
        self.hint_timeout = hint_timeout
        self.verdict_timeout = verdict_timeout
        self.prerender_lean = prerender_lean

    @staticmethod
    async def _position(request, allowed=POSITION_KEYS):
        body = await read_json(request, allowed)
        cells = wire.cells_of(body)
        return body, wire.position_from(body.get("position"), cells), cells

    async def deal(self, request):
        start = wire.start_from(await read_json(request, START_KEYS))
        return JSONResponse(_start_json(start))

    async def legal(self, request):
        _, pos, cells = await self._position(request)
        listed = [{"card": engine.card_name(c), "to": wire.place_json(d), "count": k,
                   "text": _move_text(pos, c, d, k)} for c, d, k in moves.legal(pos, cells)]
        free = cells - len(pos[1])
        empty = sum(1 for col in pos[0] if not col)
        return JSONResponse({"moves": listed, "free_cells": free, "empty_columns": empty,
                             "limit": moves.supermove_limit(pos, cells, None),
                             "limit_to_empty": (free + 1) * 2 ** max(empty - 1, 0)})

    async def move(self, request):
        body, pos, cells = await self._position(request, MOVE_KEYS)
        card, dst = wire.move_from(body.get("move"))
        auto = body.get("autoplay", False)
        if not isinstance(auto, bool):
            raise wire.BadRequest("autoplay must be true or false")
        try:
            after, steps = moves.play(pos, cells, card, dst)
            auto_steps = []
            if auto:
                after, auto_steps = moves.autoplay(after, cells)
        except engine.IllegalMove as exc:
            return JSONResponse({"error": str(exc), "illegal": True}, status_code=422)
        return JSONResponse({"position": wire.position_json(after), "steps": [wire.step_json(s) for s in steps],
                             "auto": [wire.step_json(s) for s in auto_steps],
                             "won": after[2] == (13, 13, 13, 13)})

    async def autoplay(self, request):
        _, pos, cells = await self._position(request)
        after, steps = moves.autoplay(pos, cells)
        return JSONResponse({"position": wire.position_json(after), "auto": [wire.step_json(s) for s in steps],
                             "won": after[2] == (13, 13, 13, 13)})

    async def hint(self, request):
        _, pos, cells = await self._position(request)
        try:
            return JSONResponse(await self.jobs.run(self.hint_timeout, self.hints.compute, pos, cells))
        except TimedOut:
            return JSONResponse({"status": "unknown", "text": f"No line found within the time limit "
                                 f"({self.hint_timeout:g} s). This does not mean there is none."})

    async def _verdict(self, start):
        v = self.verdicts.cached(start)
        if v is None:
            v = await self.jobs.run(self.verdict_timeout, self.verdicts.compute, start)
        if v["verdict"] == "unwinnable" and self.prerender_lean:
            self.renders.submit(self.verdicts.file, v["stem"], v["lean_file"])
        return v

    async def verdict(self, request):
        start = wire.start_from(await read_json(request, START_KEYS))
        try:
            return JSONResponse(_verdict_json(await self._verdict(start)))
        except TimedOut:
            return JSONResponse({"verdict": "unknown", "pending": True, "stem": start.stem,
                                 "text": "Still working on it: ask again in a moment."})

    async def _pick(self, candidates, want):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + PICK_TIMEOUT
        for n in candidates:
            if loop.time() > deadline:
                break
            try:
                v = await self._verdict(engine.start_from(deal=n))
            except TimedOut:
                continue
            if v["verdict"] == "winnable" and want in ("any", v["difficulty"]):
                return {"deal": n, "difficulty": v["difficulty"], "length": v["length"]}
        raise wire.BadRequest("no deal of that kind was found within the time limit; try again", 503)

    async def random(self, request):
        q = request.query_params
        want = q.get("difficulty", "any")
        if want not in ("any",) + catalog.DIFFICULTIES:
            raise wire.BadRequest(f"difficulty must be any, easy, medium or hard, got {want[:20]!r}")
        seed = q.get("seed")
        if seed is not None and not (seed.isascii() and seed.isdigit() and len(seed) <= 18):
            raise wire.BadRequest(f"seed must be a whole number, got {seed[:20]!r}")
        return JSONResponse(await self._pick(catalog.random_candidates(None if seed is None else int(seed)), want))

    async def daily(self, request):
        text = request.query_params.get("date") or datetime.date.today().isoformat()
        try:
            if not DATE.match(text):
                raise ValueError
            datetime.date.fromisoformat(text)
        except ValueError:
            raise wire.BadRequest(f"date must be a calendar date YYYY-MM-DD, got {text[:20]!r}") from None
        found = await self._pick(catalog.daily_candidates(text), "any")
        return JSONResponse(dict(found, date=text))

    async def files(self, request):
        stem, name = request.path_params["stem"], request.path_params["name"]
        fut = self.renders.submit(self.verdicts.file, stem, name)
        path = await asyncio.wrap_future(fut)
        kind = "application/octet-stream" if name.endswith(".cert") else "text/plain; charset=utf-8"
        return FileResponse(path, media_type=kind, filename=name)

    def shutdown(self):
        self.jobs.shutdown()
        self.renders.shutdown(wait=False, cancel_futures=True)


def _move_text(pos, card, dst, count):
    name = engine.pretty_name(card)
    what = name if count == 1 else f"{name} and the {count - 1} on it"
    if dst == engine.HOME:
        return f"{what} to its foundation"
    if dst == engine.CELL:
        return f"{what} to a free cell"
    target = pos[0][dst]
    return f"{what} onto {engine.pretty_name(target[-1])} (column {dst + 1})" if target else \
        f"{what} to the empty column {dst + 1}"


async def _index(request):
    return FileResponse(os.path.join(STATIC, "index.html"), media_type="text/html; charset=utf-8")


LOG = logging.getLogger("uvicorn.error")      # the server's log: one line for a client gone mid-request


def _guard(handler):
    """One-line JSON errors for the API's own refusals (never a traceback, never a 500 for bad input); a
    client that disconnects during its upload is one line in the server's log."""
    async def wrapped(request):
        try:
            return await handler(request)
        except ClientDisconnect:
            LOG.warning("%s %s: the client disconnected before its request body arrived", request.method,
                        request.url.path[:80])
            return _error("the client disconnected", 400)
        except wire.BadRequest as exc:
            return _error(str(exc), exc.status)
        except Busy as exc:
            resp = _error(str(exc), 429)
            resp.headers["retry-after"] = "1"
            return resp
    return wrapped


async def _http_error(request, exc):
    words = {404: "no such page or API endpoint", 405: "method not allowed here"}
    return _error(f"{words.get(exc.status_code, exc.detail)}: {request.method} {request.url.path[:80]}",
                  exc.status_code)


async def _internal_error(request, exc):    # pragma: no cover - a bug; still one line, no traceback
    return _error(f"internal error ({type(exc).__name__}); please report it", 500)


class SecurityHeaders:
    """Pure ASGI middleware: a strict Content-Security-Policy (everything from this server only)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + SECURITY_HEADERS
            await send(message)
        return await self.app(scope, receive, send_with_headers)


def create_app(**options):
    """The Starlette app; ``options`` go to :class:`Api` (cache_dir, state and time limits, ...)."""
    api = Api(**options)
    routes = [
        Route("/", _index),
        Route("/api/deal", _guard(api.deal), methods=["POST"]),
        Route("/api/moves", _guard(api.legal), methods=["POST"]),
        Route("/api/move", _guard(api.move), methods=["POST"]),
        Route("/api/autoplay", _guard(api.autoplay), methods=["POST"]),
        Route("/api/hint", _guard(api.hint), methods=["POST"]),
        Route("/api/verdict", _guard(api.verdict), methods=["POST"]),
        Route("/api/random", _guard(api.random), methods=["GET"]),
        Route("/api/daily", _guard(api.daily), methods=["GET"]),
        Route("/api/files/{stem}/{name}", _guard(api.files), methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(_app):
        yield
        api.shutdown()

    app = Starlette(routes=routes, exception_handlers={HTTPException: _http_error, Exception: _internal_error},
                    lifespan=lifespan)
    app.state.api = api
    return SecurityHeaders(app)
