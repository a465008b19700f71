// Clocks: a time control chosen when a game starts (none by default), shown as two clocks
// above the board.  The server keeps the time (state.clock: each side's time left when the
// state was sent, and whose time runs); the page only counts down from it, and when the
// person's time reaches zero it asks the server again, which ends the game on time.

const $ = (id) => document.getElementById(id);
const LOW_MS = 20000; // below this the person's clock shows tenths and turns red

const clocks = {
  ctx: null, // {refresh(): reads the game again}
  state: null,
  base: 0, // performance.now() when the state arrived
  timer: null,
  asked: false, // the server was asked once the person's time reached zero
};

export function timeControlWanted() {
  // The new-game form's choice: {initial, increment} in seconds, or null (no clock).
  const value = $("clock-select").value;
  if (!value) return null;
  const [initial, increment] = value.split("+").map(Number);
  return { initial, increment };
}

export function formatClock(ms) {
  const left = Math.max(0, ms);
  if (left < LOW_MS) {
    const tenths = Math.floor(left / 100);
    return `0:${String(Math.floor(tenths / 10)).padStart(2, "0")}.${tenths % 10}`;
  }
  const seconds = Math.ceil(left / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

export function controlText(clock) {
  const minutes = clock.initial % 60 === 0 ? `${clock.initial / 60} min` : `${clock.initial} s`;
  return clock.increment ? `${minutes} + ${clock.increment} s a move` : minutes;
}

export function initClocks(ctx) {
  clocks.ctx = ctx;
}

function leftNow(side) {
  const clock = clocks.state.clock;
  const running = clock.running === side ? performance.now() - clocks.base : 0;
  return clock.left[side] - running;
}

function tick() {
  const state = clocks.state;
  if (!state?.clock) return;
  const clock = state.clock;
  for (const side of [0, 1]) {
    const mine = side === state.human_side;
    const box = $(mine ? "clock-you" : "clock-ai");
    const ms = leftNow(side);
    box.querySelector(".clock-time").textContent = formatClock(ms);
    box.classList.toggle("running", clock.running === side);
    box.classList.toggle("low", mine && ms < LOW_MS);
    box.classList.toggle("flagged", clock.flagged === side);
  }
  const mine = leftNow(state.human_side);
  if (clock.running === state.human_side && mine <= 0 && !clocks.asked) {
    clocks.asked = true; // the server ends the game on time when it reads it
    clocks.ctx.refresh();
  }
}

export function renderClocks(state, info) {
  const host = $("clocks");
  clearInterval(clocks.timer);
  clocks.timer = null;
  clocks.state = state;
  clocks.base = performance.now();
  clocks.asked = false;
  host.hidden = !state.clock;
  if (!state.clock) return;
  const sides = info?.sides ?? ["first", "second"];
  $("clock-you").querySelector(".clock-who").textContent = `You (${sides[state.human_side]})`;
  $("clock-ai").querySelector(".clock-who").textContent = `AI (${sides[1 - state.human_side]})`;
  const flagged = state.clock.flagged === state.human_side ? " · your time ran out" : "";
  $("clock-control").textContent = `${controlText(state.clock)}${flagged}`;
  tick();
  if (state.clock.running !== null && state.clock.running !== undefined) clocks.timer = setInterval(tick, 100);
}
