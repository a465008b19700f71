// sparring's page: plain ES module, no build step, no dependencies.
// It talks to the HTTP API under /api (the OpenAPI schema at /openapi.json) and draws
// every board as SVG.  User text (player names, server messages) is only ever set with
// textContent, never as HTML.

import { initClocks, renderClocks, timeControlWanted } from "./clocks.js";
import { hintsWanted, initAssist, markBoard, renderAssist, syncHintsChoice } from "./hints.js";
import { renderScore } from "./score.js";
import { initSignin, signinFromLink } from "./signin.js";
import { initUpload, showUpload } from "./upload.js";
import { showGameReview } from "./review.js";
import { scrollToPoint, toggleZoom, zoomBoard } from "./zoom.js";

const SVG = "http://www.w3.org/2000/svg";
const TOKEN_KEY = "sparring.token";
const PLAYER_KEY = "sparring.player";

function storedPlayer() {
  try {
    const me = JSON.parse(localStorage.getItem(PLAYER_KEY) ?? "null");
    return me && typeof me.name === "string" ? me : null;
  } catch {
    return null;
  }
}

const ui = {
  token: localStorage.getItem(TOKEN_KEY),
  me: storedPlayer(), // {id, name}; checked against GET /api/me at start
  catalog: null, // GET /api/catalog
  game: null, // the GameState shown
  gen: 0, // bumps whenever another game is shown: stale polls stop
  selected: null, // chess: the square a move starts from
  busy: false, // a move request is in flight
  disarmPass: null, // takes back the pass button's question
  zoomCentred: null, // the game whose zoomed board was scrolled to its last stone
};

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- small helpers

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

function showMessage(text, kind = "error") {
  const box = $("message");
  box.textContent = text;
  box.className = kind;
  box.hidden = !text;
}

function fmt(x, digits = 0) {
  if (x === null || x === undefined) return "–";
  if (typeof x === "string") return x; // "inf", "-inf", "nan"
  return Number(x).toFixed(digits);
}

function gameInfo(name) {
  return ui.catalog?.games.find((g) => g.name === name) ?? null;
}

const DISC_COLOUR = { connect4: ["red", "yellow"] };

