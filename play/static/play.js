// The page: deals, moves (drag and drop, click-click, the list of legal moves), undo/redo, hints, the
// verdict panel, the solution stepper, records in localStorage. Every move is checked by the server
// (POST /api/move): this file holds no rules, only the game's history and the drawing.
import { draw, placeAt, svgPoint, pretty, cardIndex } from "./board.js";

const $ = (id) => document.getElementById(id);
const svg = $("board");
const RECORDS_KEY = "freecell-proof.records";

const game = {
  start: null,          // the /api/deal answer
  pos: null,            // {cols, cells, home}
  slots: [],            // the free cells as the player sees them (card names or null)
  moves: 0, elapsed: 0, since: null, won: false,
  past: [], future: [], // undo / redo: {pos, slots, moves}
  selected: null,       // the selected card's name
  hint: null,           // {card, to}
  frozen: new Set(),
  verdict: null,
  solution: null,       // {positions, slots, index}
  busy: false,
};

// --- the API ------------------------------------------------------------------------------------------

async function api(path, body) {
  const init = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" },
                                          body: JSON.stringify(body) };
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    throw new Error("the server does not answer (is `make play` still running?)");
  }
  const data = await resp.json().catch(() => ({ error: `HTTP ${resp.status}` }));
  if (!resp.ok) { const err = new Error(data.error || `HTTP ${resp.status}`); err.status = resp.status; throw err; }
  return data;
}

function say(text, kind) {
  const m = $("message");
  m.textContent = text || "";
  m.className = "message" + (kind ? " " + kind : "");
}

// --- drawing ------------------------------------------------------------------------------------------

function layoutSlots(slots, cellsNow, cellCount, preferred) {
  // keep every card that stays in the cells in its slot; new ones go to the preferred or leftmost empty slot
  const out = new Array(Math.max(cellCount, cellsNow.length)).fill(null);
  slots.forEach((c, k) => { if (c && cellsNow.includes(c) && k < out.length) out[k] = c; });
  for (const c of cellsNow) {
    if (out.includes(c)) continue;
    let k = preferred != null && out[preferred] === null ? preferred : out.indexOf(null);
    out[k] = c;
  }
  return out;
}

function render() {
  const sol = game.solution;
  const view = sol
    ? { pos: sol.positions[sol.index], cells: game.start.cells, slots: sol.slots[sol.index], frozen: game.frozen,
        selected: new Set(), hint: sol.index < sol.line.length ? { card: sol.line[sol.index].card, to: sol.line[sol.index].to } : null }
    : { pos: game.pos, cells: game.start.cells, slots: game.slots, frozen: game.frozen,
        selected: new Set(selectedRun()), hint: game.hint };
  draw(svg, view);
  if (!render.marked) { performance.mark("freecell:first-board"); render.marked = true; }   // scripts/bench_play.py
  svg.classList.toggle("replay", !!sol);
  $("move-count").textContent = String(game.moves);
  $("undo").disabled = !game.past.length || !!sol;
  $("redo").disabled = !game.future.length || !!sol;
  $("restart").disabled = !game.past.length || !!sol;
  $("hint-button").disabled = game.won || !!sol;
  tick();
}

function selectedRun() {
  if (!game.selected) return [];
  for (const col of game.pos.cols) {
    const d = col.indexOf(game.selected);
    if (d >= 0) return col.slice(d);
  }
  return [game.selected];
}

function tick() {
  const secs = Math.floor(game.elapsed + (game.since ? (Date.now() - game.since) / 1000 : 0));
  $("clock").textContent = `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}`;
}
setInterval(tick, 1000);

// --- dealing ------------------------------------------------------------------------------------------

