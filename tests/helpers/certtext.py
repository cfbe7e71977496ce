"""The Lean certificate text (certgen/certtext.py writes it) decoded in Python: the twin of the Lean modules'
decoder, step for step, to test the encoding."""
from solver import spec


def card_of_letter(ch: str) -> spec.Card:
    """The card a letter stands for (FreeCell.cardOfChar)."""
    i = ord(ch) - 65 if ch.isupper() else ord(ch) - 97 + 26
    return spec.Card(i // 4 + 1, i % 4)


def _is_letter(ch: str) -> bool:  # Char.isAlpha: ASCII letters only
    return "A" <= ch <= "Z" or "a" <= ch <= "z"


def _suit_weight(c: spec.Card) -> int:  # FreeCell.suitWeight
    return 64 ** c.suit


def home_of_count(n: int):  # FreeCell.homeOfCount (Nat subtraction stops at 0)
    return tuple(max(13 - d, 0) for d in (n % 64, n // 64 % 64, n // 4096 % 64, n // 262144 % 64))


def decode_state(start: spec.State, line: str) -> spec.State:
    """Python twin of FreeCell.decodeState, step for step (used to test the encoding; Lean decodes
    with its own, untrusted, decoder). `n` counts the cards of each suit read so far, suit k as the
    base-64 digit of weight 64^k."""
    cols, pos, n = [], 0, 0
    for start_col in start.cols:               # decodeCols: one column per start column ...
        if pos >= len(line):                   # ... while the line lasts
            break
        k = max(ord(line[pos]) - 48, 0)        # d.toNat - 48 (Nat subtraction)
        pos += 1
        top = []
        while pos < len(line) and _is_letter(line[pos]):  # takeCards
            top.append(card_of_letter(line[pos]))
            n += _suit_weight(top[-1])
            pos += 1
        bottom = tuple(start_col[max(len(start_col) - k, 0):])  # start.drop (start.length - k)
        n += sum(_suit_weight(c) for c in bottom)
        cols.append(tuple(top) + bottom)
    cells = []
    for ch in line[pos + 1:]:                  # takeCards n (rest.drop 1)
        if not _is_letter(ch):
            break
        cells.append(card_of_letter(ch))
        n += _suit_weight(cells[-1])
    return spec.State(cols=tuple(cols), cells=tuple(cells), home=home_of_count(n))