function sideName(info, side) {
  const name = info?.sides?.[side] ?? (side === 0 ? "first" : "second");
  const colour = DISC_COLOUR[info?.name]?.[side];
  return colour ? `${name}, ${colour}` : name;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------- the API

class ApiError extends Error {
  constructor(status, detail, retryAfter) {
    super(detail);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

async function api(method, path, body = undefined, { raw = false } = {}) {
  const headers = {};
  if (ui.token) headers.Authorization = `Bearer ${ui.token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    let detail = `${response.status} ${response.statusText}`;
    try {
      const data = await response.json();
      if (data && typeof data.detail === "string") detail = data.detail;
      else if (data && data.detail) detail = JSON.stringify(data.detail);
    } catch {
      /* not JSON: keep the status line */
    }
    if (response.status === 401 && ui.token) forgetPlayer(false);
    throw new ApiError(response.status, detail, Number(response.headers.get("Retry-After") || 0));
  }
  if (raw) return response;
  if (response.status === 204) return null;
  return response.json();
}

// ---------------------------------------------------------------- the player

function rememberPlayer(me, token) {
  ui.me = { id: me.id, name: me.name };
  if (token) {
    ui.token = token;
    localStorage.setItem(TOKEN_KEY, token);
  }
  localStorage.setItem(PLAYER_KEY, JSON.stringify(ui.me));
}

function forgetPlayer(ask = true) {
  if (ask && !window.confirm("Forget this player on this device? Without the token, its games and profile cannot be opened again here.")) return;
  ui.token = null;
  ui.me = null;
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(PLAYER_KEY);
  location.hash = "";
  route();
}

function showPlayer() {
  const known = Boolean(ui.token && ui.me);
  $("player-section").hidden = known;
  $("player-known").hidden = !known;
  $("player-label").textContent = known ? ui.me.name : "";
  $("nav-new").hidden = !known;
  $("nav-profile").hidden = !known;
  $("nav-upload").hidden = !known;
}

async function createPlayer(event) {
  event.preventDefault();
  // A blank name (only spaces) goes to the server too, which says what a name needs.
  const name = $("player-name").value.trim();
  try {
    const created = await api("POST", "/api/players", { name });
    rememberPlayer(created, created.token);
    showMessage("");
    location.hash = "#new";
    route();
  } catch (err) {
    showMessage(err.message);
  }
}

// ---------------------------------------------------------------- a new game

const ADAPTIVE_HELP = {
  bayes: "Between games: a Bayesian estimate of your Elo, continued from your profile (recommended).",
  intra: "Within each game: the AI adjusts its strength move by move (Wu et al.'s intra-game DSA).",
  "alphadda1-floor": "AlphaDDA1 with a floor: more or fewer simulations as the game goes, driven by your results.",
};
const ADAPTIVE_LABEL = {
  bayes: "Find my level between games (Bayesian)",
  intra: "Adapt within each game",
  "alphadda1-floor": "AlphaDDA1 with a floor",
};

function fillGameSelect() {
  const select = $("game-select");
  const previous = select.value || localStorage.getItem("sparring.lastGame");
  select.replaceChildren();
  for (const g of ui.catalog.games) select.append(el("option", { value: g.name }, g.label));
  if (previous && gameInfo(previous)) select.value = previous;
  onGameChange();
}

function onGameChange() {
  const info = gameInfo($("game-select").value);
  if (!info) return;
  const levels = info.levels ?? {};
  const modes = {
    elo: Boolean(levels.elo),
    rank: Boolean(levels.ranks && levels.ranks.length),
    adaptive: Boolean(levels.adaptive && levels.adaptive.length),
  };
  for (const [mode, ok] of Object.entries(modes)) {
    $(`mode-${mode}`).disabled = !ok;
    $(`mode-${mode}-label`).hidden = !ok;
  }
  const current = document.querySelector('input[name="mode"]:checked');
  if (!current || (current.value !== "default" && !modes[current.value])) {
    const first = ["elo", "rank", "adaptive"].find((m) => modes[m]) ?? "default";
    $(`mode-${first}`).checked = true;
  }
  $("mode-default-label").hidden = !Object.values(modes).some(Boolean);
  $("level-none").hidden = Object.values(modes).some(Boolean);
  $("level-none").textContent = "This game has one opponent: its best available AI.";
  if (levels.elo) {
    // One source for every Elo shown: the catalog's whole-number range (low, high) and
    // default, which the server plays and writes in its labels; the slider steps by 1 so that
    // it reaches both ends and always shows what the number field says.
    const { low, high } = levels.elo;
    const slider = $("elo-range");
    slider.min = String(low);
    slider.max = String(high);
    slider.step = "1";
    // The number field may go outside the range (the server clamps and says so); the slider may not.
    $("elo-number").step = "1";
    const initial = info.default_elo ?? wholeElo((low + high) / 2);
    slider.value = String(initial);
    $("elo-number").value = String(initial);
    updateEloHint();
  }
  const ranks = $("rank-select");
  ranks.replaceChildren();
  for (const r of levels.ranks ?? []) ranks.append(el("option", { value: r }, r));
  if (levels.ranks?.length) ranks.selectedIndex = Math.floor(levels.ranks.length / 2);
  $("rank-hint").textContent = "Ranks of the measured handicap ladder: one stone between neighbours.";
  const adaptive = $("adaptive-select");
  adaptive.replaceChildren();
  for (const k of levels.adaptive ?? []) adaptive.append(el("option", { value: k }, ADAPTIVE_LABEL[k] ?? k));
  updateAdaptiveHint();
  const side = $("side-select");
  side.options[0].textContent = `first: ${sideName(info, 0)}`;
  side.options[1].textContent = `second: ${sideName(info, 1)}`;
  onModeChange();
}

function onModeChange() {
  const mode = document.querySelector('input[name="mode"]:checked')?.value;
  $("elo-controls").hidden = mode !== "elo";
  $("rank-controls").hidden = mode !== "rank";
  $("adaptive-controls").hidden = mode !== "adaptive";
  $("default-hint").hidden = mode !== "default" || !$("level-none").hidden;
  syncHintsChoice(mode);
}

function wholeElo(x) {
  // An Elo as the server writes it: the nearest whole number, a half to the even one.
  const down = Math.floor(x);
  const rest = x - down;
  if (rest !== 0.5) return rest < 0.5 ? down : down + 1;
  return down % 2 === 0 ? down : down + 1;
}

function askedElo() {
  // The Elo in the number field as a whole number (what is sent), or null.
  const text = $("elo-number").value;
  const value = Number(text);
  return text === "" || !Number.isFinite(value) ? null : wholeElo(value);
}

function nearestLevel(levels, elo) {
  // The measured level a table of rows plays for an Elo (the server's rule: the nearest, the
  // weaker of two as near).
  let best = null;
  for (const row of levels) {
    if (row.elo === null || row.elo === undefined) continue;
    const d = Math.abs(row.elo - elo);
    if (!best || d < best.d || (d === best.d && row.elo < best.elo)) best = { d, elo: row.elo };
  }
  return best ? wholeElo(best.elo) : null;
}

function updateEloHint() {
  const info = gameInfo($("game-select").value);
  const range = info?.levels?.elo;
  if (!range) return;
  const { low, high } = range;
  const asked = askedElo();
  let text = `Measured range ${low}–${high}: Elo on ${range.scale} (${range.anchor}).`;
  const hint = $("elo-hint");
  hint.classList.remove("warn");
  if (asked !== null && range.nearest) {
    const played = nearestLevel(range.levels ?? [], asked);
    const shown = (range.levels ?? []).map((r) => wholeElo(r.elo)).join(", ");
    text += ` Only these levels were measured: ${shown}.`;
    if (played !== null && played !== asked) {
      text += ` For ${asked} the AI will play the nearest, ${played}.`;
      hint.classList.add("warn");
    }
  } else if (asked !== null && asked < low) {
    text += ` ${asked} is below it: the AI will play at ${low}, its weakest measured level.`;
    hint.classList.add("warn");
  } else if (asked !== null && asked > high) {
    text += ` ${asked} is above it: the AI will play at ${high}, its strongest measured level.`;
    hint.classList.add("warn");
  }
  hint.textContent = text;
}

function updateAdaptiveHint() {
  $("adaptive-hint").textContent = ADAPTIVE_HELP[$("adaptive-select").value] ?? "";
}

async function startGame(event) {
  event.preventDefault();
  const game = $("game-select").value;
  const mode = document.querySelector('input[name="mode"]:checked')?.value;
  let opponent;
  if (mode === "elo") {
    const elo = askedElo();
    if (elo === null) {
      showMessage("Please give the target Elo as a number.");
      $("elo-number").focus();
      return;
    }
    opponent = { mode: "elo", elo };
  } else if (mode === "rank") {
    opponent = { mode: "rank", rank: $("rank-select").value };
  } else if (mode === "adaptive") {
    opponent = { mode: "adaptive", kind: $("adaptive-select").value };
  } else {
    opponent = gameInfo(game)?.levels?.strongest ? { mode: "strongest" } : { mode: "default" };
  }
  localStorage.setItem("sparring.lastGame", game);
  $("start-game").disabled = true;
  try {
    const state = await api("POST", "/api/games", { game, opponent, side: $("side-select").value, hints: hintsWanted(), clock: timeControlWanted() });
    showMessage("");
    openGame(state);
  } catch (err) {
    showMessage(err.message);
  } finally {
    $("start-game").disabled = false;
  }
}

async function showMyGames() {
  try {
    const games = await api("GET", "/api/games");
    fillGameList($("my-games"), games.filter((g) => g.status === "ongoing"), "No unfinished games.");
    $("my-games-wrap").hidden = !games.some((g) => g.status === "ongoing");
  } catch (err) {
    showMessage(err.message);
  }
}

function movesPlayed(game, ply) {
  // Moves as players count them: chess counts a move of each side as one (1. e4 e5), the
  // other games every move.
  const n = game === "chess" ? Math.ceil(ply / 2) : ply;
  return `${n} move${n === 1 ? "" : "s"}`;
}

function summaryOutcome(g) {
  if (g.status !== "over") return `in progress, move ${g.game === "chess" ? Math.floor(g.ply / 2) + 1 : g.ply + 1}`;
  if (g.result === null || g.result === undefined) return "finished";
  const mine = g.result; // the person's score (1 win, 0.5 draw, 0 loss)
  const after = movesPlayed(g.game, g.ply);
  if (mine === 0.5) return `draw after ${after}`;
  return mine > 0.5 ? `you won after ${after}` : `you lost after ${after}`;
}

function fillGameList(list, games, empty) {
  list.replaceChildren();
  if (!games.length) {
    list.append(el("li", { class: "empty" }, empty));
    return;
  }
  for (const g of games) {
    const info = gameInfo(g.game);
    const li = el("li");
    const button = el("button", { type: "button", class: "link", "data-game-id": g.id });
    button.textContent = `${info?.label ?? g.game} against ${g.opponent_label}`;
    button.addEventListener("click", () => {
      location.hash = `#game/${g.id}`;
    });
    li.append(button, el("span", { class: "meta" }, ` — ${summaryOutcome(g)}, ${new Date(g.updated).toLocaleString()}`));
    list.append(li);
  }
}

// ---------------------------------------------------------------- a game

function openGame(state) {
  ui.gen += 1;
  ui.selected = null;
  ui.game = state;
  if (location.hash !== `#game/${state.id}`) history.pushState(null, "", `#game/${state.id}`);
  showSection("game");
  renderGame();
  followAI();
}

async function loadGame(id) {
  try {
    const state = await api("GET", `/api/games/${encodeURIComponent(id)}`);
    ui.gen += 1;
    ui.selected = null;
    ui.game = state;
    showSection("game");
    renderGame();
    followAI();
  } catch (err) {
    showMessage(err.message);
    location.hash = "#new";
  }
}

function aiToMove(state) {
  return state.status === "ongoing" && (state.ai_thinking || state.to_move !== state.human_side);
}

