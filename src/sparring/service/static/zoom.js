// The zoomed view of a board too small to tap (Go 19x19 on a phone): the board drawn
// ZOOM_PITCH CSS px a point in a frame that scrolls (and pinch-zooms), with rulers of its
// coordinates along the frame's top and left edges that stay in view as it scrolls (the
// board's own coordinates, drawn in its margins, scroll out of view with it).  A button
// switches to the whole board and back; the choice is kept on this device.

import { el } from "./dom.js";

const MIN_PITCH = { touch: 28, mouse: 20 }; // CSS px between points below which a board zooms
const ZOOM_PITCH = 34; // CSS px between points in the zoomed view
const ZOOM_KEY = "sparring.zoom"; // "on" / "off": the person's choice

export function zoomBoard(host, board, button, { cell, rulers = null, kind = "" }) {
  // Zoom `board` (an SVG just put in `host`, `cell` of its units a point) where its points
  // would be closer than MIN_PITCH (a finger needs more room than a mouse pointer) and the
  // person has not asked for the whole board; `rulers`: {margin, cols: [[x, text]],
  // rows: [[y, text]]} in the board's units, or null.  True when zoomed.
  const box = board.viewBox.baseVal;
  const pitch = (host.clientWidth * cell) / box.width;
  const touch = window.matchMedia("(pointer: coarse)").matches;
  const small = pitch > 0 && pitch < (touch ? MIN_PITCH.touch : MIN_PITCH.mouse);
  const zoomed = small && localStorage.getItem(ZOOM_KEY) !== "off";
  host.classList.toggle("zoomed", zoomed);
  button.hidden = !small;
  button.textContent = zoomed ? "Show the whole board" : "Zoom in (bigger points)";
  button.setAttribute("aria-pressed", String(zoomed));
  if (!zoomed) return false;
  const width = Math.round((box.width / cell) * ZOOM_PITCH);
  board.style.width = `${width}px`;
  if (rulers) addRulers(host, board, width / box.width, rulers, kind);
  return true;
}

function addRulers(host, board, scale, { margin, cols, rows }, kind) {
  // A sheet as wide as the board holds it and its rulers: the top one sticks to the frame's
  // top (and scrolls sideways with the board), the left one to its left edge (and scrolls up
  // and down with it), a corner above both.  Each lies over the board's own margin, so that
  // unscrolled the board looks as it does without them.
  const box = board.viewBox.baseVal;
  const band = `${margin * scale}px`;
  const sheet = el("div", { class: `zoom-sheet ${kind}` });
  sheet.style.width = `${box.width * scale}px`;
  sheet.style.setProperty("--band", band);
  const top = el("div", { class: "ruler ruler-top", "aria-hidden": "true" });
  for (const [x, text] of cols) top.append(mark(text, "left", (x - box.x) * scale));
  const left = el("div", { class: "ruler ruler-left", "aria-hidden": "true" });
  for (const [y, text] of rows) left.append(mark(text, "top", (y - box.y) * scale));
  const row = el("div", { class: "zoom-row" });
  board.replaceWith(sheet);
  row.append(left, board);
  sheet.append(el("div", { class: "ruler ruler-corner", "aria-hidden": "true" }), top, row);
}

function mark(text, side, px) {
  const span = el("span", {}, text);
  span.style[side] = `${px}px`;
  return span;
}

export function scrollToPoint(host, board, x, y) {
  // Scroll a zoomed board so that the point (x, y) of its units is in the middle of the frame.
  const box = board.viewBox.baseVal;
  const scale = board.getBoundingClientRect().width / box.width;
  host.scrollLeft = (x - box.x) * scale - host.clientWidth / 2;
  host.scrollTop = (y - box.y) * scale - host.clientHeight / 2;
}

export function toggleZoom(host) {
  // The person's choice: the whole board or the zoomed one.
  localStorage.setItem(ZOOM_KEY, host.classList.contains("zoomed") ? "off" : "on");
}