async function deal(request, how) {
  say("Dealing…");
  let start;
  try {
    start = await api("/api/deal", request);
  } catch (e) { say(e.message, "bad"); return; }
  game.start = start;
  game.how = how || null;
  game.frozen = new Set();
  game.verdict = null;
  closeSolution();
  resetGame(start.start);
  $("deal-label").textContent = start.deal != null ? `Deal #${start.deal}` : start.label;
  setBadges();
  showRecords();
  history.replaceState(null, "", start.deal != null && !start.code ? `#deal=${start.deal}`
                                  : start.code ? `#code=${encodeURIComponent(start.code)}` : "#");
  say(start.known_unsolvable ? "This deal is one of the eight known unsolvable deals of 1..1,000,000." : "");
  showVerdictPending(start);
  if ($("autoplay").checked) await autoplayNow();
  refreshLegal();
  loadVerdict(request);
}

function resetGame(pos) {
  game.pos = pos;
  game.slots = layoutSlots([], pos.cells, game.start.cells);
  game.moves = 0; game.elapsed = 0; game.since = null; game.won = false;
  game.past = []; game.future = []; game.selected = null; game.hint = null;
  $("hint").hidden = true;
  render();
}

// seed 004's grade from the free-cells survey (deals 1..32000, 4 cells), else the line's length (play/catalog.py)
function difficultyNote(v) {
  const grade = v.difficulty[0].toUpperCase() + v.difficulty.slice(1);
  return v.graded_by === "survey"
    ? `Difficulty ${grade}: by the free cells it needs (the free-cells survey of deals 1..32,000: Easy 0–1, Medium 2, Hard 3–4).`
    : `Difficulty ${grade}: graded by the line's length (the free-cells survey covers deals 1..32,000 with 4 free cells only).`;
}

function setBadges() {
  const b = $("badges");
  b.replaceChildren();
  const add = (cls, text) => { const s = document.createElement("span"); s.className = "badge " + cls; s.textContent = text; b.appendChild(s); };
  if (game.start.known_unsolvable) add("known", "known unsolvable");
  if (game.how === "daily") add("daily", "daily challenge");
  const v = game.verdict;
  if (v && v.verdict === "winnable" && v.difficulty) add(v.difficulty, v.difficulty[0].toUpperCase() + v.difficulty.slice(1));
  if (game.won) add("won", "won");
}

// --- moves --------------------------------------------------------------------------------------------

function snapshot() { return { pos: game.pos, slots: game.slots, moves: game.moves }; }

async function play(card, to, preferredSlot) {
  if (game.busy || game.solution || game.won) return false;
  game.busy = true;
  try {
    const r = await api("/api/move", { position: game.pos, cells: game.start.cells, move: { card, to },
                                      autoplay: $("autoplay").checked });
    game.past.push(snapshot());
    game.future = [];
    game.pos = r.position;
    game.slots = layoutSlots(game.slots, r.position.cells, game.start.cells, to === "cell" ? preferredSlot : null);
    game.moves += 1;
    if (!game.since && !game.won) game.since = Date.now();
    game.selected = null; game.hint = null;
    $("hint").hidden = true;
    const auto = r.auto.length ? ` (${r.auto.length} card${r.auto.length > 1 ? "s" : ""} went home automatically)` : "";
    say(r.steps.length > 1 ? `Moved ${r.steps.length} cards as ${r.steps.length} single moves${auto}.` : auto.trim().replace(/^\(|\)$/g, ""));
    if (r.won) finish();
    render();
    refreshLegal();
    return true;
  } catch (e) {
    say(e.message.charAt(0).toUpperCase() + e.message.slice(1), "bad");
    game.selected = null;
    render();
    return false;
  } finally { game.busy = false; }
}

async function autoplayNow() {
  try {
    const r = await api("/api/autoplay", { position: game.pos, cells: game.start.cells });
    if (!r.auto.length) return;
    game.past.push(snapshot());
    game.future = [];
    game.pos = r.position;
    game.slots = layoutSlots(game.slots, r.position.cells, game.start.cells);
    if (r.won) finish();
    render();
    refreshLegal();
  } catch (e) { say(e.message, "bad"); }
}

function finish() {
  game.won = true;
  if (game.since) { game.elapsed += (Date.now() - game.since) / 1000; game.since = null; }
  const secs = Math.floor(game.elapsed);
  say(`You won ${game.start.label} in ${game.moves} moves and ${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, "0")}.`, "good");
  saveRecord(secs);
  setBadges();
}