async function followAI() {
  const gen = ui.gen;
  let failures = 0;
  while (gen === ui.gen && ui.game && aiToMove(ui.game)) {
    try {
      const state = await api("GET", `/api/games/${encodeURIComponent(ui.game.id)}?wait=5`);
      if (gen !== ui.gen) return;
      failures = 0;
      ui.game = state;
      renderGame();
    } catch (err) {
      if (gen !== ui.gen) return;
      failures += 1;
      if (err.status && err.status < 500 && err.status !== 429) {
        showMessage(err.message);
        return;
      }
      showMessage(`Waiting for the server (${err.message}); trying again.`, "info");
      await sleep(err.retryAfter ? err.retryAfter * 1000 : Math.min(10000, 1000 * failures));
    }
  }
  if (gen === ui.gen && $("message").className === "info") showMessage("");
}

async function gameAction(path, body) {
  // True when the server took the action; false when it refused it (its message shown).
  if (!ui.game || ui.busy) return false;
  const gen = ui.gen;
  ui.busy = true;
  renderControls();
  let done = false;
  try {
    const state = await api("POST", `/api/games/${encodeURIComponent(ui.game.id)}/${path}`, body);
    if (gen !== ui.gen) return false;
    showMessage("");
    $("move-error").hidden = true;
    ui.game = state;
    ui.selected = null;
    done = true;
  } catch (err) {
    showMessage(err.message);
    if (err.status === 409) {
      // The game moved on elsewhere (another tab, a retried request): show where it is.
      try {
        ui.game = await api("GET", `/api/games/${encodeURIComponent(ui.game.id)}`);
      } catch {
        /* keep what we have */
      }
    }
  } finally {
    ui.busy = false;
  }
  if (gen !== ui.gen) return false;
  renderGame();
  followAI();
  return done;
}

function playMove(text) {
  if (!ui.game) return Promise.resolve(false);
  return gameAction("moves", { move: text, ply: ui.game.ply });
}

function humanToMove(state) {
  return state.status === "ongoing" && !state.ai_thinking && state.to_move === state.human_side;
}

function renderGame() {
  const state = ui.game;
  const info = gameInfo(state.game);
  $("game-title").textContent = info?.label ?? state.game;
  $("game-opponent").textContent = `against ${state.opponent?.label ?? state.opponent_label}`;
  const notices = $("notices");
  notices.replaceChildren();
  for (const n of state.opponent?.notices ?? []) notices.append(el("li", {}, n));
  renderBoard(state, info);
  renderStatus(state, info);
  renderMoveList(state, info);
  renderControls();
  renderAfterGame(state, info);
  renderScore(state, info, $("go-score"));
  renderAssist(state, info);
  renderClocks(state, info);
}

function renderStatus(state, info) {
  const status = $("status");
  const thinking = state.status === "ongoing" && aiToMove(state);
  status.classList.toggle("thinking", thinking);
  $("board").setAttribute("aria-busy", String(thinking));
  const you = sideName(info, state.human_side);
  const ai = sideName(info, 1 - state.human_side);
  if (state.status === "over") {
    status.textContent = "Game over.";
  } else if (aiToMove(state)) {
    status.textContent = `The AI is thinking… (it plays ${ai})`;
  } else if (passMove(state)?.ends_game) {
    status.textContent = `Your move: you play ${you}. The AI passed: if you pass too, the game ends and is scored.`;
  } else {
    status.textContent = `Your move: you play ${you}.`;
  }
  const result = $("result");
  result.hidden = state.status !== "over";
  result.textContent = state.status === "over" ? state.result_text ?? "The game is over." : "";
}

function renderControls() {
  const state = ui.game;
  if (!state) return;
  const mine = humanToMove(state) && !ui.busy;
  const over = state.status !== "ongoing";
  $("move-form").hidden = over;
  $("resign-button").hidden = over;
  $("move-input").disabled = !mine;
  $("move-submit").disabled = !mine;
  $("resign-button").disabled = over || ui.busy;
  const humanMoves = state.moves.some((m) => m.by === "human");
  $("undo-button").hidden = over; // a finished game cannot be taken back
  $("undo-button").disabled = !humanMoves || ui.busy || state.ai_thinking;
  const pass = passMove(state);
  $("pass-button").hidden = !pass;
  $("pass-button").disabled = !mine;
  if (!mine) ui.disarmPass?.();
  const datalist = $("legal-moves");
  datalist.replaceChildren();
  // Chess: SAN (Nf3) where the server sends it; "g1f3" is understood too.
  for (const m of state.legal) datalist.append(el("option", { value: m.san ?? m.text }));
  const examples = state.legal.slice(0, 4).map((m) => m.san ?? m.text).join(", ");
  $("move-hint").textContent = mine && examples ? `Legal moves: ${examples}${state.legal.length > 4 ? ", …" : ""}` : "";
}

function renderMoveList(state, info) {
  const list = $("move-list");
  list.replaceChildren();
  for (const m of state.moves) {
    const who = m.by === "human" ? "you" : "AI";
    const li = el("li", { class: `side${m.side}` });
    // Chess numbers a move pair (1. e4, 1… e5); the other games number every move.
    const number = state.game === "chess" ? `${Math.floor(m.ply / 2) + 1}${m.ply % 2 ? "…" : "."}` : `${m.ply + 1}.`;
    li.append(el("span", { class: "num" }, `${number} `), document.createTextNode(m.san ?? m.text));
    li.title = `${sideName(info, m.side)} (${who})`;
    li.append(el("span", { class: "who" }, ` ${who}`));
    list.append(li);
  }
  list.scrollTop = list.scrollHeight;
}

function renderAfterGame(state, info) {
  const over = state.status === "over";
  $("after-game").hidden = !over;
  $("analysis-wrap").hidden = !over;
  if (!over) return;
  const downloads = $("downloads");
  downloads.replaceChildren();
  const formats = [];
  if (state.game.startsWith("go")) formats.push(["sgf", "SGF"]);
  if (state.game === "chess") formats.push(["pgn", "PGN"]);
  formats.push(["moves", "move list"]);
  for (const [format, label] of formats) {
    const button = el("button", { type: "button", "data-format": format }, `Download ${label}`);
    button.addEventListener("click", () => downloadRecord(state, format));
    downloads.append(button);
  }
  renderAnalysis(state, info);
  showGameReview(state);
}

