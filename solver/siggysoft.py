"""SiggySoft Solitaire deals and deal codes (seed 003, "fair play", method version 1).

* Seed: 64 bytes. A numbered deal's seed is
  ``SHA-512("SiggySoft Solitaire numbered deal v1" || 0x00 || dealKey || 0x00 || number)`` with the deal
  key in UTF-8 and the number as 8 bytes big-endian.
* Stream: block i = ``SHA-512("SiggySoft Solitaire deal stream v1" || 0x00 || seed || i)`` (i as 8 bytes
  big-endian); the stream is block 0, block 1, ... read byte by byte.
* ``below(n)``: read 4 bytes big-endian as x; if x < floor(2**32 / n) * n answer x mod n, else read again.
* Shuffle: the fresh deck (spades A..K, then hearts, diamonds, clubs), Fisher-Yates from the end
  (for i = size-1 down to 1: j = below(i+1); swap i and j). Position 0 of the result is dealt first.
* FreeCell lays the order out in rows of eight, first eight cards at the bottom (as classic deals).

Deal codes: ``SOL1-freecell-cells=4-N<n>`` (numbered deal n, key "freecell"), ``...-C<n>`` (classic
Microsoft numbering, :mod:`solver.deals`), ``...-S<seed>`` (the whole seed, 103 characters of RFC 4648
base32 without padding). ``cells=K`` is the number of free cells of the rules.
"""

import base64
import binascii
import hashlib
from collections import namedtuple

from . import deals
from .cards import card
from .errors import FreecellError
from .numbers import whole_number
from .rules import MAX_CELLS

NUMBERED_DOMAIN = b"SiggySoft Solitaire numbered deal v1"
STREAM_DOMAIN = b"SiggySoft Solitaire deal stream v1"
SEED_BYTES = 64
SEED_CHARS = 103            # 512 bits in base32 (5 bits a character), unpadded
MAX_NUMBERED = 1_000_000    # the app numbers deals 1 to 1,000,000

#: The fresh deck of one pack: spades A..K, hearts A..K, diamonds A..K, clubs A..K (card indices).
FRESH_DECK = tuple(card(r, s) for s in (3, 2, 1, 0) for r in range(1, 14))

DealCode = namedtuple("DealCode", "position cells kind number seed code")
DealCode.__doc__ = """A parsed deal code.

position: the start Position; cells: the free cells the code's rules give; kind: "N", "C" or "S";
number: the deal number for N and C codes (else None); seed: the 64-byte seed for N and S codes (else
None); code: the code in canonical form."""


def numbered_seed(number, deal_key="freecell"):
    """The 64-byte seed of SiggySoft numbered deal ``number`` of the game ``deal_key``."""
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < 2 ** 64:
        raise FreecellError(f"deal number must be a whole number from 0 to 2^64-1, got {number!r}")
    msg = NUMBERED_DOMAIN + b"\x00" + deal_key.encode("utf-8") + b"\x00" + number.to_bytes(8, "big")
    return hashlib.sha512(msg).digest()


