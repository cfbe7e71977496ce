"""Whole numbers read from people's text: deal numbers, --cells, --max-states, --jobs, ranges, deal codes.

One reading for all of them: ASCII digits only (no sign, no spaces inside, no exponent), optionally with
``_`` or ``,`` between digits where ``separators`` allows it, and a length bound so that a huge input
cannot become a huge number. A bad value is one :class:`FreecellError` line naming what was asked for.
"""
from .errors import FreecellError


def digits(text, separators=False, max_digits=20):
    """The whole number ``text`` spells, or None (``text`` may also be an int; a bool is not a number)."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return text
    if not isinstance(text, str):
        return None
    t = text.strip()
    if separators:
        t = t.replace("_", "").replace(",", "")
    if not (t.isascii() and t.isdigit() and len(t) <= max_digits):
        return None
    return int(t)


def whole_number(text, what, lo, hi=None, separators=False, shown=None, max_digits=20):
    """``text`` as a whole number from ``lo`` to ``hi`` (no upper bound when ``hi`` is None), else
    ``FreecellError("<what> must be a whole number from lo to hi, got '<text>'")``. ``shown``: the value
    as the message quotes it (default: ``text`` itself)."""
    n = digits(text, separators, max_digits)
    if n is None or n < lo or (hi is not None and n > hi):
        span = f"of at least {lo}" if hi is None else f"from {lo} to {hi}"
        quoted = text if shown is None else shown
        raise FreecellError(f"{what} must be a whole number {span}, got {quoted!r}")
    return n