async function downloadRecord(state, format) {
  try {
    const response = await api("GET", `/api/games/${encodeURIComponent(state.id)}/record?format=${format}`, undefined, { raw: true });
    const text = await response.text();
    const disposition = response.headers.get("Content-Disposition") ?? "";
    const match = /filename="?([^";]+)"?/.exec(disposition);
    const ext = format === "moves" ? "txt" : format;
    const name = match ? match[1] : `${state.game}-${state.id}.${ext}`;
    const url = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    const a = el("a", { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (err) {
    showMessage(err.message);
  }
}

// ---------------------------------------------------------------- move text of analysis moves

const GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

function moveText(state, move, analysis = null, index = -1) {
  // The server may send the texts beside the ints; otherwise grid games are worked out here.
  const texts = analysis?.texts ?? analysis?.move_texts;
  if (texts && index >= 0 && texts[index] !== undefined) return texts[index];
  const legal = state.legal.find((m) => m.move === move);
  if (legal) return legal.san ?? legal.text;
  const played = state.moves.find((m) => m.move === move);
  if (played) return played.san ?? played.text;
  if (state.board.kind === "chess") return chessActionText(move);
  if (state.board.kind !== "grid") return `#${move}`;
  const { rows, cols } = state.board;
  if (state.game === "connect4") return String(move + 1);
  if (move >= rows * cols) return "pass";
  const r = Math.floor(move / cols);
  const c = move % cols;
  if (state.game.startsWith("go")) return `${GTP_COLUMNS[c]}${rows - r}`;
  if (state.game.startsWith("othello")) return `${"abcdefgh"[c]}${r + 1}`;
  return `#${move}`;
}

// sparring's chess actions (src/sparring/games/chess.py): from * 64 + to below 4096, then
// 4096 + 4 * k + piece for the k-th promotion step (White's first) and piece q, r, b, n.
const CHESS_PROMOTION_STEPS = (() => {
  const steps = [];
  for (const [fromRank, toRank] of [[6, 7], [1, 0]]) {
    for (let f = 0; f < 8; f++) {
      for (const df of [-1, 0, 1]) if (f + df >= 0 && f + df < 8) steps.push([fromRank * 8 + f, toRank * 8 + f + df]);
    }
  }
  return steps;
})();

function squareName(sq) {
  return `${"abcdefgh"[sq % 8]}${Math.floor(sq / 8) + 1}`;
}

function chessActionText(action) {
  if (action >= 0 && action < 4096) return squareName(Math.floor(action / 64)) + squareName(action % 64);
  const k = Math.floor((action - 4096) / 4);
  if (action >= 4096 && k < CHESS_PROMOTION_STEPS.length) {
    const [from, to] = CHESS_PROMOTION_STEPS[k];
    return squareName(from) + squareName(to) + "qrbn"[(action - 4096) % 4];
  }
  return `#${action}`;
}

function gridCellOfMove(state, move, played = false) {
  // A legal move's cell comes with the state; a played move's cell is worked out here
  // (Connect4: the top disc of its column).
  const cell = played ? null : state.cell_of_move?.[String(move)];
  if (cell) return cell;
  const { rows, cols, cells } = state.board;
  if (state.game === "connect4" || state.click === "column") {
    for (let r = 0; r < rows; r++) if (cells[r][move] !== ".") return [r, move];
    return null;
  }
  if (move < 0 || move >= rows * cols) return null;
  return [Math.floor(move / cols), move % cols];
}

// ---------------------------------------------------------------- boards

function renderBoard(state, info) {
  const host = $("board");
  const { scrollLeft, scrollTop } = host; // a zoomed board stays where it was scrolled to
  host.replaceChildren();
  let board;
  if (state.board.kind === "chess") board = chessBoard(state, info);
  else if (state.game.startsWith("go")) board = goBoard(state, info);
  else if (state.game === "connect4" || state.click === "column") board = connect4Board(state, info);
  else board = othelloBoard(state, info);
  host.append(board);
  markBoard(state, board);
  const kind = state.game.startsWith("go") ? "go" : "";
  const zoomed = zoomBoard(host, board, $("zoom-button"), { cell: S, rulers: boardRulers(state), kind });
  host.scrollLeft = scrollLeft;
  host.scrollTop = scrollTop;
  if (zoomed && ui.zoomCentred !== state.id) {
    // Opened zoomed: on the last stone played (a finished Go game ends with passes), or on
    // the centre of a board without one.
    ui.zoomCentred = state.id;
    const { rows, cols } = state.board;
    const [r, c] = lastPlaced(state) ?? [(rows - 1) / 2, (cols - 1) / 2];
    scrollToPoint(host, board, M + (c + 0.5) * S, M + (r + 0.5) * S);
  }
}

function lastPlaced(state) {
  // The cell of the last move that put a stone or disc on a grid board (a pass puts none).
  if (state.board.kind !== "grid") return null;
  for (let i = state.moves.length - 1; i >= 0; i--) {
    const cell = gridCellOfMove(state, state.moves[i].move, true);
    if (cell) return cell;
  }
  return null;
}

function boardRulers(state) {
  // A Go or Othello board's coordinates (each point's centre, in the board's units) for the
  // rulers of its zoomed view; null for the other boards.
  const { kind, rows, cols } = state.board;
  const go = state.game.startsWith("go");
  if (kind !== "grid" || !(go || state.game.startsWith("othello"))) return null;
  const letters = go ? GTP_COLUMNS : "abcdefgh";
  const at = (i) => M + (i + 0.5) * S;
  return {
    margin: M,
    cols: Array.from({ length: cols }, (_, c) => [at(c), letters[c]]),
    rows: Array.from({ length: rows }, (_, r) => [at(r), rowLabel(state, r)]),
  };
}

function boardSvg(width, height, label, top = 0) {
  return svg("svg", {
    viewBox: `0 ${top} ${width} ${height - top}`,
    role: "group",
    "aria-label": label,
    class: "board-svg",
    preserveAspectRatio: "xMidYMid meet",
  });
}

function describeBoard(state, info) {
  const last = state.last_move ? `; last move ${state.last_move.san ?? state.last_move.text} by ${sideName(info, state.last_move.side)}` : "";
  return `${info?.label ?? state.game} board${last}`;
}

function focusable(node, label, action) {
  // A board target reachable by Tab and played by Enter or Space (boards with few targets;
  // every move can also be typed).
  node.setAttribute("tabindex", "0");
  node.setAttribute("role", "button");
  node.setAttribute("aria-label", label);
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      action();
    }
  });
}

function hit(group, x, y, w, h, move, text, extra = {}, keyboard = true) {
  const r = svg("rect", { x, y, width: w, height: h, class: "hit", "data-move": move, "data-text": text, ...extra });
  r.append(svg("title", {}, `Play ${text}`));
  const play = () => {
    if (humanToMove(ui.game) && !ui.busy) playMove(text);
  };
  r.addEventListener("click", play);
  if (keyboard) focusable(r, `Play ${text}`, play);
  group.append(r);
  return r;
}

const S = 40; // one cell in SVG units
const M = 22; // margin for coordinates

function connect4Board(state, info) {
  const { rows, cols, cells } = state.board;
  const w = cols * S + 2 * M;
  const h = rows * S + 2 * M;
  const root = boardSvg(w, h, describeBoard(state, info), M - 8); // no coordinates on top
  root.classList.add("connect4");
  root.append(svg("rect", { x: M - 6, y: M - 6, width: cols * S + 12, height: rows * S + 12, rx: 12, class: "c4-frame" }));
  const mine = humanToMove(state) && !ui.busy;
  const legalByCol = new Map();
  for (const m of state.legal) {
    const cell = gridCellOfMove(state, m.move);
    if (cell) legalByCol.set(cell[1], { ...m, cell });
  }
  const last = state.last_move ? gridCellOfMove(state, state.last_move.move, true) : null;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const ch = cells[r][c];
      const cx = M + c * S + S / 2;
      const cy = M + r * S + S / 2;
      const cls = ch === "x" ? "stone p0" : ch === "o" ? "stone p1" : "hole";
      root.append(svg("circle", { cx, cy, r: S * 0.4, class: cls }));
      if (last && last[0] === r && last[1] === c) {
        root.append(svg("circle", { cx, cy, r: S * 0.14, class: `last-mark on-${ch === "x" ? "p0" : "p1"}` }));
      }
    }
  }
  for (let c = 0; c < cols; c++) {
    root.append(svg("text", { x: M + c * S + S / 2, y: h - 5, class: "coord" }, String(c + 1)));
    const legal = legalByCol.get(c);
    if (mine && legal) {
      // The hint: a faint disc where a click in this column lands, clearer under the pointer.
      const [r] = legal.cell;
      const g = svg("g", { class: "c4-col" });
      g.append(svg("circle", { cx: M + c * S + S / 2, cy: M + r * S + S / 2, r: S * 0.4, class: `hint p${state.human_side}` }));
      hit(g, M + c * S, M - 6, S, rows * S + 12, legal.move, legal.text, { "data-col": c });
      root.append(g);
    }
  }
  return root;
}