class Stream:
    """The SHA-512 random stream of a seed, read byte by byte."""

    def __init__(self, seed, domain=STREAM_DOMAIN):
        seed = bytes(seed)
        if len(seed) != SEED_BYTES:
            raise FreecellError(f"a seed is {SEED_BYTES} bytes, got {len(seed)}")
        self._prefix = domain + b"\x00" + seed
        self._block = 0
        self._buf = b""
        self._pos = 0

    def read(self, k):
        out = b""
        while len(out) < k:
            if self._pos == len(self._buf):
                self._buf = hashlib.sha512(self._prefix + self._block.to_bytes(8, "big")).digest()
                self._block += 1
                self._pos = 0
            take = min(k - len(out), len(self._buf) - self._pos)
            out += self._buf[self._pos:self._pos + take]
            self._pos += take
        return out

    def below(self, n):
        """A whole number 0..n-1 without bias (rejection sampling on 4-byte big-endian values)."""
        if not 1 <= n <= 2 ** 32:
            raise ValueError(f"below({n}) is out of range")
        limit = (2 ** 32 // n) * n
        while True:
            x = int.from_bytes(self.read(4), "big")
            if x < limit:
                return x % n


def shuffle(seed, deck=FRESH_DECK, domain=STREAM_DOMAIN):
    """The dealt order: Fisher-Yates from the end over ``deck`` driven by the seed's stream (``domain``:
    the deal stream's, or a redeal's: solver/games.py)."""
    stream = Stream(seed, domain)
    cards = list(deck)
    for i in range(len(cards) - 1, 0, -1):
        j = stream.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def position_from_seed(seed):
    """FreeCell start Position of a SiggySoft seed (rows of eight, first eight cards at the bottom)."""
    return deals.position_from_order(shuffle(seed))


# --- base32 (RFC 4648 alphabet, no padding) -----------------------------------------------------------

def seed_to_base32(seed):
    """The 103-character unpadded base32 text of a 64-byte seed."""
    seed = bytes(seed)
    if len(seed) != SEED_BYTES:
        raise FreecellError(f"a seed is {SEED_BYTES} bytes, got {len(seed)}")
    return base64.b32encode(seed).decode("ascii").rstrip("=")


def seed_from_base32(text):
    """The 64-byte seed of a 103-character unpadded base32 text (case-insensitive, canonical only)."""
    s = text.upper()
    if len(s) != SEED_CHARS:
        raise FreecellError(f"deal code: a seed is {SEED_CHARS} base32 characters, got {len(text)}")
    bad = sorted({ch for ch in s if ch not in "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"})
    if bad:
        raise FreecellError(f"deal code: the seed has characters that are not base32: {''.join(bad)!r}")
    try:
        seed = base64.b32decode(s + "=" * (-len(s) % 8))
    except (binascii.Error, ValueError) as exc:   # pragma: no cover - guarded above
        raise FreecellError(f"deal code: the seed is not valid base32 ({exc})") from None
    if len(seed) != SEED_BYTES or seed_to_base32(seed) != s:
        raise FreecellError("deal code: the seed's last base32 character has bits set past the 512th")
    return seed


# --- deal codes ---------------------------------------------------------------------------------------

def _parse_options(text):
    opts = {}
    if text == "":
        return opts
    for item in text.split(";"):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise FreecellError(f"deal code: malformed option {item!r} (expected key=value)")
        if key in opts:
            raise FreecellError(f"deal code: option {key!r} given twice")
        opts[key] = value
    unknown = sorted(set(opts) - {"cells"})
    if unknown:
        raise FreecellError(f"deal code: unknown FreeCell option {unknown[0]!r} (only cells=K)")
    return opts


def _parse_int(text, what, lo, hi):
    return whole_number(text, f"deal code: {what}", lo, hi)


def one_word(code):
    """``code`` split at its dashes, when it is text without a space or line break anywhere (a code is one
    word; the command line's --code takes off the spaces around it, a copy-paste's: solver/cliargs.py);
    a one-line :class:`FreecellError` otherwise."""
    if not isinstance(code, str):
        raise FreecellError(f"deal code must be text, got {code!r}")
    if any(ch.isspace() for ch in code):
        shown = code if len(code) <= 60 else code[:57] + "..."
        raise FreecellError(f"deal code: a space or line break in {shown!r} (a code is one word, e.g. "
                            f"SOL1-freecell-cells=4-N1)")
    return code.split("-")


class OtherGame(FreecellError):
    """A well-formed code of a game other than FreeCell (``game``: its id); solver.games words it for people."""

    def __init__(self, game, message):
        super().__init__(message)
        self.game = game


def parse_code(code):
    """Parse a SiggySoft deal code into a :class:`DealCode`; one-line :class:`FreecellError` otherwise
    (:class:`OtherGame` for another game's code: solver.games.freecell_code says what to do with it)."""
    parts = one_word(code)
    shown = code if len(code) <= 60 else code[:57] + "..."
    if len(parts) != 4 or not parts[0].startswith("SOL"):
        raise FreecellError(f"deal code: expected SOL<version>-<game>-<options>-<deal>, got {shown!r}")
    version, game, options, dealpart = parts
    if version != "SOL1":
        raise FreecellError(f"deal code: unsupported rules version {version[3:]!r} (only SOL1)")
    if game != "freecell":
        raise OtherGame(game, f"deal code: unsupported game {game!r} (only freecell)")
    opts = _parse_options(options)
    cells = _parse_int(opts["cells"], "cells", 0, MAX_CELLS) if "cells" in opts else 4
    if not dealpart:
        raise FreecellError("deal code: the deal part is empty (expected N<n>, C<n> or S<seed>)")
    kind, body = dealpart[0], dealpart[1:]
    prefix = f"SOL1-freecell-cells={cells}-"
    if kind == "N":
        number = _parse_int(body, "a numbered deal", 1, MAX_NUMBERED)
        seed = numbered_seed(number, "freecell")
        return DealCode(position_from_seed(seed), cells, "N", number, seed, f"{prefix}N{number}")
    if kind == "C":
        number = _parse_int(body, "a classic deal", 1, deals.MAX_MS_DEAL)
        return DealCode(deals.ms_deal(number), cells, "C", number, None, f"{prefix}C{number}")
    if kind == "S":
        seed = seed_from_base32(body)
        return DealCode(position_from_seed(seed), cells, "S", None, seed, f"{prefix}S{seed_to_base32(seed)}")
    raise FreecellError(f"deal code: unknown deal kind {kind!r} (expected N<n>, C<n> or S<seed>)")


def seed_code(seed, cells=4):
    """The ``-S`` deal code of a 64-byte seed."""
    return f"SOL1-freecell-cells={cells}-S{seed_to_base32(seed)}"
