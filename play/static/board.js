// The board as SVG, drawn the way solver/svg.py draws a position: eight columns of overlapping cards on
// a navy table, free cells on the left and foundations on the right of the top row, frozen cards on a
// gold tint with a gold outline. Pure drawing: no rules here (the server checks every move).

export const CARD_W = 86, CARD_H = 120, GAP = 16, STEP = 31, MARGIN = 32, RADIUS = 7;
export const WIDTH = 2 * MARGIN + 8 * CARD_W + 7 * GAP;
const TOP = 14;                          // y of the top row
const COLS_Y = TOP + CARD_H + 34;        // y of the first card of each column
const COLOURS = { face: "#fbfaf5", edge: "#8a94a8", red: "#c8102e", black: "#16181d", gold: "#f2c230",
                  goldTint: "#fff1c2", faint: "#6f7fa3", cyan: "#5fd3ff" };
const SUIT_CHARS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const SUITS = "CDHS", RANKS = "A23456789TJQK";
const FONT = "DejaVu Sans, Segoe UI Symbol, Arial Unicode MS, Arial, sans-serif";
const NS = "http://www.w3.org/2000/svg";

export function cardIndex(name) { return RANKS.indexOf(name[0]) * 4 + SUITS.indexOf(name[1]); }
export function pretty(name) { return (name[0] === "T" ? "10" : name[0]) + SUIT_CHARS[name[1]]; }
export function isRed(name) { return name[1] === "D" || name[1] === "H"; }
export const colX = (i) => MARGIN + i * (CARD_W + GAP);