function othelloBoard(state, info) {
  const { rows, cols, cells } = state.board;
  const w = cols * S + 2 * M;
  const h = rows * S + 2 * M;
  const root = boardSvg(w, h, describeBoard(state, info));
  root.classList.add("othello");
  root.append(svg("rect", { x: M, y: M, width: cols * S, height: rows * S, class: "oth-felt" }));
  for (let i = 0; i <= rows; i++) root.append(svg("line", { x1: M, y1: M + i * S, x2: M + cols * S, y2: M + i * S, class: "grid" }));
  for (let i = 0; i <= cols; i++) root.append(svg("line", { x1: M + i * S, y1: M, x2: M + i * S, y2: M + rows * S, class: "grid" }));
  for (let c = 0; c < cols; c++) {
    root.append(svg("text", { x: M + c * S + S / 2, y: M - 7, class: "coord" }, "abcdefgh"[c]));
  }
  for (let r = 0; r < rows; r++) {
    root.append(svg("text", { x: M / 2, y: M + r * S + S / 2 + 4, class: "coord" }, rowLabel(state, r)));
  }
  const last = state.last_move ? gridCellOfMove(state, state.last_move.move, true) : null;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const ch = cells[r][c];
      if (ch === ".") continue;
      const cx = M + c * S + S / 2;
      const cy = M + r * S + S / 2;
      root.append(svg("circle", { cx, cy, r: S * 0.42, class: `stone ${ch === "x" ? "p0" : "p1"}` }));
      if (last && last[0] === r && last[1] === c) root.append(svg("circle", { cx, cy, r: S * 0.12, class: `last-mark on-${ch === "x" ? "p0" : "p1"}` }));
    }
  }
  if (humanToMove(state) && !ui.busy) {
    for (const m of state.legal) {
      const cell = gridCellOfMove(state, m.move);
      if (!cell) continue;
      const [r, c] = cell;
      root.append(svg("circle", { cx: M + c * S + S / 2, cy: M + r * S + S / 2, r: S * 0.12, class: `hint-dot p${state.human_side}` }));
      hit(root, M + c * S, M + r * S, S, S, m.move, m.text);
    }
  }
  return root;
}

function rowLabel(state, r) {
  // Row labels as the move text writes them (Othello: row 0 is "1"; Go: row 0 is the size).
  if (state.game.startsWith("go")) return String(state.board.rows - r);
  return String(r + 1);
}

function starPoints(n) {
  if (n === 19) return [3, 9, 15].flatMap((r) => [3, 9, 15].map((c) => [r, c]));
  if (n === 13) return [[3, 3], [3, 9], [9, 3], [9, 9], [6, 6]];
  if (n === 9) return [[2, 2], [2, 6], [6, 2], [6, 6], [4, 4]];
  return [];
}

function goBoard(state, info) {
  const { rows, cols, cells } = state.board;
  const n = rows;
  const w = cols * S + 2 * M;
  const h = rows * S + 2 * M;
  const root = boardSvg(w, h, describeBoard(state, info));
  root.classList.add("go");
  root.append(svg("rect", { x: 0, y: 0, width: w, height: h, rx: 8, class: "go-wood" }));
  const x0 = M + S / 2;
  const y0 = M + S / 2;
  for (let i = 0; i < n; i++) {
    root.append(svg("line", { x1: x0, y1: y0 + i * S, x2: x0 + (cols - 1) * S, y2: y0 + i * S, class: "grid" }));
  }
  for (let i = 0; i < cols; i++) {
    root.append(svg("line", { x1: x0 + i * S, y1: y0, x2: x0 + i * S, y2: y0 + (rows - 1) * S, class: "grid" }));
  }
  for (const [r, c] of starPoints(n)) root.append(svg("circle", { cx: x0 + c * S, cy: y0 + r * S, r: 3.5, class: "star" }));
  for (let c = 0; c < cols; c++) {
    root.append(svg("text", { x: x0 + c * S, y: M - 6, class: "coord" }, GTP_COLUMNS[c]));
    root.append(svg("text", { x: x0 + c * S, y: h - 6, class: "coord" }, GTP_COLUMNS[c]));
  }
  for (let r = 0; r < rows; r++) {
    root.append(svg("text", { x: M / 2, y: y0 + r * S + 4, class: "coord" }, String(n - r)));
    root.append(svg("text", { x: w - M / 2, y: y0 + r * S + 4, class: "coord" }, String(n - r)));
  }
  const last = state.last_move ? gridCellOfMove(state, state.last_move.move, true) : null;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const ch = cells[r][c];
      if (ch === ".") continue;
      const cx = x0 + c * S;
      const cy = y0 + r * S;
      root.append(svg("circle", { cx, cy, r: S * 0.47, class: `stone ${ch === "x" ? "p0" : "p1"}` }));
      if (last && last[0] === r && last[1] === c) {
        root.append(svg("circle", { cx, cy, r: S * 0.2, class: `last-ring on-${ch === "x" ? "p0" : "p1"}` }));
      }
    }
  }
  if (humanToMove(state) && !ui.busy) {
    for (const m of state.legal) {
      const cell = gridCellOfMove(state, m.move);
      if (!cell) continue;
      const [r, c] = cell;
      const g = svg("g", { class: "go-point" });
      g.append(svg("circle", { cx: x0 + c * S, cy: y0 + r * S, r: S * 0.45, class: `ghost p${state.human_side}` }));
      hit(g, x0 + c * S - S / 2, y0 + r * S - S / 2, S, S, m.move, m.text, {}, false);
      root.append(g);
    }
  }
  return root;
}

// Chess: the FEN's pieces as glyphs (one shape for both colours, filled white or black).
const GLYPH = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const PIECE_NAME = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };

function parseFen(fen) {
  const board = {}; // "e4" -> "P"
  const [placement, turn] = fen.split(" ");
  const ranks = placement.split("/");
  for (let i = 0; i < 8; i++) {
    let file = 0;
    for (const ch of ranks[i]) {
      if (/\d/.test(ch)) file += Number(ch);
      else {
        board[`${"abcdefgh"[file]}${8 - i}`] = ch;
        file += 1;
      }
    }
  }
  return { board, turn };
}

