// Go: the stones each side captured and the area count of the position, beside the board.
// The server sends them with the game's state (state.score; null in the other games).
import { el } from "./dom.js";

function points(x) {
  // A count with its half point (komi 7.5), without a trailing ".0".
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

export function leadText(score, sides) {
  // Who is ahead by area now: "White is ahead by 0.5", or "Even".
  const margin = score.margin;
  if (margin === 0) return "Even by area";
  return `${margin > 0 ? sides[0] : sides[1]} is ahead by ${points(Math.abs(margin))} by area`;
}

export function renderScore(state, info, host) {
  const score = state.score;
  host.replaceChildren();
  host.hidden = !score;
  if (!score) return;
  const sides = info?.sides ?? ["Black", "White"];
  const over = state.status !== "ongoing";
  const table = el("table", { class: "score-table" });
  table.append(el("caption", {}, over ? "The count at the end" : "The count now"));
  const head = el("tr");
  for (const title of ["", "Captured", "Area"]) head.append(el("th", { scope: "col" }, title));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  for (const side of [0, 1]) {
    const who = side === state.human_side ? "you" : "AI";
    const tr = el("tr", { "data-side": String(side) });
    const name = el("th", { scope: "row" });
    name.append(el("span", { class: `score-stone p${side}`, "aria-hidden": "true" }), document.createTextNode(`${sides[side]} (${who})`));
    const area = side === 1 && score.komi ? `${score.area[1]} + ${points(score.komi)} komi` : String(score.area[side]);
    tr.append(name, el("td", { class: "captures" }, String(score.captures[side])), el("td", { class: "area" }, area));
    body.append(tr);
  }
  table.append(thead, body);
  host.append(table, el("p", { class: "score-lead" }, `${leadText(score, sides)}.`));
  host.append(el("p", { class: "hint" }, "Area (Tromp-Taylor): each side's stones and the empty points that reach only its stones. Stones count until captured, dead or not, so the count is rough until the end."));
}
