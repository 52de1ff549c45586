// Every call of the page to the API: the bearer token from session storage, one request at a time (the API
// allows a token two at once per worker), waits as long as Retry-After says, and problem answers as errors.

const TOKEN_KEY = "cardledger.token";
const NAME_KEY = "cardledger.name";
const PLAYER_KEY = "cardledger.player";
const RECORD_KEY = "cardledger.test.record"; // set by the browser tests: keep every answer body for inspection
const MAX_RETRIES = 3;

const recorded = sessionStorage.getItem(RECORD_KEY) === "1" ? [] : null;
if (recorded) window.cardledgerRecorded = recorded;

export function record(kind, url, text) {
  if (recorded) recorded.push({ kind, url, text });
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function signedInName() {
  return sessionStorage.getItem(NAME_KEY);
}

export function signIn(value, name) {
  sessionStorage.setItem(TOKEN_KEY, value);
  if (name) sessionStorage.setItem(NAME_KEY, name);
  else sessionStorage.removeItem(NAME_KEY);
}

export function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(NAME_KEY);
  sessionStorage.removeItem(PLAYER_KEY);
}

// The caller's player id, or "auditor", as GET /v1/players/me names the token (and its name, kept for the header).
export async function whoAmI() {
  const known = sessionStorage.getItem(PLAYER_KEY);
  if (known) return known;
  const { data } = await api("GET", "/v1/players/me");
  const identity = data.role === "auditor" ? "auditor" : data.id;
  sessionStorage.setItem(PLAYER_KEY, identity);
  if (data.role !== "auditor" && data.name) sessionStorage.setItem(NAME_KEY, data.name);
  return identity;
}

export function identity() {
  return sessionStorage.getItem(PLAYER_KEY);
}

export class ApiProblem extends Error {
  constructor(status, problem) {
    super(`${problem.code || status}: ${problem.detail || problem.title || ""}`);
    this.status = status;
    this.code = problem.code || `http_${status}`;
    this.detail = problem.detail || problem.title || `the API answered ${status}`;
    this.problem = problem;
  }
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function authHeaders(extra) {
  const headers = new Headers(extra || {});
  const value = token();
  if (value) headers.set("Authorization", `Bearer ${value}`);
  return headers;
}

let queue = Promise.resolve();

function serialized(task) {
  const run = queue.then(task, task);
  queue = run.catch(() => undefined);
  return run;
}

function withQuery(path, query) {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) params.set(key, value);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

// {data, headers, text}; throws ApiProblem for an error answer. `accept` "text" answers the body as text.
export function api(method, path, { body, headers, query, accept } = {}) {
  const url = withQuery(path, query);
  return serialized(async () => {
    for (let attempt = 0; ; attempt += 1) {
      const sent = authHeaders(headers);
      sent.set("Accept", accept === "text" ? "text/csv, application/problem+json" : "application/json");
      if (body !== undefined) sent.set("Content-Type", "application/json");
      const response = await fetch(url, {
        method,
        headers: sent,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store",
        credentials: "omit",
        referrerPolicy: "no-referrer",
      });
      const text = await response.text();
      record("http", url, text);
      const retryAfter = Number(response.headers.get("Retry-After"));
      if ((response.status === 429 || response.status === 503) && retryAfter > 0 && attempt < MAX_RETRIES) {
        await sleep(retryAfter * 1000);
        continue;
      }
      if (!response.ok) {
        let problem;
        try {
          problem = JSON.parse(text);
        } catch {
          problem = { detail: text.slice(0, 200) };
        }
        throw new ApiProblem(response.status, problem);
      }
      if (accept === "text") return { text, headers: response.headers };
      return { data: text ? JSON.parse(text) : null, headers: response.headers, text };
    }
  });
}

// crypto.randomUUID exists in secure contexts only (HTTPS or localhost); getRandomValues everywhere.
export function newIdempotencyKey() {
  if (crypto.randomUUID) return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