function chessBoard(state, info) {
  const { board } = parseFen(state.board.fen);
  const flip = state.human_side === 1;
  const w = 8 * S + 2 * M;
  const root = boardSvg(w, w, describeBoard(state, info));
  root.classList.add("chess");
  const mine = humanToMove(state) && !ui.busy;
  const byFrom = new Map();
  for (const m of state.legal) {
    const from = m.text.slice(0, 2);
    if (!byFrom.has(from)) byFrom.set(from, []);
    byFrom.get(from).push(m);
  }
  const last = state.last_move && /^[a-h][1-8][a-h][1-8]/.test(state.last_move.text)
    ? [state.last_move.text.slice(0, 2), state.last_move.text.slice(2, 4)]
    : [];
  const targets = new Map();
  if (ui.selected && byFrom.has(ui.selected)) {
    for (const m of byFrom.get(ui.selected)) {
      const to = m.text.slice(2, 4);
      // A promotion offers four moves to one square: the queen unless another is typed.
      if (!targets.has(to) || m.text.endsWith("q")) targets.set(to, m);
    }
  }
  const pos = (sq) => {
    const f = "abcdefgh".indexOf(sq[0]);
    const r = Number(sq[1]) - 1;
    return flip ? [M + (7 - f) * S, M + r * S] : [M + f * S, M + (7 - r) * S];
  };
  for (let f = 0; f < 8; f++) {
    for (let r = 0; r < 8; r++) {
      const sq = `${"abcdefgh"[f]}${r + 1}`;
      const [x, y] = pos(sq);
      const cls = ["sq", (f + r) % 2 === 0 ? "dark" : "light"];
      if (last.includes(sq)) cls.push("last");
      if (sq === ui.selected) cls.push("selected");
      root.append(svg("rect", { x, y, width: S, height: S, class: cls.join(" ") }));
    }
  }
  for (let i = 0; i < 8; i++) {
    const file = "abcdefgh"[flip ? 7 - i : i];
    const rank = String(flip ? i + 1 : 8 - i);
    root.append(svg("text", { x: M + i * S + S / 2, y: w - 6, class: "coord" }, file));
    root.append(svg("text", { x: M / 2, y: M + i * S + S / 2 + 4, class: "coord" }, rank));
  }
  for (const [sq, piece] of Object.entries(board)) {
    const [x, y] = pos(sq);
    const white = piece === piece.toUpperCase();
    const t = svg("text", { x: x + S / 2, y: y + S * 0.8, class: `piece ${white ? "white" : "black"}` }, `${GLYPH[piece.toLowerCase()]}\uFE0E`);
    root.append(t);
  }
  for (const [to, m] of targets) {
    const [x, y] = pos(to);
    const capture = board[to] !== undefined;
    root.append(svg("circle", { cx: x + S / 2, cy: y + S / 2, r: capture ? S * 0.45 : S * 0.14, class: capture ? "target-ring" : "target-dot" }));
    hit(root, x, y, S, S, m.move, m.text, { "data-square": to });
  }
  if (mine) {
    for (const from of byFrom.keys()) {
      if (targets.has(from)) continue;
      const [x, y] = pos(from);
      const piece = board[from];
      const r = svg("rect", { x, y, width: S, height: S, class: "hit pick", "data-square": from });
      r.append(svg("title", {}, `${piece ? PIECE_NAME[piece.toLowerCase()] : "piece"} on ${from}`));
      const pick = () => {
        ui.selected = ui.selected === from ? null : from;
        renderBoard(ui.game, gameInfo(ui.game.game));
        if (ui.selected) document.querySelector("#board .hit:not(.pick)")?.focus();
      };
      r.addEventListener("click", pick);
      focusable(r, `Move the ${piece ? PIECE_NAME[piece.toLowerCase()] : "piece"} on ${from}`, pick);
      root.append(r);
    }
  }
  if (ui.selected) {
    // A click anywhere else drops the selection.
    root.addEventListener("click", (event) => {
      if (event.target.classList?.contains("hit")) return;
      ui.selected = null;
      renderBoard(ui.game, gameInfo(ui.game.game));
    });
  }
  return root;
}

// ---------------------------------------------------------------- what the AI thought

function renderAnalysis(state, info) {
  const host = $("analysis");
  host.replaceChildren();
  const aiMoves = state.moves.filter((m) => m.by === "ai");
  if (!aiMoves.length) {
    host.append(el("p", {}, "The AI made no move in this game."));
    return;
  }
  for (const m of aiMoves) {
    const a = m.analysis;
    const card = el("article", { class: "analysis-move" });
    card.append(el("h4", {}, `Move ${m.ply + 1}: the AI (${sideName(info, m.side)}) played ${m.san ?? m.text}`));
    if (!a) {
      card.append(el("p", {}, "No analysis was recorded for this move."));
      host.append(card);
      continue;
    }
    const facts = [];
    if (a.search && a.search !== "none") facts.push(`${a.search.toUpperCase()} search`);
    if (a.search === "none") facts.push("played without a search");
    if (a.simulations) facts.push(`${a.simulations} simulations`);
    if (a.depth !== null && a.depth !== undefined) facts.push(`depth ${a.depth}`);
    if (a.time !== undefined) facts.push(`${fmt(a.time, 2)} s`);
    if (a.stopped) facts.push("stopped by its time limit");
    if (typeof a.value === "number") facts.push(`its value of the position ${fmt(a.value, 2)}`);
    card.append(el("p", { class: "meta" }, facts.join(" · ")));
    const s = a.strength;
    if (s) {
      const parts = [`z = ${fmt(s.z, 2)}`, `R_th = ${fmt(s.rth, 2)}`];
      if (s.floor) parts.push(`floor ${fmt(s.floor, 2)}`);
      if (s.elo_asked !== null && s.elo_asked !== undefined) parts.push(`Elo asked ${fmt(s.elo_asked)}`);
      if (s.elo_played !== null && s.elo_played !== undefined) parts.push(`Elo played ${fmt(s.elo_played)}`);
      if (s.clamped) parts.push("clamped to the calibrated range");
      card.append(el("p", { class: "strength" }, `Strength setting: ${parts.join(", ")}`));
    }
    const notes = Object.entries(a.annotations ?? {});
    if (notes.length) {
      const text = notes.map(([k, v]) => `${k} = ${typeof v === "number" ? fmt(v, Number.isInteger(v) ? 0 : 2) : JSON.stringify(v)}`).join(", ");
      card.append(el("p", { class: "meta" }, `Its state: ${text}`));
    }
    // Notices already shown beside the board (e.g. a clamped target) are not repeated per move.
    const shown = new Set(state.opponent?.notices ?? []);
    for (const n of a.notices ?? []) if (!shown.has(n)) card.append(el("p", { class: "notice" }, n));
    const rows = (a.moves ?? []).map((mv, i) => ({ mv, i, visits: a.visits[i], q: a.q[i], prior: a.priors[i] }));
    if (rows.length) {
      const byVisits = rows.some((r) => r.visits > 0);
      rows.sort((x, y) => (byVisits ? y.visits - x.visits : Number(y.q) - Number(x.q)));
      const total = rows.reduce((sum, r) => sum + r.visits, 0) || 1;
      const table = el("table", { class: "candidates" });
      table.append(el("caption", {}, byVisits ? "Its top candidates by visits" : "Its top candidates by value"));
      const head = el("tr");
      for (const title of ["move", "visits", "share", "value Q", "prior"]) head.append(el("th", { scope: "col" }, title));
      const thead = el("thead");
      thead.append(head);
      table.append(thead);
      const body = el("tbody");
      const top = rows.slice(0, 5);
      const played = rows.find((r) => r.mv === m.move);
      if (played && !top.includes(played)) top.push(played); // the move played, wherever it ranks
      for (const r of top) {
        const tr = el("tr", r.mv === m.move ? { class: "played" } : {});
        tr.append(
          el("td", {}, moveText(state, r.mv, a, r.i)),
          el("td", {}, String(r.visits)),
          el("td", {}, `${Math.round((100 * r.visits) / total)}%`),
          el("td", {}, fmt(r.q, 2)),
          el("td", {}, fmt(r.prior, 2)),
        );
        body.append(tr);
      }
      table.append(body);
      card.append(table);
    }
    host.append(card);
  }
}