// Back to an earlier position (undo, restart): not won, nothing selected, no hint shown.
function goBack(state, message) {
  Object.assign(game, state);
  game.won = false; game.selected = null; game.hint = null;
  $("hint").hidden = true;
  setBadges();
  say(message);
  render();
  refreshLegal();
}

function undo() {
  if (!game.past.length || game.solution) return;
  game.future.push(snapshot());
  goBack(game.past.pop(), "");
}

function redo() {
  if (!game.future.length || game.solution) return;
  game.past.push(snapshot());
  Object.assign(game, game.future.pop());
  game.selected = null; game.hint = null;
  render();
  refreshLegal();
}

function restart() {
  if (!game.past.length || game.solution) return;
  const first = game.past[0];
  goBack({ pos: first.pos, slots: first.slots, moves: 0, elapsed: 0, since: null, past: [], future: [] },
         "Back to the start of the deal.");
}

// where a card is: {kind: "col", index, depth} | {kind: "cell"} | {kind: "home"}
function whereIs(name) {
  for (let i = 0; i < 8; i++) {
    const d = game.pos.cols[i].indexOf(name);
    if (d >= 0) return { kind: "col", index: i, depth: d };
  }
  return game.pos.cells.includes(name) ? { kind: "cell" } : { kind: "home" };
}

function destinationOf(place) {
  return place.place === "col" ? place.index + 1 : place.place;
}

// a click on a card that is selected already: to its foundation, else to a free cell
async function autoMove(name) {
  const w = whereIs(name);
  const top = w.kind === "cell" || (w.kind === "col" && w.depth === game.pos.cols[w.index].length - 1);
  if (!top) { game.selected = null; render(); return; }
  const legal = game.legal || [];
  if (legal.some((m) => m.card === name && m.to === "home")) { await play(name, "home"); return; }
  if (w.kind === "col" && legal.some((m) => m.card === name && m.to === "cell")) { await play(name, "cell"); return; }
  await play(name, "home");       // the server says why not
}

// --- pointer input: drag and drop, click-click ---------------------------------------------------------

let drag = null;

svg.addEventListener("pointerdown", (ev) => {
  if (game.solution || game.busy || ev.button !== 0) return;
  const g = ev.target.closest("g.card");
  if (!g || whereIs(g.dataset.card).kind === "home") { drag = { card: null, x: ev.clientX, y: ev.clientY, moved: false }; return; }
  const name = g.dataset.card;
  const w = whereIs(name);
  const run = w.kind === "col" ? game.pos.cols[w.index].slice(w.depth) : [name];
  const nodes = run.map((c) => svg.querySelector(`g.card[data-card="${c}"]`)).filter(Boolean);
  drag = { card: name, run, nodes, x: ev.clientX, y: ev.clientY, start: svgPoint(svg, ev.clientX, ev.clientY), moved: false,
           from: w };
  svg.setPointerCapture(ev.pointerId);
  ev.preventDefault();
});

svg.addEventListener("pointermove", (ev) => {
  if (!drag || !drag.card) return;
  if (!drag.moved && Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < 5) return;
  if (!drag.moved) {
    drag.moved = true;
    svg.classList.add("dragging");
    drag.base = drag.nodes.map((n) => n.getAttribute("transform"));
    drag.nodes.forEach((n) => svg.appendChild(n));      // on top of everything
  }
  const p = svgPoint(svg, ev.clientX, ev.clientY);
  const dx = p.x - drag.start.x, dy = p.y - drag.start.y;
  drag.nodes.forEach((n, k) => {
    const m = /translate\(([-\d.]+),([-\d.]+)\)/.exec(drag.base[k]);
    n.setAttribute("transform", `translate(${+m[1] + dx},${+m[2] + dy})`);
  });
  svg.querySelectorAll(".target.drop").forEach((t) => t.classList.remove("drop"));
  const place = placeAt(svg, ev.clientX, ev.clientY);
  const t = svg.querySelector(`.target[data-place="${place.place}"]${place.place === "col" ? `[data-index="${place.index}"]` : ""}`);
  if (t) t.classList.add("drop");
});

