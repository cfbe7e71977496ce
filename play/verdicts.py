"""The verdict of a deal, with what proves it, cached in memory and on disk.

For a start position the verdict is
  * "winnable": the solver's line, replayed move by move under the spec (engine.find_line), which the
    page can step through; plus the Lean statement such a line proves (`make prove-win`);
  * "unwinnable": only after the spec enumeration of every reachable position completed without a win;
    then the whole set is analysed (frozen cards, most cards home) and written as a certificate into
    the cache, and the standalone Lean file is rendered from it on demand;
  * "unknown": the limit stopped the searches; nothing is claimed.

Files live in ``<cache>/<stem>/`` (``verdict.json``, ``<stem>.cert``, ``<stem>.lean``), each written
atomically (a temporary file, then a rename), so a crash never leaves half a certificate. The cache is
bounded (``cache_max`` bytes, default DEFAULT_CACHE_MAX): after a verdict or a file is written, the
folders least recently used go first (a folder's time is touched on each use) until the rest fits.
"""
import contextlib
import json
import os
import re
import shutil
import threading

from . import catalog, engine, wire

REMEMBERED = 2_000                 # verdicts kept in memory (the rest are read back from the disk cache)
CACHE_VERSION = 2                  # 2: difficulty from the free-cells survey for deals 1..32000
DEFAULT_CACHE_MAX = 1 << 30        # bytes of the disk cache (1 GB); #11982's verdict writes 2.3 MB
STEM = re.compile(r"^[A-Za-z0-9]{1,64}$")


class Verdicts:
    def __init__(self, cache_dir, max_states=engine.PLAY_VERDICT_STATES, cache_max=DEFAULT_CACHE_MAX):
        self.cache_dir = os.path.abspath(cache_dir)
        self.max_states = max_states
        self.cache_max = cache_max
        self._memory = {}
        self._locks = {}
        self._guard = threading.Lock()

    def _lock(self, key):
        with self._guard:
            return self._locks.setdefault(key, threading.Lock())

    def folder(self, stem):
        if not STEM.match(stem):
            raise wire.BadRequest(f"no such verdict: {stem[:40]!r}", 404)
        return os.path.join(self.cache_dir, stem)

    def _used(self, stem):
        """Mark the folder of ``stem`` as just used (its time), for the least-recently-used trim."""
        with contextlib.suppress(OSError):
            os.utime(self.folder(stem))

    def trim(self, keep=None):
        """Remove the folders least recently used until the cache holds at most ``cache_max`` bytes (never
        ``keep``, the folder just written). Returns the stems removed."""
        with self._guard:
            sizes, times = {}, {}
            with contextlib.suppress(OSError):
                for entry in os.scandir(self.cache_dir):
                    if entry.is_dir(follow_symlinks=False) and STEM.match(entry.name):
                        times[entry.name] = entry.stat().st_mtime
                        sizes[entry.name] = sum(f.stat().st_size for f in os.scandir(entry.path)
                                                if f.is_file(follow_symlinks=False))
            total, removed = sum(sizes.values()), []
            for stem in sorted(times, key=times.get):
                if total <= self.cache_max:
                    break
                if stem == keep:
                    continue
                shutil.rmtree(os.path.join(self.cache_dir, stem), ignore_errors=True)
                self._memory.pop(stem, None)
                total -= sizes[stem]
                removed.append(stem)
            return removed

    def cached(self, start):
        """The verdict if it is known already, else None (no work)."""
        stem = start.stem
        if stem in self._memory:
            self._used(stem)
            return self._memory[stem]
        path = os.path.join(self.folder(stem), "verdict.json")
        try:
            with open(path, encoding="utf-8") as f:
                v = json.load(f)
        except (OSError, ValueError):
            return None
        if v.get("cache_version") != CACHE_VERSION or v.get("start") != wire.position_json(start.position) \
                or v.get("verdict") == "unknown" and v.get("max_states", 0) < self.max_states:
            return None
        self._keep(stem, v)
        self._used(stem)
        return v

    def _keep(self, stem, v):
        with self._guard:
            self._memory[stem] = v
            while len(self._memory) > REMEMBERED:
                self._memory.pop(next(iter(self._memory)))

    def compute(self, start):
        """The verdict of ``start`` (blocking; runs in a worker thread). One computation per stem."""
        with self._lock(start.stem):
            v = self.cached(start)
            if v is None:
                v = self._compute(start)
                engine.write_atomic(os.path.join(self.folder(start.stem), "verdict.json"), json.dumps(v))
                self._keep(start.stem, v)
                self.trim(keep=start.stem)
            return v

    def _compute(self, start):
        line = engine.find_line(start.position, start.cells, self.max_states)
        v = {"cache_version": CACHE_VERSION, "stem": start.stem, "label": start.label, "deal": start.deal,
             "cells": start.cells, "start": wire.position_json(start.position), "verdict": line.verdict,
             "states": line.states, "seconds": round(line.seconds, 4), "max_states": self.max_states,
             "known_unsolvable": start.deal is not None and catalog.is_known_unsolvable(start.deal)}
        if line.verdict == "winnable":
            v["line"] = [wire.step_json(m) for m in line.moves]
            v["length"] = len(line.moves)
            v["difficulty"], v["graded_by"] = catalog.grade(start.deal, start.cells, len(line.moves))
            v["statement"] = engine.winnable_statement(start)
        elif line.verdict == "unwinnable":
            v.update(self._proof(start))
        return v

    def _proof(self, start):
        verdict, states, max_home, frozen = engine.analyse(start.position, start.cells, self.max_states)
        if verdict != "unwinnable":       # pragma: no cover - two enumerations of one set disagree
            raise RuntimeError(f"the analysis says {verdict} where the enumeration said unwinnable")
        cert = os.path.join(self.folder(start.stem), f"{start.stem}.cert")
        cert_states = engine.write_certificate(start, cert, self.max_states)
        return {"reachable": states, "max_home": max_home,
                "frozen": [engine.card_name(c) for c in frozen],
                "certificate": {"file": f"{start.stem}.cert", "bytes": os.path.getsize(cert),
                                "states": cert_states},
                "lean_file": f"{start.stem}.lean",
                "statement": engine.unwinnable_statement(start)}

    def file(self, stem, name):
        """The path of a downloadable file of a computed unwinnable verdict (the Lean file is rendered
        on first request). BadRequest 404 for anything else."""
        folder = self.folder(stem)
        if name not in (f"{stem}.cert", f"{stem}.lean"):
            raise wire.BadRequest(f"no such file: {name[:60]!r}", 404)
        cert = os.path.join(folder, f"{stem}.cert")
        if not os.path.isfile(cert):
            raise wire.BadRequest(f"no certificate for {stem}: ask for the verdict first", 404)
        path = os.path.join(folder, name)
        if name.endswith(".lean"):
            with self._lock(stem + ".lean"):
                if not os.path.isfile(path):
                    engine.write_lean(cert, path)
                    self.trim(keep=stem)
        self._used(stem)
        return path