// ---------------------------------------------------------------- the profile

function rankIndex(gameName, value) {
  const ranks = gameInfo(gameName)?.levels?.estimator_ranks;
  if (ranks) {
    // The catalog lists ranks strongest first; the plot puts stronger higher.
    const i = ranks.indexOf(String(value));
    if (i >= 0) return ranks.length - 1 - i;
  }
  const m = /^(\d+)\s*([kdp])$/i.exec(String(value));
  if (m) {
    const n = Number(m[1]);
    return m[2].toLowerCase() === "k" ? 1 - n : m[2].toLowerCase() === "d" ? n : 9 + n;
  }
  return Number.isFinite(Number(value)) ? Number(value) : null;
}

function describeEstimate(e) {
  if (e.kind === "rank") {
    // One game's confidence is a bootstrap over its moves, which overstates it (the CLI's
    // `estimate` says so): show a confidence only from two games on.
    const conf = e.games > 1 && e.confidence !== null && e.confidence !== undefined ? ` (confidence ${Math.round(100 * e.confidence)}%)` : "";
    // The estimators name the exact rank for a third to a half of players after 15 games
    // (docs/research/strength-estimation.md): say so below that.
    const rough = e.games < 15 ? " (a rough guess until more games)" : "";
    return `rank ${e.value}${conf}, from ${e.games} game${e.games === 1 ? "" : "s"}${rough}`;
  }
  const band = e.low !== null && e.high !== null && e.low !== undefined && e.high !== undefined ? ` (${fmt(e.low)}–${fmt(e.high)})` : "";
  return `about ${fmt(e.value)} Elo${band}, after ${e.games} game${e.games === 1 ? "" : "s"}`;
}

async function showProfile() {
  let profile;
  try {
    profile = await api("GET", "/api/me/profile");
  } catch (err) {
    showMessage(err.message);
    return;
  }
  const now = $("estimate-now");
  now.replaceChildren();
  const series = new Map();
  for (const e of profile.estimates ?? []) {
    const key = `${e.game}|${e.kind}`;
    if (!series.has(key)) series.set(key, []);
    series.get(key).push(e);
  }
  if (!series.size) {
    now.append(el("p", { class: "empty" }, "No strength estimate yet: play a game against an adaptive opponent (\"Find my level\") or a few finished games of Go or chess."));
  } else {
    const list = el("ul", { class: "estimates" });
    for (const points of series.values()) {
      const lastPoint = points[points.length - 1];
      const li = el("li");
      li.append(el("strong", {}, `${gameInfo(lastPoint.game)?.label ?? lastPoint.game}: `));
      li.append(document.createTextNode(describeEstimate(lastPoint)));
      list.append(li);
    }
    now.append(list);
  }
  for (const a of profile.adaptive ?? []) {
    if (a.elo === null || a.elo === undefined) continue;
    now.append(el("p", { class: "meta" }, `The adaptive AI on ${gameInfo(a.game)?.label ?? a.game} now takes you for about ${fmt(a.elo)} Elo and plays there.`));
  }
  const plots = $("estimate-plots");
  plots.replaceChildren();
  for (const points of series.values()) plots.append(plotSeries(points));
  fillGameList($("profile-games"), profile.games ?? [], "No games yet.");
}

const AXIS_PX = 11; // the plots' axis labels (style.css: .plot-svg .axis)
let measureContext = null;

function textWidth(text, px) {
  // The width of a text in the page's font, in CSS pixels (an SVG unit of the plots).
  measureContext ??= document.createElement("canvas").getContext("2d");
  measureContext.font = `${px}px ${getComputedStyle(document.body).fontFamily}`;
  return measureContext.measureText(text).width;
}

function plotSeries(points) {
  const first = points[0];
  const label = `${gameInfo(first.game)?.label ?? first.game}: ${first.kind === "rank" ? "rank" : "Elo"} over your games`;
  const figure = el("figure", { class: "plot" });
  const W = 360;
  const H = 180;
  const R = 12;
  const T = 12;
  const B = 30;
  const isRank = first.kind === "rank";
  const ys = points.map((p) => (isRank ? rankIndex(p.game, p.value) : Number(p.value)));
  const lows = points.map((p, i) => (isRank || p.low === null || p.low === undefined ? ys[i] : Number(p.low)));
  const highs = points.map((p, i) => (isRank || p.high === null || p.high === undefined ? ys[i] : Number(p.high)));
  const finite = [...ys, ...lows, ...highs].filter((v) => v !== null && Number.isFinite(v));
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (!(hi > lo)) {
    lo -= isRank ? 1 : 50;
    hi += isRank ? 1 : 50;
  }
  const pad = (hi - lo) * 0.08;
  lo -= pad;
  hi += pad;
  // Axis labels: the top, middle and bottom Elo (or the ranks), the first and last game.
  // The left margin is as wide as the widest label (a chess rank is "1400-1600").
  const yLabel = (v) => {
    if (!isRank) return String(Math.round(v));
    const ranks = gameInfo(first.game)?.levels?.estimator_ranks;
    const i = Math.round(v);
    if (ranks && ranks[ranks.length - 1 - i] !== undefined) return ranks[ranks.length - 1 - i];
    return i > 0 ? `${i}d` : `${1 - i}k`;
  };
  const rankTicks = [];
  for (let v = Math.ceil(lo); v <= Math.floor(hi); v++) rankTicks.push(v);
  const everyRank = rankTicks.length <= 6; // few ranks: each one named, else the two ends
  const ticks = isRank ? (everyRank ? rankTicks : [rankTicks[0], rankTicks[rankTicks.length - 1]]) : [lo + pad, (lo + hi) / 2, hi - pad];
  const labels = ticks.map(yLabel);
  const L = Math.ceil(Math.max(30, ...labels.map((t) => textWidth(t, AXIS_PX)))) + 12;
  const n = points.length;
  const xAt = (i) => (n === 1 ? L + (W - L - R) / 2 : L + (i * (W - L - R)) / (n - 1));
  const yAt = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  const lastText = describeEstimate(points[n - 1]);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `${label}; now ${lastText}`, class: "plot-svg" });
  root.append(svg("rect", { x: L, y: T, width: W - L - R, height: H - T - B, class: "plot-bg" }));
  // The band between low and high, where the estimate gives one.
  if (!isRank && points.some((p) => p.low !== null && p.low !== undefined)) {
    const upper = points.map((_, i) => `${xAt(i)},${yAt(highs[i])}`);
    const lower = points.map((_, i) => `${xAt(i)},${yAt(lows[i])}`).reverse();
    root.append(svg("polygon", { points: [...upper, ...lower].join(" "), class: "plot-band" }));
  }
  const line = points.map((_, i) => (ys[i] === null ? null : `${xAt(i)},${yAt(ys[i])}`)).filter(Boolean);
  root.append(svg("polyline", { points: line.join(" "), class: "plot-line" }));
  points.forEach((p, i) => {
    if (ys[i] === null) return;
    const dot = svg("circle", { cx: xAt(i), cy: yAt(ys[i]), r: 3.5, class: "plot-dot" });
    dot.append(svg("title", {}, `${new Date(p.time).toLocaleString()}: ${describeEstimate(p)}`));
    root.append(dot);
  });
  ticks.forEach((v, i) => {
    root.append(svg("text", { x: L - 6, y: yAt(v) + 4, class: "axis", "text-anchor": "end" }, labels[i]));
    root.append(svg("line", { x1: L, y1: yAt(v), x2: W - R, y2: yAt(v), class: "plot-tick" }));
  });
  root.append(svg("text", { x: L, y: H - 10, class: "axis", "text-anchor": "start" }, `game ${points[0].games}`));
  if (n > 1) root.append(svg("text", { x: W - R, y: H - 10, class: "axis", "text-anchor": "end" }, `game ${points[n - 1].games}`));
  figure.append(root, el("figcaption", {}, label));
  return figure;
}

