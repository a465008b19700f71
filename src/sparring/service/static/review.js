// The review by rank: the moves of a game where a player a few ranks stronger would most likely
// have played differently (POST /api/games/{id}/review for a finished game, POST /api/review
// for an uploaded one).  The panel beside a finished game's record is made by showGameReview;
// upload.js uses reviewForm for the games of an upload.

import { $, call, catalogEntry, el, estimatorRanks, percent } from "./shared.js";

const GAMES = ["go", "chess"]; // the games with a play network

function rankWord(game) {
  return game === "chess" ? "band" : "rank";
}

const FEW = 3; // how many ranks (Go) or bands (chess) stronger the comparison is by default
const FIRM_GAMES = 15; // an estimate from fewer games is a rough guess (the profile says so)

export function rankValue(game, label) {
  // A rank or band on one line, stronger higher: Go in ranks (1k = 0, 1d = 1; a group such
  // as 3-5k at its middle, 4k), chess in bands of 200 Elo (1000-1200 = 5.5); null if unread.
  const text = String(label);
  if (game === "chess") {
    const band = /^(\d+)-(\d+)$/.exec(text);
    return band ? (Number(band[1]) + Number(band[2])) / 400 : null;
  }
  const m = /^(\d+)(?:-(\d+))?\s*([kd])$/.exec(text);
  if (!m) return null;
  const n = m[2] === undefined ? Number(m[1]) : (Number(m[1]) + Number(m[2])) / 2;
  return m[3] === "d" ? n : 1 - n;
}

function nearest(game, ranks, indices, target) {
  // The index among `indices` of the rank nearest `target`, the weaker of two as near.
  let best = null;
  for (const i of indices) {
    const d = Math.abs(rankValue(game, ranks[i]) - target);
    if (best === null || d < best.d || (d === best.d && i > best.i)) best = { d, i };
  }
  return best?.i ?? null;
}

export function defaultComparison(game, ranks, level) {
  // The review's default for a player at `level` (rankValue's scale): the network's rank
  // nearest it as the player's own (not the strongest: it has none above) and the steps up to
  // the rank nearest FEW ranks or bands above the player.
  const i = Number.isFinite(level) ? nearest(game, ranks, ranks.map((_, k) => k).slice(1), level) : null;
  if (i === null) return { own: ranks[Math.floor(ranks.length / 2)] ?? "", steps: FEW };
  const j = nearest(game, ranks, ranks.map((_, k) => k).slice(0, i), level + FEW);
  return { own: ranks[i], steps: Math.min(5, Math.max(1, i - j)) };
}

export function reviewForm(host, { game, ranks, level, run, onResult = null }) {
  // A form (own rank, how many ranks stronger), what it compares, and the place of its
  // result; `level`: {value, why} (the player's level on rankValue's scale and where it comes
  // from); run(options) asks the server and returns the review.
  host.replaceChildren();
  const form = el("form", { class: "review-form" });
  const word = rankWord(game);
  const start = defaultComparison(game, ranks, level.value);
  const own = el("select", { "aria-label": `Your ${word}`, class: "review-rank" });
  for (const r of ranks) own.append(el("option", { value: r }, r));
  own.value = start.own;
  const steps = el("select", { "aria-label": `How many ${word}s stronger`, class: "review-steps" });
  for (let k = 1; k <= 5; k++) steps.append(el("option", { value: String(k) }, `${k} ${word}${k === 1 ? "" : "s"} stronger`));
  steps.value = String(start.steps);
  const button = el("button", { type: "submit", class: "review-run" }, "Review");
  const ownLabel = el("label", {}, `Your ${word} `);
  ownLabel.append(own);
  form.append(ownLabel, steps, button);
  const why = unbroken(el("p", { class: "hint review-why" }), level.why + rangeNote(game, ranks, level.value, start.own));
  const what = el("p", { class: "hint review-what" });
  const explain = () => {
    const i = ranks.indexOf(own.value);
    const up = Math.min(Number(steps.value), i); // the server stops at the strongest too
    const stronger = ranks[i - up];
    const top = up < Number(steps.value) ? `, the network's strongest` : "";
    unbroken(what, up < 1
      ? `${own.value} is the network's strongest ${word}: there is no stronger one to compare with.`
      : `Compared: ${own.value} players (your ${word} here) with ${stronger} players (${up} ${word}${up === 1 ? "" : "s"} ` +
        `stronger${top}). Marked: your moves ${stronger} players would most likely not have played.`);
  };
  explain();
  own.addEventListener("change", explain);
  steps.addEventListener("change", explain);
  const out = el("div", { class: "review-out", "aria-live": "polite" });
  host.append(why, form, what, out);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    out.replaceChildren(el("p", { class: "meta" }, `Comparing every move at the two ${word}s…`));
    try {
      const review = await run({ rank: own.value, stronger: Number(steps.value), top: 5 });
      renderReview(out, review);
      onResult?.(review);
    } catch (err) {
      out.replaceChildren(el("p", { class: "hint error", role: "alert" }, err.message));
    } finally {
      button.disabled = false;
    }
  });
}

