"""Which deal to play: the known unsolvable deals, difficulty, the daily challenge, random deals.

Difficulty. Seed 004 grades a deal by the free cells it needs (Easy 0-1, Medium 2, Hard 3-4); that
survey does not exist in this project yet, so until it does the grade comes from the length of the
solver's verified winning line from the start (single-card moves, after shortening): the thresholds
are the tertiles of that length over deals 1..1000 (median 120, range 80..185), measured with
``scripts/bench.py --difficulty`` -- Easy up to 113 moves, Medium 114..127, Hard 128 or more. A line
length is a property of the solver as much as of the deal: it is a rough grade, and the page says so.

Candidates. Random deals are drawn from 1..1,000,000 and the daily challenge from 1..32,000 (the
classic range), never one of the eight known unsolvable deals; the app then keeps a candidate only
when the solver finds a winning line for it that replays under the spec (play/verdicts.py), so a deal
it offers is proven winnable, not merely "not known to be unsolvable".
"""
import hashlib
import random

from .engine import KNOWN_UNSOLVABLE

DIFFICULTIES = ("easy", "medium", "hard")
EASY_MAX = 113          # the first tertile of the line length over deals 1..1000
MEDIUM_MAX = 127        # the second tertile
RANDOM_RANGE = 1_000_000
DAILY_RANGE = 32_000
MAX_TRIES = 60          # candidates tried for one request


def difficulty(line_length):
    """"easy", "medium" or "hard" for a verified line of ``line_length`` single-card moves."""
    if line_length is None:
        return None
    if line_length <= EASY_MAX:
        return "easy"
    return "medium" if line_length <= MEDIUM_MAX else "hard"


def is_known_unsolvable(deal):
    return deal in KNOWN_UNSOLVABLE


def daily_candidates(date_text):
    """Deal numbers for the date (YYYY-MM-DD), best first: a hash of the date picks one of 1..32000,
    then the numbers after it (wrapping), the known unsolvable deals left out."""
    h = int.from_bytes(hashlib.sha256(f"freecell-proof daily {date_text}".encode()).digest()[:8], "big")
    first = h % DAILY_RANGE
    for k in range(MAX_TRIES):
        n = (first + k) % DAILY_RANGE + 1
        if not is_known_unsolvable(n):
            yield n


def random_candidates(seed=None):
    """Deal numbers drawn from 1..1,000,000, the known unsolvable deals left out (``seed``: repeatable)."""
    rng = random.Random(seed)
    for _ in range(MAX_TRIES):
        n = rng.randint(1, RANDOM_RANGE)
        if not is_known_unsolvable(n):
            yield n