// ---------------------------------------------------------------- sections and routing

function showSection(name) {
  for (const s of ["new", "game", "profile", "upload"]) $(`${s}-section`).hidden = s !== name;
  document.body.dataset.view = name;
}

async function route() {
  showPlayer();
  if (await signinFromLink()) return;
  if (!ui.token) {
    for (const s of ["new", "game", "profile", "upload"]) $(`${s}-section`).hidden = true;
    $("player-section").hidden = false;
    document.body.dataset.view = "player";
    return;
  }
  const hash = location.hash.replace(/^#/, "");
  if (hash.startsWith("game/")) {
    const id = decodeURIComponent(hash.slice(5));
    if (ui.game?.id !== id) await loadGame(id);
    else showSection("game");
    return;
  }
  ui.gen += 1; // stop following a game that is no longer shown
  ui.game = null;
  if (hash === "profile") {
    showSection("profile");
    await showProfile();
    return;
  }
  if (hash === "upload") {
    showSection("upload");
    showUpload();
    return;
  }
  showSection("new");
  await showMyGames();
}

function passMove(state) {
  return state?.legal.find((m) => m.text.toLowerCase() === "pass") ?? null;
}

function confirmed(button, question, action) {
  // A button whose action waits for a second click while question() gives a text (null: one
  // click acts); the question stays 4 s.  Returns the function that takes the question back.
  const label = button.textContent;
  let armed = null;
  const disarm = () => {
    clearTimeout(armed);
    armed = null;
    button.textContent = label;
    button.classList.remove("armed");
  };
  button.addEventListener("click", () => {
    const ask = armed ? null : question();
    if (ask) {
      button.textContent = ask;
      button.classList.add("armed");
      armed = setTimeout(disarm, 4000);
      return;
    }
    disarm();
    action();
  });
  return disarm;
}

async function start() {
  $("player-form").addEventListener("submit", createPlayer);
  $("forget-player").addEventListener("click", () => forgetPlayer(true));
  $("nav-new").addEventListener("click", () => {
    location.hash = "#new";
  });
  $("nav-profile").addEventListener("click", () => {
    location.hash = "#profile";
  });
  initUpload();
  $("home-link").addEventListener("click", (event) => {
    event.preventDefault();
    location.hash = ui.token ? "#new" : "";
  });
  $("game-select").addEventListener("change", onGameChange);
  for (const radio of document.querySelectorAll('input[name="mode"]')) radio.addEventListener("change", onModeChange);
  $("elo-range").addEventListener("input", () => {
    $("elo-number").value = $("elo-range").value;
    updateEloHint();
  });
  $("elo-number").addEventListener("input", () => {
    const asked = askedElo();
    if (asked !== null) $("elo-range").value = String(asked); // (the slider stops at its ends)
    updateEloHint();
  });
  $("adaptive-select").addEventListener("change", updateAdaptiveHint);
  $("new-form").addEventListener("submit", startGame);
  initClocks({
    refresh: async () => {
      const id = ui.game?.id;
      if (!id) return;
      const gen = ui.gen;
      try {
        const state = await api("GET", `/api/games/${encodeURIComponent(id)}`);
        if (gen !== ui.gen || ui.busy) return;
        ui.game = state;
        renderGame();
      } catch (err) {
        showMessage(err.message);
      }
    },
  });
  initSignin({
    api,
    showMessage,
    remember: (player, token) => rememberPlayer(player, token),
    me: () => (ui.token ? ui.me : null),
    route,
    hideSections: () => {
      for (const s of ["new", "game", "profile"]) $(`${s}-section`).hidden = true;
    },
  });
  initAssist({
    api,
    showMessage,
    game: () => ui.game,
    busy: () => ui.busy,
    redrawBoard: () => ui.game && renderBoard(ui.game, gameInfo(ui.game.game)),
  });
  $("move-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("move-input");
    const text = input.value.trim();
    if (!text) return;
    input.removeAttribute("aria-invalid");
    const played = await playMove(text);
    // A refused move stays in the field, marked and selected, to be corrected; the server's
    // sentence is in the message above.
    const error = $("move-error");
    error.hidden = played;
    error.textContent = played ? "" : `${text} was not played: ${$("message").textContent}`;
    if (played) input.value = "";
    else if (input.value.trim() === text) input.setAttribute("aria-invalid", "true");
    if (ui.game && humanToMove(ui.game)) {
      input.focus();
      if (!played) input.select();
    }
  });
  $("move-input").addEventListener("input", () => {
    $("move-input").removeAttribute("aria-invalid");
    $("move-error").hidden = true;
  });
  // A pass that ends the game (the AI passed just before) and resigning take two clicks: the
  // first asks, the second acts (no blocking dialog).
  ui.disarmPass = confirmed(
    $("pass-button"),
    () => (passMove(ui.game)?.ends_game ? "Pass and end the game?" : null),
    () => {
      const pass = passMove(ui.game);
      if (pass) playMove(pass.text);
    },
  );
  $("undo-button").addEventListener("click", () => gameAction("undo", { ply: ui.game.ply }));
  $("zoom-button").addEventListener("click", () => {
    toggleZoom($("board"));
    ui.zoomCentred = null;
    if (ui.game) renderBoard(ui.game, gameInfo(ui.game.game));
  });
  let resized = null;
  window.addEventListener("resize", () => {
    // a phone turned: the board may need (or no longer need) its zoomed view
    clearTimeout(resized);
    resized = setTimeout(() => {
      if (ui.game && !$("game-section").hidden) renderBoard(ui.game, gameInfo(ui.game.game));
    }, 150);
  });
  confirmed(
    $("resign-button"),
    () => "Really resign?",
    () => gameAction("resign", { ply: ui.game.ply }),
  );
  $("new-again").addEventListener("click", () => {
    location.hash = "#new";
  });
  window.addEventListener("hashchange", route);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && ui.selected) {
      ui.selected = null;
      renderBoard(ui.game, gameInfo(ui.game.game));
    }
  });

  try {
    ui.catalog = await api("GET", "/api/catalog");
    fillGameSelect();
  } catch (err) {
    showMessage(`The server did not answer: ${err.message}`);
    return;
  }
  if (ui.token) {
    try {
      const me = await api("GET", "/api/me");
      rememberPlayer(me, null);
    } catch (err) {
      if (err.status !== 401) showMessage(err.message);
    }
  }
  if (ui.token && !location.hash) location.hash = "#new";
  await route();
  document.body.dataset.ready = "1";
}

start();