function unbroken(node, text) {
  // `text` as the content of `node`, each rank or band with a hyphen (1-2k, 1000-1200) kept on
  // one line; returns the node.
  node.replaceChildren();
  for (const [i, part] of text.split(/(\d+-\d+k?)/).entries()) {
    node.append(i % 2 ? el("span", { class: "nowrap" }, part) : document.createTextNode(part));
  }
  return node;
}

function rangeNote(game, ranks, level, own) {
  // Said when the player's level lies outside the network's ranks.
  if (!ranks.length || level === null || Math.abs(rankValue(game, own) - level) <= 1) return "";
  const word = rankWord(game);
  return ` The review's network knows ${word}s ${ranks[ranks.length - 1]} to ${ranks[0]}: it starts at the nearest, ${own}.`;
}

function moveNumber(review, m) {
  if (review.game !== "chess") return `${m.number}.`;
  return `${m.number}${review.side === 1 ? "…" : "."}`;
}

function ratio(gap) {
  // exp(gap): how many times less likely the stronger rank is to play the move
  const r = Math.exp(Number(gap));
  const digits = r < 1.1 ? 2 : r < 10 ? 1 : 0;
  return `${r.toFixed(digits)}×`;
}

function value(x) {
  return x === null || x === undefined ? "–" : `${x > 0 ? "+" : ""}${Number(x).toFixed(2)}`;
}

export function renderReview(host, review) {
  host.replaceChildren();
  host.append(el("p", { class: "meta" },
    `${review.moves} of ${review.player || "the player"}'s moves compared at ${review.own_rank} and ${review.stronger_rank} (network ${review.network}). ` +
    `Marked: the moves ${review.stronger_rank} players would most likely not have played, compared with ${review.own_rank} players.`));
  for (const note of review.notes ?? []) host.append(el("p", { class: "hint warn" }, note));
  if (!review.marked.length) {
    host.append(el("p", { class: "empty" }, `No move to mark: ${review.stronger_rank} players would play each of these moves at least as often as ${review.own_rank} players.`));
    return;
  }
  const list = el("ol", { class: "review-moves" });
  for (const m of review.marked) {
    const li = el("li", { "data-ply": String(m.ply) });
    const head = el("p", { class: "review-head" });
    head.append(el("strong", {}, `${moveNumber(review, m)} ${m.text}`), document.createTextNode(" — "));
    head.append(el("span", { class: "nowrap" }, `${percent(m.p_own, 1)} at ${review.own_rank}`), document.createTextNode(", "));
    head.append(el("span", { class: "nowrap" }, `${percent(m.p_stronger, 1)} at ${review.stronger_rank}`), document.createTextNode(" "));
    head.append(el("span", { class: "ratio" }, `(${ratio(m.gap)} less likely)`));
    const same = m.preferred === m.move;
    const alt = el("p", {}, same
      ? `${review.stronger_rank} would play it too, as its first choice (${percent(m.p_preferred, 1)}), but less often than ${review.own_rank}.`
      : `${review.stronger_rank} prefers ${m.preferred_text} (${percent(m.p_preferred, 1)}).`);
    li.append(head, alt);
    if (m.value_played !== null && m.value_played !== undefined) {
      li.append(el("p", { class: "meta" }, `Network value after it: ${value(m.value_played)}; after ${m.preferred_text}: ${value(m.value_preferred)}`));
    }
    li.title = `log-probability gap ${Number(m.gap).toFixed(3)}`;
    list.append(li);
  }
  host.append(list, el("p", { class: "hint" }, review.values));
}

