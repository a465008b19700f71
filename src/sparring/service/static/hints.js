// Hints during a game, on request: the AI's top moves for the person's position
// (POST /api/games/{id}/hint, a fixed small search on the server) and what the AI thought of
// its own last move (the analysis the game's state carries).  Only in a game started with
// hints on; never against an adaptive opponent (it estimates the person's strength, and the
// server refuses hints there).
import { el } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const TOP = 5; // candidates shown

const assist = {
  ctx: null, // {api, showMessage, game(), busy()} given by the page
  shown: null, // {id, ply, kind: "hint" | "ai", data}: what the panel shows now
  asking: false,
};

const $ = (id) => document.getElementById(id);

function svgNode(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

function humanToMove(state) {
  return state.status === "ongoing" && !state.ai_thinking && state.to_move === state.human_side;
}

function percent(x) {
  return `${Math.round(100 * x)}%`;
}

function expectedScore(q) {
  // A value in [-1, 1] for a side as its expected score (0 a loss, 1 a win).
  return q === null || q === undefined || typeof q !== "number" ? "–" : percent((q + 1) / 2);
}

// ---------------------------------------------------------------- the new-game form

export function syncHintsChoice(mode) {
  // Against an adaptive opponent there are no hints: the box is off and says why.
  const box = $("hints-check");
  const adaptive = mode === "adaptive";
  if (adaptive) box.checked = false;
  box.disabled = adaptive;
  $("hints-note").textContent = adaptive
    ? "Not against an adaptive opponent: it estimates your strength from your moves, and a hint would spoil it."
    : "On request during the game: the AI's top moves for your position, and what it thought of its own last move.";
}

export function hintsWanted() {
  const box = $("hints-check");
  return box.checked && !box.disabled;
}

// ---------------------------------------------------------------- the game

export function initAssist(ctx) {
  assist.ctx = ctx;
  $("hint-button").addEventListener("click", askHint);
  $("ai-view-button").addEventListener("click", showAiView);
}

function lastAiMove(state) {
  const ai = state.moves.filter((m) => m.by === "ai");
  return ai.length ? ai[ai.length - 1] : null;
}

export function renderAssist(state) {
  const on = Boolean(state.hints?.on) && state.status === "ongoing";
  $("assist").hidden = !on;
  if (assist.shown && (assist.shown.id !== state.id || assist.shown.ply !== state.ply || !on)) {
    assist.shown = null; // the position moved on: the hint no longer fits
  }
  if (!on) return;
  const mine = humanToMove(state) && !assist.ctx.busy();
  $("hint-button").disabled = !mine || assist.asking;
  const last = lastAiMove(state);
  $("ai-view-button").disabled = !last?.analysis || !last.analysis.moves?.length;
  renderOutput(state);
}

async function askHint() {
  const state = assist.ctx.game();
  if (!state || assist.asking) return;
  assist.asking = true;
  $("hint-button").disabled = true;
  $("hint-button").textContent = "Thinking…";
  try {
    const hint = await assist.ctx.api("POST", `/api/games/${encodeURIComponent(state.id)}/hint`, { ply: state.ply });
    const now = assist.ctx.game();
    if (now && now.id === state.id && now.ply === hint.ply) {
      assist.shown = { id: state.id, ply: hint.ply, kind: "hint", data: hint };
      assist.ctx.showMessage("");
    }
  } catch (err) {
    assist.ctx.showMessage(err.message);
  } finally {
    assist.asking = false;
    $("hint-button").textContent = "Hint";
  }
  const now = assist.ctx.game();
  if (now) {
    renderAssist(now);
    assist.ctx.redrawBoard();
  }
}

function showAiView() {
  const state = assist.ctx.game();
  const last = state && lastAiMove(state);
  if (!last?.analysis) return;
  assist.shown = { id: state.id, ply: state.ply, kind: "ai", data: last };
  renderAssist(state);
  assist.ctx.redrawBoard();
}

function candidateTable(caption, head, rows) {
  const table = el("table", { class: "candidates assist-table" });
  table.append(el("caption", {}, caption));
  const tr = el("tr");
  for (const title of head) tr.append(el("th", { scope: "col" }, title));
  const thead = el("thead");
  thead.append(tr);
  const body = el("tbody");
  for (const row of rows) {
    const line = el("tr", row.played ? { class: "played" } : {});
    for (const cell of row.cells) line.append(el("td", {}, cell));
    body.append(line);
  }
  table.append(thead, body);
  return table;
}

function renderOutput(state) {
  const host = $("assist-output");
  host.replaceChildren();
  const shown = assist.shown;
  if (!shown) return;
  if (shown.kind === "hint") {
    const h = shown.data;
    host.append(el("p", { class: "assist-head" }, `Hint: the AI would play ${h.move.text}.`));
    const rows = h.candidates.map((c, i) => ({
      played: false,
      cells: [`${i + 1}. ${c.text}`, percent(c.share), expectedScore(c.q)],
    }));
    host.append(candidateTable("Its top moves for you", ["move", "visits", "your score"], rows));
    const value = typeof h.value === "number" ? ` It gives you ${expectedScore(h.value)} here.` : "";
    const where = state.board.kind === "chess" ? "" : " (numbered on the board)";
    host.append(el("p", { class: "hint" }, `A search of ${h.simulations} simulations${where}.${value}`));
    return;
  }
  const m = shown.data;
  const a = m.analysis;
  const order = a.moves.map((mv, i) => i);
  const byVisits = a.visits.some((v) => v > 0);
  order.sort((x, y) => (byVisits ? a.visits[y] - a.visits[x] : Number(a.q[y]) - Number(a.q[x])));
  const top = order.slice(0, TOP);
  const played = a.moves.indexOf(m.move);
  if (played >= 0 && !top.includes(played)) top.push(played);
  const total = a.visits.reduce((s, v) => s + v, 0) || 1;
  const rows = top.map((i) => ({
    played: a.moves[i] === m.move,
    cells: [a.texts?.[i] ?? String(a.moves[i]), percent(a.visits[i] / total), expectedScore(Number(a.q[i]))],
  }));
  host.append(el("p", { class: "assist-head" }, `The AI played ${m.san ?? m.text} (move ${m.ply + 1}).`));
  host.append(candidateTable("What it weighed", ["move", "visits", "its score"], rows));
  const value = typeof a.value === "number" ? ` It gave itself ${expectedScore(a.value)} there.` : "";
  host.append(el("p", { class: "hint" }, `${a.simulations ?? 0} simulations; the move it played in bold.${value}`));
}

export function markBoard(state, board) {
  // The hint's candidates numbered on the board (grid games; chess names them in the list).
  const shown = assist.shown;
  if (!shown || shown.kind !== "hint" || shown.id !== state.id || shown.ply !== state.ply) return;
  shown.data.candidates.forEach((c, i) => {
    const target = board.querySelector(`[data-move="${c.move}"]`);
    if (!target || state.board.kind === "chess") return;
    const column = target.closest(".c4-col")?.querySelector("circle");
    const size = Number(target.getAttribute("width"));
    const cx = column ? Number(column.getAttribute("cx")) : Number(target.getAttribute("x")) + size / 2;
    const cy = column ? Number(column.getAttribute("cy")) : Number(target.getAttribute("y")) + Number(target.getAttribute("height")) / 2;
    const mark = svgNode("g", { class: "hint-mark", "data-hint": String(i + 1), "aria-hidden": "true" });
    mark.append(svgNode("circle", { cx, cy, r: Math.min(size, 40) * 0.3 }));
    mark.append(svgNode("text", { x: cx, y: cy + 5 }, String(i + 1)));
    board.append(mark);
  });
}
