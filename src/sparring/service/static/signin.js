// Sign in on another device: the profile makes a one-time link (POST /api/me/signin-codes;
// it works once, for 10 minutes), and opening it on the other device (#signin/CODE, or the
// link pasted in the first form) signs that device in as the same player with a token of its
// own (POST /api/signin).

const $ = (id) => document.getElementById(id);
const PREFIX = "signin/";

const signin = {
  ctx: null, // {api, showMessage, remember(player, token), me(), route(), hideSections()}
  timer: null,
};

async function redeem(code) {
  // POST /api/signin without this device's token (a refused code must not sign it out).
  const response = await fetch("/api/signin", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code }),
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    /* not JSON */
  }
  if (!response.ok) throw new Error(typeof data?.detail === "string" ? data.detail : `${response.status} ${response.statusText}`);
  return data;
}

function codeOf(text) {
  // The code in a pasted link (…/#signin/CODE) or the code itself.
  const trimmed = text.trim();
  const at = trimmed.indexOf(`#${PREFIX}`);
  return at >= 0 ? trimmed.slice(at + PREFIX.length + 1) : trimmed;
}

async function signInWith(code) {
  try {
    const player = await redeem(code);
    signin.ctx.remember(player, player.token);
    signin.ctx.showMessage(`This device now plays as ${player.name}.`, "info");
    history.replaceState(null, "", "#new"); // the used code leaves the address bar
  } catch (err) {
    signin.ctx.showMessage(err.message);
    history.replaceState(null, "", signin.ctx.me() ? "#new" : location.pathname);
  }
  $("signin-section").hidden = true;
  await signin.ctx.route();
}

export async function signinFromLink() {
  // Called first by the page's router: true when it shows the question (this device already
  // plays as someone), false when the router goes on.
  const hash = decodeURIComponent(location.hash.replace(/^#/, ""));
  if (!hash.startsWith(PREFIX)) {
    $("signin-section").hidden = true;
    return false;
  }
  const code = hash.slice(PREFIX.length);
  const me = signin.ctx.me();
  if (!me) {
    await signInWith(code);
    return true;
  }
  signin.ctx.hideSections();
  $("player-section").hidden = true;
  $("signin-section").hidden = false;
  document.body.dataset.view = "signin";
  $("signin-text").textContent = `This device plays as ${me.name}. The link makes it play as the player who made the link, and it forgets ${me.name}: unless ${me.name} also plays on another device, ${me.name}'s games cannot be opened again.`;
  $("signin-keep").textContent = `Keep playing as ${me.name}`;
  $("signin-accept").dataset.code = code;
  return true;
}

async function makeLink() {
  const button = $("signin-make");
  button.disabled = true;
  try {
    const made = await signin.ctx.api("POST", "/api/me/signin-codes");
    const url = new URL(made.path, location.href).href;
    $("signin-url").value = url;
    $("signin-out").hidden = false;
    $("signin-share").hidden = typeof navigator.share !== "function";
    const until = new Date(Date.now() + made.seconds * 1000);
    const time = until.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    $("signin-expiry").textContent = `It works once, until ${time} (${Math.round(made.seconds / 60)} minutes). Anyone with the link can play as you until then: send it only to yourself.`;
    clearTimeout(signin.timer);
    signin.timer = setTimeout(() => {
      $("signin-expiry").textContent = "This link has expired: make a new one.";
      $("signin-url").value = "";
    }, made.seconds * 1000);
    $("signin-url").select();
  } catch (err) {
    signin.ctx.showMessage(err.message);
  } finally {
    button.disabled = false;
  }
}

async function copyLink() {
  const url = $("signin-url").value;
  if (!url) return;
  try {
    await navigator.clipboard.writeText(url);
    $("signin-copy").textContent = "Copied";
  } catch {
    $("signin-url").select(); // no clipboard here (an insecure origin): selected to copy by hand
    $("signin-copy").textContent = "Selected: copy it";
  }
  setTimeout(() => {
    $("signin-copy").textContent = "Copy";
  }, 2500);
}

async function shareLink() {
  // A phone's share sheet (a message to oneself, another app); a cancelled share says nothing.
  const url = $("signin-url").value;
  if (!url) return;
  try {
    await navigator.share({ title: "sparring: sign in", url });
  } catch {
    /* cancelled */
  }
}

export function initSignin(ctx) {
  signin.ctx = ctx;
  $("signin-make").addEventListener("click", makeLink);
  $("signin-copy").addEventListener("click", copyLink);
  $("signin-share").addEventListener("click", shareLink);
  $("signin-accept").addEventListener("click", () => signInWith($("signin-accept").dataset.code ?? ""));
  $("signin-keep").addEventListener("click", async () => {
    history.replaceState(null, "", "#new");
    $("signin-section").hidden = true;
    await ctx.route();
  });
  $("signin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const code = codeOf($("signin-paste").value);
    if (code) await signInWith(code);
  });
}