function el(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function text(parent, x, y, content, attrs) {
  const t = el("text", Object.assign({ x, y }, attrs), parent);
  t.textContent = content;
  return t;
}

// the width of one free-cell slot: the cells share the left half of the top row
export function slotWidth(cells) {
  const half = 4 * CARD_W + 3 * GAP;
  return cells <= 4 ? CARD_W : Math.min(CARD_W, (half - (cells - 1) * 6) / cells);
}
export const cellX = (k, cells) => cells <= 4 ? colX(k) : MARGIN + k * (slotWidth(cells) + 6);

function drawCard(parent, name, x, y, w, opts) {
  const g = el("g", { class: "card" + (opts.frozen ? " frozen" : ""), "data-card": name,
                      "data-pretty": pretty(name), transform: `translate(${x},${y})` }, parent);
  const colour = isRed(name) ? COLOURS.red : COLOURS.black;
  el("rect", { x: 0, y: 0, width: w, height: CARD_H, rx: RADIUS, fill: opts.frozen ? COLOURS.goldTint : COLOURS.face,
               stroke: COLOURS.edge, "stroke-width": 1 }, g);
  text(g, 7, 21, pretty(name), { fill: colour, "font-size": 18, "font-weight": "bold" });
  text(g, w / 2, CARD_H / 2 + 22, SUIT_CHARS[name[1]], { fill: colour, "font-size": w >= 70 ? 52 : 40,
       "text-anchor": "middle" });
  text(g, w - 7, CARD_H - 9, pretty(name), { fill: colour, "font-size": 14, "text-anchor": "end" });
  if (opts.frozen) {        // the gold outline of the visible part, inside the card (as solver/svg.py draws it)
    el("rect", { class: "frozen-outline", x: 1.5, y: 1.5, width: w - 3, height: (opts.visible || CARD_H) - 3, rx: 5,
                 fill: "none", stroke: COLOURS.gold, "stroke-width": 3 }, g);
  }
  if (opts.mark) {
    el("rect", { class: "mark " + opts.mark, x: -4, y: -4, width: w + 8, height: CARD_H + 8, rx: 9, fill: "none",
                 stroke: COLOURS.cyan, "stroke-width": 3, "stroke-dasharray": opts.mark === "hint" ? "6 4" : "none" }, g);
  }
  return g;
}

function drawSlot(parent, x, y, w, label, place, index, mark) {
  el("rect", { x, y, width: w, height: CARD_H, rx: RADIUS, fill: "none",
               stroke: mark ? COLOURS.cyan : COLOURS.faint, "stroke-width": mark ? 2.5 : 1.2,
               "stroke-dasharray": "4 4" }, parent);
  if (label) text(parent, x + w / 2, y + CARD_H / 2 + (label.length > 1 ? 5 : 12), label,
                  { fill: COLOURS.faint, "font-size": label.length > 1 ? 12 : 30, "text-anchor": "middle" });
  // the drop target
  el("rect", { class: "target", "data-place": place, "data-index": index, x, y, width: w, height: CARD_H, rx: RADIUS },
     parent);
}

// Draw `view` = {pos, cells, slots, frozen:Set, selected:Set, hint:{card, to}} into the <svg>.
// Returns the height used.
export function draw(svg, view) {
  const { pos, cells, slots } = view;
  const step = columnStep(pos);
  const tallest = Math.max(1, ...pos.cols.map((c) => c.length));
  const height = COLS_Y + (tallest - 1) * step + CARD_H + 24;
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${height}`);
  svg.replaceChildren();
  svg.setAttribute("font-family", FONT);
  el("rect", { x: 0, y: 0, width: WIDTH, height, fill: "#0f1b33" }, svg);
  const hint = view.hint || {};
  const mark = (name) => view.selected.has(name) ? "selected" : hint.card === name ? "hint" : null;
  // free cells
  const w = slotWidth(cells);
  for (let k = 0; k < Math.max(cells, slots.length); k++) {
    const x = cellX(k, cells);
    drawSlot(svg, x, TOP, w, "cell", "cell", k, hint.to === "cell" && !slots[k]);
  }
  // foundations
  for (let s = 0; s < 4; s++) {
    drawSlot(svg, colX(4 + s), TOP, CARD_W, SUIT_CHARS[SUITS[s]], "home", s, hint.to === "home" && hint.card && hint.card[1] === SUITS[s]);
    const h = pos.home[s];
    if (h > 0) drawCard(svg, RANKS[h - 1] + SUITS[s], colX(4 + s), TOP, CARD_W, { home: true });
  }
  slots.forEach((name, k) => { if (name) drawCard(svg, name, cellX(k, cells), TOP, w, { mark: mark(name) }); });
  // columns
  for (let i = 0; i < 8; i++) {
    const x = colX(i);
    text(svg, x + CARD_W / 2, COLS_Y - 12, String(i + 1), { fill: COLOURS.faint, "font-size": 13, "text-anchor": "middle" });
    const hintHere = hint.to === i + 1;
    el("rect", { x, y: COLS_Y, width: CARD_W, height: CARD_H, rx: RADIUS, fill: "none",
                 stroke: hintHere ? COLOURS.cyan : COLOURS.faint, "stroke-width": hintHere ? 2.5 : 1.2,
                 "stroke-dasharray": "4 4", opacity: pos.cols[i].length ? 0 : 1 }, svg);
    el("rect", { class: "target", "data-place": "col", "data-index": i, x: x - GAP / 2, y: COLS_Y - 20,
                 width: CARD_W + GAP, height: height - COLS_Y + 20 }, svg);
    pos.cols[i].forEach((name, d) => {
      const top = d === pos.cols[i].length - 1;
      const g = drawCard(svg, name, x, COLS_Y + d * step, CARD_W,
                         { frozen: view.frozen.has(name), mark: mark(name), visible: top ? CARD_H : step });
      g.dataset.col = i; g.dataset.depth = d;
    });
    if (hintHere && pos.cols[i].length) {
      const y = COLS_Y + (pos.cols[i].length - 1) * step;
      el("rect", { class: "mark hint-target", x: x - 4, y: y - 4, width: CARD_W + 8, height: CARD_H + 8, rx: 9,
                   fill: "none", stroke: COLOURS.cyan, "stroke-width": 2.5, "stroke-dasharray": "3 3" }, svg);
    }
  }
  if (view.frozen.size) drawFences(svg, pos, view.frozen, step);
  return height;
}

// the dashed gold fence around the frozen cards of adjacent columns (solver/svg.py's _fence_path)
function drawFences(svg, pos, frozen, step) {
  const counts = pos.cols.map((col) => { let k = 0; while (k < col.length && frozen.has(col[k])) k++; return k; });
  const pad = 7, padBelow = 4, top = COLS_Y - pad;
  let i = 0;
  while (i < 8) {
    if (!counts[i]) { i++; continue; }
    const group = [];
    while (i < 8 && counts[i]) group.push(i++);
    const first = group[0], last = group[group.length - 1];
    const left = (j) => j === first ? colX(j) - pad : colX(j) - GAP / 2;
    const right = (j) => j === last ? colX(j) + CARD_W + pad : colX(j) + CARD_W + GAP / 2;
    const bottom = (j) => {
      const k = counts[j], n = pos.cols[j].length;
      return k === n ? COLS_Y + (k - 1) * step + CARD_H + pad : COLS_Y + k * step + padBelow;
    };
    const pts = [[left(first), top], [right(last), top]];
    for (const j of group.slice().reverse()) pts.push([right(j), bottom(j)], [left(j), bottom(j)]);
    el("path", { class: "fence", d: "M " + pts.map((p) => p.join(" ")).join(" L ") + " Z", fill: "none",
                 stroke: COLOURS.gold, "stroke-width": 2, "stroke-dasharray": "7 5", "pointer-events": "none" }, svg);
  }
}

// cards overlap less when a column grows long, so the table keeps a sane height
export function columnStep(pos) {
  const tallest = Math.max(1, ...pos.cols.map((c) => c.length));
  return tallest <= 16 ? STEP : Math.max(18, Math.floor((15 * STEP) / (tallest - 1)));
}

// the drop place under an SVG point: {place: "col"|"cell"|"home", index}
export function placeAt(svg, clientX, clientY) {
  const pt = svg.createSVGPoint();
  pt.x = clientX; pt.y = clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  if (p.y < TOP + CARD_H + 10) {
    if (p.x >= colX(4) - GAP / 2) return { place: "home", index: 0 };
    return { place: "cell", index: 0 };
  }
  const i = Math.max(0, Math.min(7, Math.floor((p.x - MARGIN + GAP / 2) / (CARD_W + GAP))));
  return { place: "col", index: i };
}

export function svgPoint(svg, clientX, clientY) {
  const pt = svg.createSVGPoint();
  pt.x = clientX; pt.y = clientY;
  return pt.matrixTransform(svg.getScreenCTM().inverse());
}
