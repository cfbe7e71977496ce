"""A picture of a position as SVG, the way seed 000 draws deal 11982: eight columns of overlapping
cards (the bottom card at the top of the picture, as on a real table), on a dark navy background, with
the cards that never move outlined in gold inside a dashed fence, and a title line.

    from solver import svg
    text = svg.render(position, title="FreeCell #11982 \u2014 unwinnable: ...", frozen={card: (col, depth)})
    svg.write("docs/examples/11982.svg", text)     # atomically (solver/atomic.py)

Plain standard library; the output is one self-contained SVG 1.1 document (no scripts, no external
fonts or images; card faces use the suit symbols of the text font).
"""
import os
from xml.sax.saxutils import escape, quoteattr

from .atomic import write_atomic
from .cards import is_red, pretty_name, suit

# geometry (px)
CARD_W, CARD_H = 86, 120
GAP = 16                 # between columns
STEP = 31                # vertical offset of a card on the one under it
MARGIN = 32
RADIUS = 7

# colours
NAVY = "#0f1b33"
NAVY_EDGE = "#1d2c4d"
FELT_TEXT = "#c9d3e6"
FAINT = "#6f7fa3"
CARD_FACE = "#fbfaf5"
CARD_EDGE = "#8a94a8"
RED = "#c8102e"
BLACK = "#16181d"
GOLD = "#f2c230"
GOLD_TINT = "#fff1c2"

FONT = "DejaVu Sans, Segoe UI Symbol, Arial Unicode MS, Arial, sans-serif"
SUIT_CHARS = "\u2663\u2666\u2665\u2660"


def _attrs(**kw):
    return " ".join(f"{k.rstrip('_').replace('_', '-')}={quoteattr(str(v))}" for k, v in kw.items())


def _col_x(i):
    return MARGIN + i * (CARD_W + GAP)


def _frozen_bottom(col_len, k, y0):
    """y of the lower edge of the visible part of the k frozen cards of a column of col_len cards."""
    if k == col_len:
        return y0 + (k - 1) * STEP + CARD_H
    return y0 + k * STEP


TINT = "#f3c9cf"         # a card tinted to show it is buried (a place the highlighted card would need)


def _card(out, c, x, y, top, frozen, w=CARD_W, tinted=False):
    colour = RED if is_red(c) else BLACK
    face = GOLD_TINT if frozen else TINT if tinted else CARD_FACE
    name = pretty_name(c)
    out.append(f'<g class="{"card tinted" if tinted else "card"}" data-card={quoteattr(name)}>')
    out.append(f'<rect {_attrs(x=_n(x), y=_n(y), width=_n(w), height=CARD_H, rx=RADIUS, fill=face, stroke=CARD_EDGE, stroke_width=1)}/>')
    out.append(f'<text {_attrs(x=_n(x + 7), y=_n(y + 21), fill=colour, font_size=18, font_weight="bold")}>{escape(name)}</text>')
    if top:
        sym = SUIT_CHARS[suit(c)]
        big = 52 if w >= 70 else 40
        out.append(f'<text {_attrs(x=_n(x + w / 2), y=_n(y + CARD_H / 2 + 22), fill=colour, font_size=big, text_anchor="middle")}>{sym}</text>')
        out.append(f'<text {_attrs(x=_n(x + w - 7), y=_n(y + CARD_H - 9), fill=colour, font_size=14, text_anchor="end")}>{escape(name)}</text>')
    out.append("</g>")


def _n(v):
    """A coordinate without float noise."""
    return f"{round(v, 2):g}"


def _slot(out, x, y, w, label):
    out.append(f'<rect {_attrs(x=_n(x), y=_n(y), width=_n(w), height=CARD_H, rx=RADIUS, fill="none", stroke=FAINT, stroke_width=1.2, stroke_dasharray="4 4")}/>')
    if label:
        out.append(f'<text {_attrs(x=_n(x + w / 2), y=_n(y + CARD_H / 2 + 5), fill=FAINT, font_size=12, text_anchor="middle")}>{escape(label)}</text>')