svg.addEventListener("pointerup", async (ev) => {
  const d = drag;
  drag = null;
  svg.classList.remove("dragging");
  if (!d) return;
  if (d.moved) {
    const place = placeAt(svg, ev.clientX, ev.clientY);
    const same = (place.place === "col" && d.from.kind === "col" && place.index === d.from.index) ||
                 (place.place === "cell" && d.from.kind === "cell");
    if (same) { render(); return; }
    const slot = place.place === "cell" ? nearestEmptySlot(ev) : null;
    if (!(await play(d.card, destinationOf(place), slot))) render();
    return;
  }
  await click(ev, d.card);
});

svg.addEventListener("pointercancel", () => { drag = null; svg.classList.remove("dragging"); render(); });

function nearestEmptySlot(ev) {
  const targets = [...svg.querySelectorAll('.target[data-place="cell"]')];
  const p = svgPoint(svg, ev.clientX, ev.clientY);
  let best = null, bestD = Infinity;
  targets.forEach((t) => {
    const k = +t.dataset.index;
    if (game.slots[k]) return;
    const cx = +t.getAttribute("x") + +t.getAttribute("width") / 2;
    if (Math.abs(cx - p.x) < bestD) { bestD = Math.abs(cx - p.x); best = k; }
  });
  return best;
}

async function click(ev, cardName) {
  if (game.solution) return;
  const sel = game.selected;
  if (cardName && cardName === sel) { await autoMove(cardName); return; }
  if (sel) {
    // a second click: the destination is the place clicked (a card stands for its column)
    let place;
    if (cardName) {
      const w = whereIs(cardName);
      const selW = whereIs(sel);
      if (w.kind === "col" && !(selW.kind === "col" && selW.index === w.index)) place = { place: "col", index: w.index };
      else if (w.kind === "cell" && selW.kind !== "cell") place = { place: "cell", index: 0 };
      else if (w.kind === "home") place = { place: "home", index: 0 };
      else { game.selected = cardName; render(); return; }   // another card of the same column: reselect
    } else {
      const t = ev.target.closest(".target");
      place = t ? { place: t.dataset.place, index: +t.dataset.index } : placeAt(svg, ev.clientX, ev.clientY);
    }
    const slot = place.place === "cell" ? nearestEmptySlot(ev) : null;
    await play(sel, destinationOf(place), slot);
    return;
  }
  if (cardName && whereIs(cardName).kind !== "home") {
    game.selected = cardName;
    say(`${pretty(cardName)} selected: click where it goes (click it again: foundation or free cell).`);
    render();
  }
}

// --- the list of legal moves (keyboard and touch) ------------------------------------------------------

let legalSeq = 0;
async function refreshLegal() {
  const seq = ++legalSeq;
  let r;
  try { r = await api("/api/moves", { position: game.pos, cells: game.start.cells }); } catch (e) { return; }
  if (seq !== legalSeq) return;
  game.legal = r.moves;
  $("legal-count").textContent = `(${r.moves.length})`;
  $("legal-limit").textContent = !r.moves.length ? "" : `Up to ${r.limit} card${r.limit > 1 ? "s" : ""} can move at once now` +
    (r.empty_columns ? ` (${r.limit_to_empty} to an empty column)` : "") +
    `: ${r.free_cells} empty free cell${r.free_cells !== 1 ? "s" : ""}, ` +
    `${r.empty_columns} empty column${r.empty_columns !== 1 ? "s" : ""}.`;
  const list = $("legal-list");
  list.replaceChildren();
  const groups = [["home", "To the foundations"], ["cell", "To the free cells"], ["col", "To the tableau"]];
  for (const [kind, title] of groups) {
    const ms = r.moves.filter((m) => (kind === "col" ? typeof m.to === "number" : m.to === kind));
    if (!ms.length) continue;
    const h = document.createElement("h3"); h.textContent = title; list.appendChild(h);
    for (const m of ms) {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = m.text; b.dataset.card = m.card; b.dataset.to = m.to;
      b.addEventListener("click", () => play(m.card, m.to));
      list.appendChild(b);
    }
  }
  if (!r.moves.length && !game.won) say("No legal move is left: undo some moves or restart.", "bad");
}

