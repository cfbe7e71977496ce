"""Hints: the next move of a winning line from the position on the table.

The solver searches from the position (at most ``max_states`` positions, and the request's time limit
in play/jobs.py); its line is replayed under the spec before anything is shown (engine.find_line). The
answer is the line's first move; "no line found within the limit" when the search stopped; "no winning
line from here" only when the enumeration of every position reachable from here completed without a
win. A verified line is remembered position by position, so a player who follows the hints gets the
next ones without a new search.
"""
import threading
from collections import OrderedDict

from . import engine, moves, wire

REMEMBERED = 100_000          # positions of verified lines kept in memory


class Hints:
    def __init__(self, max_states=engine.PLAY_HINT_STATES, capacity=REMEMBERED):
        self.max_states = max_states
        self.capacity = capacity
        self._lines = OrderedDict()       # position key -> the verified line's remaining moves
        self._guard = threading.Lock()

    def remembered(self, pos, cells):
        key = engine.position_key(pos, cells)
        with self._guard:
            rest = self._lines.get(key)
            if rest is not None:
                self._lines.move_to_end(key)
            return rest

    def _remember(self, pos, cells, line):
        points = [pos] + engine.line_positions(pos, line, cells)
        with self._guard:
            for k, p in enumerate(points[:-1]):
                self._lines[engine.position_key(p, cells)] = tuple(line[k:])
            while len(self._lines) > self.capacity:
                self._lines.popitem(last=False)

    def answer(self, pos, cells, rest, states=0, seconds=0.0, remembered=False):
        step = rest[0]
        return {"status": "move", "move": wire.step_json(step), "text": moves.describe(step, pos),
                "remaining": len(rest), "states": states, "seconds": round(seconds, 4),
                "remembered": remembered}

    def compute(self, pos, cells):
        """The hint for ``pos`` (blocking: runs in a worker thread)."""
        if pos[2] == (13, 13, 13, 13):
            return {"status": "won", "text": "The game is won: every card is on its foundation."}
        rest = self.remembered(pos, cells)
        if rest:
            return self.answer(pos, cells, rest, remembered=True)
        line = engine.find_line(pos, cells, self.max_states)
        if line.verdict == "winnable":
            self._remember(pos, cells, line.moves)
            return self.answer(pos, cells, line.moves, line.states, line.seconds)
        if line.verdict == "unwinnable":
            return {"status": "unwinnable", "states": line.enumerated, "seconds": round(line.seconds, 4),
                    "text": f"No winning line from this position: all {line.enumerated:,} positions "
                            f"reachable from here were enumerated and none is won. Undo some moves."}
        return {"status": "unknown", "states": line.states, "seconds": round(line.seconds, 4),
                "text": f"No line found within the limit ({self.max_states:,} positions). "
                        f"This does not mean there is none."}
