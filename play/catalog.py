"""Which deal to play: the known unsolvable deals, difficulty, the daily challenge, random deals.

Difficulty. Seed 004 grades a deal by the free cells it needs (Easy 0-1, Medium 2, Hard 3-4; more than 4:
not winnable). For deals 1..32000 with 4 free cells the grade is that of the free-cells survey,
docs/difficulty-1-32000.csv (its k per deal; engine.survey_k). Beyond it the grade comes from the length
of the solver's verified winning line from the start (single-card moves, after shortening): the
thresholds are the tertiles of that length over deals 1..1000 (median 120, range 80..185), measured with
``scripts/bench.py --difficulty`` -- Easy up to 113 moves, Medium 114..127, Hard 128 or more. A line
length is a property of the solver as much as of the deal: a rough grade, and the page says which it is.

Candidates. Random deals are drawn from 1..1,000,000 and the daily challenge from 1..32,000 (the
classic range), never one of the eight known unsolvable deals; the app then keeps a candidate only
when the solver finds a winning line for it that replays under the spec (play/verdicts.py), so a deal
it offers is proven winnable, not merely "not known to be unsolvable".
"""
import hashlib
import random

from .engine import KNOWN_UNSOLVABLE, survey_k

DIFFICULTIES = ("easy", "medium", "hard")
EASY_MAX = 113          # the first tertile of the line length over deals 1..1000
MEDIUM_MAX = 127        # the second tertile
RANDOM_RANGE = 1_000_000
DAILY_RANGE = 32_000
MAX_TRIES = 60          # candidates tried for one request


SURVEYED_CELLS = 4      # the survey's k is the free cells a deal needs, asked of the 4-cell game


def difficulty(line_length):
    """"easy", "medium" or "hard" for a verified line of ``line_length`` single-card moves."""
    if line_length is None:
        return None
    if line_length <= EASY_MAX:
        return "easy"
    return "medium" if line_length <= MEDIUM_MAX else "hard"


def grade(deal, cells, line_length):
    """(difficulty, how): seed 004's grade from the survey's k ("survey") for a surveyed deal, else the
    line length's ("line"). A k over 4 is "not winnable" (#11982)."""
    k = survey_k(deal) if deal is not None and cells == SURVEYED_CELLS else None
    if k is None:
        return difficulty(line_length), "line"
    return ("easy" if k <= 1 else "medium" if k == 2 else "hard" if k <= 4 else "not winnable"), "survey"


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