// --- hints ----------------------------------------------------------------------------------------------

async function askHint() {
  if (game.won || game.solution) return;
  const box = $("hint");
  box.hidden = false;
  $("hint-text").textContent = "Searching for a winning line from here…";
  $("hint-apply").hidden = true;
  const asked = game.pos;
  try {
    const r = await api("/api/hint", { position: game.pos, cells: game.start.cells });
    if (asked !== game.pos) return;      // the player moved meanwhile
    $("hint-text").textContent = r.status === "move"
      ? `${r.text} It begins a winning line of ${r.remaining} single-card moves from here, replayed under the rules on the server.`
      : r.text;
    if (r.status === "move") {
      game.hint = { card: r.move.card, to: r.move.to };
      $("hint-apply").hidden = false;
    }
    render();
  } catch (e) { $("hint-text").textContent = e.message; }
}

// --- the verdict panel ------------------------------------------------------------------------------------

function panel(cls, html) {
  const p = $("verdict");
  p.className = "panel verdict " + (cls || "");
  p.innerHTML = html;
}

function esc(s) { return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c])); }
const num = (n) => Number(n).toLocaleString("en");

function showVerdictPending(start) {
  panel("pending", `<h2>Verdict</h2><p>${start.known_unsolvable
    ? "Known unsolvable: one of the eight deals of 1..1,000,000 that FreeCell Pro's survey found unsolvable. Proving it here: enumerating every reachable position…"
    : "Looking for a winning line (and, if none exists, enumerating every reachable position)…"}</p>`);
}

async function loadVerdict(request, tries = 0) {
  const stem = game.start.stem;
  let v;
  try { v = await api("/api/verdict", request); } catch (e) {
    if (game.start.stem === stem) panel("unknown", `<h2>Verdict</h2><p>${esc(e.message)}</p>`);
    return;
  }
  if (game.start.stem !== stem) return;          // another deal meanwhile
  if (v.pending) {
    panel("pending", `<h2>Verdict</h2><p>${esc(v.text)}</p>`);
    if (tries < 20) setTimeout(() => loadVerdict(request, tries + 1), 2000);
    return;
  }
  game.verdict = v;
  setBadges();
  if (v.verdict === "unwinnable") {
    game.frozen = new Set(v.frozen);
    render();
    if (!game.moves) say(`Proven unwinnable: the ${v.frozen.length} cards in the gold fence never move, whatever you play.`);
    const frozen = v.frozen.length ? v.frozen.map(pretty).join(" ") : "none";
    panel("unwinnable", `
      <h2><span class="tag">Proven</span>unwinnable</h2>
      <p>Every position reachable from this deal under the rules was enumerated; none is won.</p>
      <dl class="facts">
        <dt>reachable positions</dt><dd id="v-states">${num(v.reachable)}</dd>
        <dt>most cards home</dt><dd id="v-maxhome">${v.max_home}</dd>
        <dt>certificate</dt><dd id="v-cert">${num(v.certificate.states)} positions, ${num(v.certificate.bytes)} bytes</dd>
        <dt>cards that never move</dt><dd class="frozen-list" id="v-frozen">${esc(frozen)}</dd>
      </dl>
      <p class="note">The ${v.frozen.length} cards outlined in gold stay where they are in every reachable position.</p>
      <p>The certificate proves this Lean theorem:</p>
      <pre class="theorem" id="v-theorem">${esc(v.statement)}</pre>
      <div class="downloads">
        <a id="dl-cert" href="${esc(v.downloads.certificate)}" download>Certificate (.cert)</a>
        <a id="dl-lean" href="${esc(v.downloads.lean)}" download>Standalone Lean file</a>
      </div>
      <p class="note">Check it yourself: <code>python -m certgen check ${esc(v.certificate.file)}</code>, or
        <code>lean ${esc(v.lean_file)}</code> with Lean 4 (this server does not run Lean).</p>`);
  } else if (v.verdict === "winnable") {
    panel("winnable", `
      <h2><span class="tag">Proven</span>winnable</h2>
      <p>The solver found a line of <b>${v.length}</b> single-card moves to a won position, and the server replayed
        it move by move under the spec's rules before showing it.</p>
      <p class="note">${esc(difficultyNote(v))}</p>
      <button id="show-solution" type="button">Show solution</button>
      <p class="note">As a Lean theorem (<code>make prove-win DEAL=…</code> renders it):</p>
      <pre class="theorem">${esc(v.statement)}</pre>`);
    $("show-solution").addEventListener("click", openSolution);
  } else {
    panel("unknown", `
      <h2><span class="tag">Unknown</span></h2>
      <p>No winning line was found within ${num(v.max_states)} positions, and the enumeration of every reachable
        position did not finish. Nothing is claimed either way.</p>`);
  }
}