let shownFor = null; // the finished game whose panel is shown

function markMoveList(review) {
  // The marked moves in the game's move list (app.js draws it: one item per move).
  const items = document.querySelectorAll("#move-list li");
  for (const li of items) li.classList.remove("review-mark");
  for (const m of review.marked) {
    const li = items[m.ply];
    if (!li) continue;
    li.classList.add("review-mark");
    li.title = `${li.title} — marked by the review`;
  }
}

async function profileEstimate(game) {
  // The profile's latest rank (Go) or band (chess) estimate of the game, or null.
  try {
    const profile = await call("GET", "/api/me/profile");
    const found = (profile.estimates ?? []).filter((e) => e.game === game && e.kind === "rank");
    return found.length ? found[found.length - 1] : null;
  } catch {
    return null;
  }
}

function gameLevel(state) {
  // The level this game's AI was asked to play (the game state's opponent.level: kind, the
  // Elo played, rank): the person chose it, near their own.  A Go Elo (GNU Go's scale) names
  // no rank, and a game stored without a level has none here: null.
  const level = state.opponent?.level ?? null;
  const rank = /^(\d+)([kd])$/.exec(level?.rank ?? "");
  if (state.game === "go" && level?.kind === "rank" && rank) {
    const words = `${rank[1]} ${rank[2] === "k" ? "kyu" : "dan"}`;
    return { value: rankValue("go", level.rank), why: `This game's AI played at ${words}, taken as your rank.` };
  }
  if (state.game === "chess" && level?.kind === "elo" && Number.isFinite(level.elo)) {
    const elo = Math.round(level.elo);
    return { value: elo / 200, why: `This game's AI played at Elo ${elo}, taken as your level.` };
  }
  return null;
}

function playerLevel(state, ranks, estimate, entry) {
  // The player's level for the review's default ({value, why}): an estimate from enough
  // games, else the level of this game's AI, else a rough estimate, else (Go) the network's
  // weakest rank (every Go level played here is about 9 kyu or weaker) or (chess) the band of
  // the default level.
  const word = rankWord(state.game);
  const guess = estimate ? rankValue(state.game, estimate.value) : null;
  const estimated = () => {
    const n = estimate.games;
    const rough = n < FIRM_GAMES ? ", a rough guess until more games" : "";
    return { value: guess, why: `Your ${word}: ${estimate.value}, as estimated from ${n} of your games${rough}.` };
  };
  if (guess !== null && estimate.games >= FIRM_GAMES) return estimated();
  const played = gameLevel(state);
  if (played) return played;
  if (guess !== null) return estimated();
  if (state.game === "go" && ranks.length) {
    const weakest = ranks[ranks.length - 1];
    return { value: rankValue("go", weakest), why: `Your ${word} is not known here: the review starts at the network's weakest, ${weakest}; choose yours above.` };
  }
  const elo = entry?.default_elo ?? 1500;
  return { value: elo / 200, why: `Your ${word} is not known here: the review starts at the band of the default level, Elo ${elo}; choose yours above.` };
}

export async function showGameReview(state) {
  // The review panel of a finished Go 19x19 or chess game (hidden for other games).
  const host = $("review-panel");
  if (!host) return;
  const over = state?.status === "over";
  host.hidden = !over || !GAMES.includes(state.game);
  if (host.hidden) {
    shownFor = null;
    return;
  }
  if (shownFor === state.id) return;
  shownFor = state.id;
  host.replaceChildren(el("h3", {}, "Review by rank"));
  const body = el("div");
  host.append(body);
  const [ranks, entry, estimate] = await Promise.all([estimatorRanks(state.game), catalogEntry(state.game), profileEstimate(state.game)]);
  if (shownFor !== state.id) return;
  reviewForm(body, {
    game: state.game,
    ranks,
    level: playerLevel(state, ranks, estimate, entry),
    run: (options) => call("POST", `/api/games/${encodeURIComponent(state.id)}/review`, options),
    onResult: markMoveList,
  });
}
