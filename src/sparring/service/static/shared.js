// Small helpers shared by the page's panels for estimates and reviews (upload.js, review.js).
// Like app.js they set user text only with textContent, never as HTML.

const TOKEN_KEY = "sparring.token"; // where app.js keeps the player's token

export const $ = (id) => document.getElementById(id);

export function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

export class CallError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

export async function call(method, path, body = undefined) {
  // A JSON request to the API with the player's token; CallError with the server's sentence.
  const headers = {};
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) {
    let detail = `${response.status} ${response.statusText}`;
    try {
      const data = await response.json();
      if (data && typeof data.detail === "string") detail = data.detail;
    } catch {
      /* not JSON: keep the status line */
    }
    throw new CallError(response.status, detail);
  }
  return response.json();
}

export function percent(x, digits = 0) {
  return `${(100 * Number(x)).toFixed(digits)}%`;
}

let catalog = null;

export async function catalogEntry(game) {
  // A game's entry of the catalog (GET /api/catalog, asked once), or null.
  catalog ??= call("GET", "/api/catalog");
  const games = (await catalog).games ?? [];
  return games.find((g) => g.name === game) ?? null;
}

export async function estimatorRanks(game) {
  // The estimator's (and the play networks') ranks of a game, strongest first.
  return (await catalogEntry(game))?.levels?.estimator_ranks ?? [];
}