// --- show solution ----------------------------------------------------------------------------------------

function applyStep(pos, step) {
  const cols = pos.cols.map((c) => c.slice());
  let cells = pos.cells.slice();
  const home = pos.home.slice();
  if (step.from === "cell") cells = cells.filter((c) => c !== step.card);
  else cols[step.from - 1].pop();
  if (step.to === "home") home["CDHS".indexOf(step.card[1])] += 1;
  else if (step.to === "cell") cells = [...cells, step.card].sort((a, b) => cardIndex(a) - cardIndex(b));
  else cols[step.to - 1].push(step.card);
  return { cols, cells, home };
}

function openSolution() {
  const v = game.verdict;
  const positions = [v.start];
  const slots = [layoutSlots([], v.start.cells, game.start.cells)];
  for (const step of v.line) {
    const p = applyStep(positions[positions.length - 1], step);
    positions.push(p);
    slots.push(layoutSlots(slots[slots.length - 1], p.cells, game.start.cells));
  }
  game.solution = { positions, slots, line: v.line, index: 0 };
  $("solution").hidden = false;
  game.selected = null;
  showStep();
}

function showStep() {
  const s = game.solution;
  $("sol-count").textContent = `${s.index} / ${s.line.length}`;
  const next = s.line[s.index];
  $("solution-text").textContent = next
    ? `Next: ${pretty(next.card)} from ${next.from === "cell" ? "a free cell" : "column " + next.from} to ${next.to === "home" ? "its foundation" : next.to === "cell" ? "a free cell" : "column " + next.to}.`
    : "Won: every card is on its foundation.";
  render();
}

function closeSolution() {
  game.solution = null;
  $("solution").hidden = true;
  if (game.pos) render();
}

function stepTo(k) {
  const s = game.solution;
  if (!s) return;
  s.index = Math.max(0, Math.min(s.line.length, k));
  showStep();
}

// --- records ------------------------------------------------------------------------------------------------

function records() {
  try { return JSON.parse(localStorage.getItem(RECORDS_KEY)) || { won: 0, deals: {} }; } catch (e) { return { won: 0, deals: {} }; }
}

function dealKey() { return game.start.code || (game.start.deal != null ? `deal ${game.start.deal}` : game.start.stem); }

function saveRecord(secs) {
  const r = records();
  r.won = (r.won || 0) + 1;
  const k = dealKey();
  const best = r.deals[k] || {};
  r.deals[k] = { moves: Math.min(best.moves ?? Infinity, game.moves), seconds: Math.min(best.seconds ?? Infinity, secs),
                 wins: (best.wins || 0) + 1 };
  try { localStorage.setItem(RECORDS_KEY, JSON.stringify(r)); } catch (e) { /* private mode: no records */ }
  showRecords();
}

