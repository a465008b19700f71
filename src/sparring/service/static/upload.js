// The estimate from uploaded games (POST /api/estimate): SGF (Go 19x19) or PGN (chess) files
// of the player's own games, read in the browser and sent as text.  It shows the estimate, its
// distribution over the ranks or bands, what it rests on, the level offered to play at, and a
// review by rank of each of the games (review.js).  Nothing is stored on the server.

import { $, call, el, percent } from "./shared.js";
import { rankValue, reviewForm } from "./review.js";

const GAME_LABEL = { go: "Go 19x19", chess: "Chess" };
let last = null; // {files, player, result}: the upload shown

export function initUpload() {
  $("nav-upload").addEventListener("click", () => {
    location.hash = "#upload";
  });
  $("upload-form").addEventListener("submit", submit);
}

export function showUpload() {
  $("upload-error").hidden = true;
}

async function readFiles(input) {
  const files = [];
  for (const file of input.files) files.push({ name: file.name, text: await file.text() });
  return files;
}

async function submit(event) {
  event.preventDefault();
  const error = $("upload-error");
  const button = $("upload-submit");
  error.hidden = true;
  const files = await readFiles($("upload-files"));
  if (!files.length) {
    showError("Choose one or more SGF or PGN files first.");
    return;
  }
  const player = $("upload-player").value.trim() || null;
  button.disabled = true;
  $("upload-status").textContent = "Estimating from your games…";
  try {
    const result = await call("POST", "/api/estimate", { files, player });
    last = { files, player, result };
    renderResult(result);
  } catch (err) {
    last = null;
    $("upload-result").hidden = true;
    const tooBig = err.status === 413 ? " Send fewer games at a time." : "";
    showError(`${err.message}${tooBig}`);
  } finally {
    button.disabled = false;
    $("upload-status").textContent = "";
  }
}

function showError(text) {
  const error = $("upload-error");
  error.textContent = text;
  error.hidden = false;
}

function distribution(result) {
  // The bootstrap share of each rank (strongest first), the estimate marked.
  const table = el("table", { class: "dist" });
  table.append(el("caption", {}, `How sure: the share of resampled estimates on each ${result.scale === "rank" ? "rank" : "band"}`));
  const body = el("tbody");
  const top = Math.max(...result.distribution.map((d) => d.share), 1e-9);
  for (const d of result.distribution) {
    const row = el("tr", d.rank === result.estimate ? { class: "estimate" } : {});
    const bar = el("div", { class: "bar" });
    bar.style.width = `${(100 * d.share) / top}%`;
    const cell = el("td", { class: "bar-cell" });
    cell.append(bar);
    row.append(el("th", { scope: "row" }, d.rank), cell, el("td", { class: "share" }, percent(d.share)));
    body.append(row);
  }
  table.append(body);
  return table;
}

function offerBox(result) {
  const offer = result.offer;
  const box = el("div", { class: "offer" });
  box.append(el("h3", {}, "Play at this level"));
  box.append(el("p", {}, `The level offered: ${offer.label}.`));
  if (offer.notice) box.append(el("p", { class: "hint warn" }, offer.notice));
  const button = el("button", { type: "button", class: "primary", id: "offer-play" }, `Play ${GAME_LABEL[offer.game] ?? offer.game} at this level`);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const state = await call("POST", "/api/games", { game: offer.game, opponent: offer.opponent, side: "first" });
      location.hash = `#game/${state.id}`;
    } catch (err) {
      showError(err.message);
      button.disabled = false;
    }
  });
  box.append(button);
  return box;
}

function gameList(result) {
  const wrap = el("div", { class: "upload-games" });
  wrap.append(el("h3", {}, "Review a game by rank"));
  wrap.append(el("p", { class: "hint" }, `Your moves that players a few ${result.scale === "rank" ? "ranks" : "bands"} stronger would most likely have played differently.`));
  const list = el("ul", { class: "game-list" });
  const sides = result.game === "go" ? ["Black", "White"] : ["White", "Black"];
  for (const g of result.player_games) {
    const li = el("li");
    const button = el("button", { type: "button", class: "link", "data-index": String(g.index) }, `${g.source}: against ${g.opponent || "someone"}`);
    button.addEventListener("click", () => openReview(g));
    li.append(button, el("span", { class: "meta" }, ` — ${sides[g.side]}, ${g.moves} of your moves${g.result ? `, ${g.result}` : ""}`));
    list.append(li);
  }
  wrap.append(list);
  return wrap;
}

function openReview(g) {
  if (!last) return;
  const { files, player, result } = last;
  const host = $("upload-review");
  host.hidden = false;
  host.replaceChildren(el("h3", {}, `Review of ${g.source}`));
  const body = el("div");
  host.append(body);
  reviewForm(body, {
    game: result.game,
    ranks: result.distribution.map((d) => d.rank),
    level: { value: rankValue(result.game, result.estimate), why: `Your ${result.scale === "rank" ? "rank" : "band"}: ${result.estimate}, as estimated from these games.` },
    run: (options) => call("POST", "/api/review", { files, player: player ?? result.player, game: g.index, ...options }),
  });
  host.scrollIntoView({ block: "nearest" });
}

function renderResult(result) {
  const host = $("upload-result");
  host.hidden = false;
  host.replaceChildren();
  $("upload-review").hidden = true;
  const what = result.scale === "rank" ? "rank" : "Elo band";
  host.append(el("h3", { class: "headline" }, `${GAME_LABEL[result.game] ?? result.game}: estimated ${what} ${result.estimate}`));
  const how = result.player_found === "given" ? "the name given" : "the one name in every game";
  host.append(el("p", {}, `From ${result.games} game${result.games === 1 ? "" : "s"} and ${result.moves} of ${result.player}'s moves (${how}). The ${what}s are ${result.scale_words}.`));
  host.append(el("p", {}, `Confidence: ${percent(result.confidence)} on ${result.estimate}, ${percent(result.within_one)} within one ${what} (resampling the ${result.resampled}).`));
  host.append(distribution(result));
  const notes = [...result.notes];
  if (result.duplicates.length) notes.push(`${result.duplicates.length} repeated game${result.duplicates.length === 1 ? "" : "s"} counted once: ${result.duplicates.join("; ")}.`);
  if (notes.length) {
    const list = el("ul", { class: "notes" });
    for (const n of notes) list.append(el("li", {}, n));
    host.append(list);
  }
  host.append(offerBox(result), gameList(result));
}
