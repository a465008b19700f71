// The review by rank: the moves of a game where a player a few ranks stronger would most likely
// have played differently (POST /api/games/{id}/review for a finished game, POST /api/review
// for an uploaded one).  The panel beside a finished game's record is made by showGameReview;
// upload.js uses reviewForm for the games of an upload.

import { $, call, el, estimatorRanks, percent } from "./shared.js";

const GAMES = ["go", "chess"]; // the games with a play network

function rankWord(game) {
  return game === "chess" ? "band" : "rank";
}

export function reviewForm(host, { game, ranks, rank, run, onResult = null }) {
  // A form (own rank, how many ranks stronger) and the place of its result; run(options)
  // asks the server and returns the review.
  host.replaceChildren();
  const form = el("form", { class: "review-form" });
  const word = rankWord(game);
  const own = el("select", { "aria-label": `Your ${word}`, class: "review-rank" });
  for (const r of ranks) own.append(el("option", { value: r }, r));
  own.value = ranks.includes(rank) ? rank : ranks[Math.floor(ranks.length / 2)] ?? "";
  const steps = el("select", { "aria-label": `How many ${word}s stronger`, class: "review-steps" });
  for (let k = 1; k <= 5; k++) steps.append(el("option", { value: String(k) }, `${k} ${word}${k === 1 ? "" : "s"} stronger`));
  steps.value = "3";
  const button = el("button", { type: "submit", class: "review-run" }, "Review");
  const ownLabel = el("label", {}, `Your ${word} `);
  ownLabel.append(own);
  form.append(ownLabel, steps, button);
  const out = el("div", { class: "review-out", "aria-live": "polite" });
  host.append(form, out);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    out.replaceChildren(el("p", { class: "meta" }, "Comparing every move at the two ranks…"));
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

async function profileRank(game) {
  try {
    const profile = await call("GET", "/api/me/profile");
    const ranks = (profile.estimates ?? []).filter((e) => e.game === game && e.kind === "rank");
    return ranks.length ? String(ranks[ranks.length - 1].value) : null;
  } catch {
    return null;
  }
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
  host.append(el("p", { class: "hint" }, `Your moves that players a few ${rankWord(state.game)}s stronger would most likely have played differently.`));
  const body = el("div");
  host.append(body);
  const [ranks, rank] = await Promise.all([estimatorRanks(state.game), profileRank(state.game)]);
  if (shownFor !== state.id) return;
  reviewForm(body, {
    game: state.game,
    ranks,
    rank,
    run: (options) => call("POST", `/api/games/${encodeURIComponent(state.id)}/review`, options),
    onResult: markMoveList,
  });
}