function showRecords() {
  const r = records();
  const k = game.start ? dealKey() : null;
  const here = k && r.deals[k];
  const parts = [`Games won: ${r.won || 0}.`];
  if (here) parts.push(`This deal: won ${here.wins}×, best ${here.moves} moves, fastest ${Math.floor(here.seconds / 60)}:${String(here.seconds % 60).padStart(2, "0")}.`);
  else if (k) parts.push("Not won yet on this deal.");
  $("records-text").textContent = parts.join(" ");
}

// --- the deal menu --------------------------------------------------------------------------------------------

const PLACEHOLDERS = { number: "1 – 8,589,934,591", code: "SOL1-freecell-cells=4-N1" };

function syncMode() {
  const mode = $("mode").value;
  const input = $("deal-input");
  input.hidden = !(mode === "number" || mode === "code");
  input.placeholder = PLACEHOLDERS[mode] || "";
  input.inputMode = mode === "number" ? "numeric" : "text";
  $("board-input").hidden = mode !== "board";
}

// The API takes a deal as a JSON number: digits become one; anything else is sent as typed and refused
// there in one line ("deal must be a whole number ...").
function dealNumber(text) { return /^\d{1,16}$/.test(text) ? Number(text) : text; }

async function submitDeal(ev) {
  ev.preventDefault();
  const mode = $("mode").value;
  const value = $("deal-input").value.trim();
  if (mode === "number") return deal({ deal: dealNumber(value.replace(/[,_\s]/g, "")) });
  if (mode === "code") return deal({ code: value });
  if (mode === "board") return deal({ board: $("board-input").value });
  say(mode === "daily" ? "Choosing today's deal…" : "Choosing a deal the solver can win…");
  try {
    const d = new Date();
    const today = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
    const r = mode === "daily" ? await api(`/api/daily?date=${today}`)
                               : await api(`/api/random?difficulty=${mode === "random" ? "any" : mode}`);
    $("deal-input").value = String(r.deal);
    await deal({ deal: r.deal }, mode);
  } catch (e) { say(e.message, "bad"); }
}

// --- wiring --------------------------------------------------------------------------------------------------

$("deal-form").addEventListener("submit", submitDeal);
$("mode").addEventListener("change", syncMode);
$("undo").addEventListener("click", undo);
$("redo").addEventListener("click", redo);
$("restart").addEventListener("click", restart);
$("hint-button").addEventListener("click", askHint);
$("hint-apply").addEventListener("click", () => { if (game.hint) play(game.hint.card, game.hint.to); });
$("autoplay").addEventListener("change", () => { if ($("autoplay").checked && game.pos && !game.solution) autoplayNow(); });
$("sol-first").addEventListener("click", () => stepTo(0));
$("sol-prev").addEventListener("click", () => stepTo(game.solution.index - 1));
$("sol-next").addEventListener("click", () => stepTo(game.solution.index + 1));
$("sol-last").addEventListener("click", () => stepTo(Infinity));
$("sol-close").addEventListener("click", closeSolution);
document.addEventListener("keydown", (ev) => {
  if (ev.target.matches("input, textarea, select")) return;
  const k = ev.key.toLowerCase();
  if ((ev.ctrlKey || ev.metaKey) && k === "z") { ev.preventDefault(); ev.shiftKey ? redo() : undo(); }
  else if ((ev.ctrlKey || ev.metaKey) && k === "y") { ev.preventDefault(); redo(); }
  else if (k === "h" && !ev.ctrlKey && !ev.metaKey) askHint();
  else if (k === "escape") { game.selected = null; if (game.pos) render(); }
  else if (game.solution && k === "arrowright") stepTo(game.solution.index + 1);
  else if (game.solution && k === "arrowleft") stepTo(game.solution.index - 1);
});

// the first deal: #deal=N or ?deal=N, #code=... or ?code=..., else deal 1
syncMode();
const params = new URLSearchParams(location.hash.slice(1) || location.search.slice(1));
if (params.get("code")) { $("mode").value = "code"; $("deal-input").value = params.get("code"); syncMode(); deal({ code: params.get("code") }); }
else { const n = params.get("deal") || "1"; $("deal-input").value = n; deal({ deal: dealNumber(n) }); }
showRecords();