def _fence_groups(cols, counts):
    """Runs of adjacent columns that have frozen cards."""
    groups, cur = [], []
    for i in range(8):
        if counts[i]:
            cur.append(i)
        elif cur:
            groups.append(cur)
            cur = []
    if cur:
        groups.append(cur)
    return groups


def _fence_path(group, cols, counts, y0, pad=7, pad_below=4):
    top = y0 - pad
    left_edge = {}
    right_edge = {}
    for i in group:
        left_edge[i] = _col_x(i) - pad if i == group[0] else _col_x(i) - GAP / 2
        right_edge[i] = _col_x(i) + CARD_W + pad if i == group[-1] else _col_x(i) + CARD_W + GAP / 2
    bottom = {i: _frozen_bottom(len(cols[i]), counts[i], y0) + (pad if counts[i] == len(cols[i]) else pad_below)
              for i in group}
    pts = [(left_edge[group[0]], top), (right_edge[group[-1]], top)]
    for i in reversed(group):
        pts.append((right_edge[i], bottom[i]))
        pts.append((left_edge[i], bottom[i]))
    d = "M " + " L ".join(f"{x:g} {y:g}" for x, y in pts) + " Z"
    return d


def render(position, title, title_rest="", subtitle=None, frozen=None, legend=(), cells=4, highlight=None,
           tinted=(), fence_label=None, statement=None):
    """The SVG text of ``position`` (cols, cells, home).

    ``title`` (bold) and ``title_rest`` (regular) make the title line; ``subtitle``: a smaller line;
    ``frozen``: {card: (column, depth)} of the cards to outline in gold (a bottom part of each column);
    ``legend``: lines under the table, the first next to a gold swatch when there are frozen cards;
    ``cells``: free cells of the rules (slots drawn when the position has cell or foundation cards);
    ``highlight``: a card to mark with a dashed outline (e.g. the --exposed card); ``tinted``: cards drawn
    on a tinted face (buried); ``fence_label``: a label on the fence (seed 000's "C"); ``statement``: a line
    in the header in gold (the theorem's statement)."""
    cols, cell_cards, home = position
    frozen = frozen or {}
    counts = [0] * 8
    for c, (i, d) in frozen.items():
        if cols[i][d] != c:
            raise ValueError(f"frozen card {pretty_name(c)} is not at column {i + 1}, depth {d}")
        counts[i] += 1
    width = 2 * MARGIN + 8 * CARD_W + 7 * GAP
    y = MARGIN + 8
    head = []
    rest = f'<tspan {_attrs(font_size=17, font_weight="normal", fill=FELT_TEXT)}>{escape(title_rest)}</tspan>' if title_rest else ""
    head.append(f'<text xml:space="preserve" {_attrs(x=MARGIN, y=y + 14, fill="#ffffff", font_size=22, font_weight="bold")}>{escape(title)}{rest}</text>')
    y += 22
    if subtitle:
        head.append(f'<text {_attrs(x=MARGIN, y=y + 14, fill=FELT_TEXT, font_size=14)}>{escape(subtitle)}</text>')
        y += 22
    if statement:
        head.append(f'<text class="statement" {_attrs(x=MARGIN, y=y + 16, fill=GOLD, font_size=16)}>{escape(statement)}</text>')
        y += 24
    y += 16
    body = []
    # free cells and foundations, only when the position uses them
    if cell_cards or any(home):
        nslots = max(cells, len(cell_cards))
        half = 4 * CARD_W + 3 * GAP
        sw = min(CARD_W, (half - (nslots - 1) * 6) / max(nslots, 1)) if nslots else CARD_W
        for k in range(nslots):
            x = MARGIN + k * (sw + 6)
            if k < len(cell_cards):
                _card(body, cell_cards[k], x, y, True, False, w=sw, tinted=cell_cards[k] in tinted)
            else:
                _slot(body, x, y, sw, "cell")
        for s in range(4):
            x = _col_x(4 + s)
            if home[s]:
                _card(body, (home[s] - 1) * 4 + s, x, y, True, False)
            else:
                _slot(body, x, y, CARD_W, SUIT_CHARS[s])
        y += CARD_H + 24
    # column numbers
    for i in range(8):
        body.append(f'<text {_attrs(x=_col_x(i) + CARD_W / 2, y=y + 4, fill=FAINT, font_size=13, text_anchor="middle")}>{i + 1}</text>')
    y0 = y + 18
    # the fences are drawn over the cards (a dashed line just inside the top strip of the first card
    # that is not frozen), the gold outlines over everything
    fences = []
    for n_g, g in enumerate(_fence_groups(cols, counts)):
        fences.append(f'<path class="fence" {_attrs(d=_fence_path(g, cols, counts, y0), fill="none", stroke=GOLD, stroke_width=2, stroke_dasharray="7 5")}/>')
        if fence_label and n_g == 0:
            fences.append(f'<text class="fence-label" {_attrs(x=_col_x(g[0]) - 7, y=y0 - 11, fill=GOLD, font_size=18, font_weight="bold", font_style="italic")}>{escape(fence_label)}</text>')
    cards_svg = []
    outlines = []
    hl = []
    for i, col in enumerate(cols):
        x = _col_x(i)
        if not col:
            _slot(cards_svg, x, y0, CARD_W, "")
        for d, c in enumerate(col):
            cy = y0 + d * STEP
            is_top = d == len(col) - 1
            _card(cards_svg, c, x, cy, is_top, c in frozen, tinted=c in tinted)
            vis_h = CARD_H if is_top else STEP
            if c in frozen:
                outlines.append(f'<rect class="frozen" data-card={quoteattr(pretty_name(c))} {_attrs(x=x + 1.5, y=cy + 1.5, width=CARD_W - 3, height=vis_h - 3, rx=5, fill="none", stroke=GOLD, stroke_width=3)}/>')
            if highlight is not None and c == highlight:
                hl.append(f'<rect class="highlight" {_attrs(x=x - 4, y=cy - 4, width=CARD_W + 8, height=vis_h + 8, rx=8, fill="none", stroke="#5fd3ff", stroke_width=2.5, stroke_dasharray="5 3")}/>')
    tallest = max((len(c) for c in cols), default=0)
    y_end = y0 + (max(tallest, 1) - 1) * STEP + CARD_H
    foot = []
    ly = y_end + 8
    for n, line in enumerate(legend):
        ly += 24
        tx = MARGIN
        if n == 0 and frozen:
            foot.append(f'<rect {_attrs(x=MARGIN, y=ly - 13, width=26, height=16, rx=3, fill=GOLD_TINT, stroke=GOLD, stroke_width=3)}/>')
            tx = MARGIN + 36
        foot.append(f'<text {_attrs(x=tx, y=ly, fill=FELT_TEXT, font_size=14)}>{escape(line)}</text>')
        y_end = ly
    height = y_end + MARGIN
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" {_attrs(width=width, height=height, viewBox=f"0 0 {width} {height}", font_family=FONT)}>',
           f'<title>{escape(title + title_rest)}</title>',
           f'<rect {_attrs(x=0, y=0, width=width, height=height, fill=NAVY)}/>',
           f'<rect {_attrs(x=6, y=6, width=width - 12, height=height - 12, rx=14, fill="none", stroke=NAVY_EDGE, stroke_width=2)}/>']
    out += head + body + cards_svg + fences + outlines + hl + foot
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write(path, text):
    """Write ``text`` to ``path`` atomically (solver/atomic.py)."""
    write_atomic(os.fspath(path), text)
