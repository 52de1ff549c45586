// Trust on first use of the receipt signing keys: the first GET /v1/keys this browser sees for an API is
// remembered in local storage; later, every remembered key must still be listed with the same public key,
// and a new key must carry a valid endorsement by a remembered one (docs/hashing.md, "The chain of signing
// keys"), or the page says plainly that the keys no longer match.

import { api } from "./api.js";

const STORE_PREFIX = "cardledger.keys.";

function storeKey() {
  return STORE_PREFIX + location.origin;
}

function b64urlBytes(text) {
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

// Whether `entry`'s endorsement verifies under `endorser`'s public key; null when this browser's Web Crypto
// has no Ed25519 (the check is then left to `cardledger verify --trust-key`).
async function endorsementValid(entry, endorser) {
  if (!crypto.subtle || !entry.endorsement) return entry.endorsement ? null : false;
  const message = new TextEncoder().encode(`cardledger-key-v1\n${entry.key_id}\n${entry.public_key}\n${entry.created_at}`);
  try {
    const key = await crypto.subtle.importKey("raw", b64urlBytes(endorser.public_key), { name: "Ed25519" }, false, ["verify"]);
    return await crypto.subtle.verify({ name: "Ed25519" }, key, b64urlBytes(entry.endorsement), message);
  } catch (error) {
    return null;
  }
}

export function rememberedKeys() {
  try {
    const value = JSON.parse(localStorage.getItem(storeKey()) || "null");
    return value && Array.isArray(value.keys) ? value : null;
  } catch (error) {
    return null;
  }
}

function remember(keys, since) {
  const kept = keys.map(({ key_id, public_key }) => ({ key_id, public_key }));
  localStorage.setItem(storeKey(), JSON.stringify({ since, keys: kept }));
}

// {state: "first-use" | "match" | "changed", fingerprints: [key_id...], since, problems: [text...], notes: [...]}
export async function checkKeys() {
  const { data } = await api("GET", "/v1/keys");
  const served = Array.isArray(data.keys) ? data.keys : [];
  const known = rememberedKeys();
  if (!known) {
    const since = new Date().toISOString();
    remember(served, since);
    return { state: "first-use", fingerprints: served.map((k) => k.key_id), since, problems: [], notes: [] };
  }
  const byId = new Map(served.map((key) => [key.key_id, key]));
  const trusted = new Map(known.keys.map((key) => [key.key_id, key]));
  const problems = [];
  const notes = [];
  for (const key of known.keys) {
    const now = byId.get(key.key_id);
    if (!now) problems.push(`key ${key.key_id}, remembered since ${known.since}, is no longer listed`);
    else if (now.public_key !== key.public_key) problems.push(`key ${key.key_id} is listed with another public key`);
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const entry of served) {
      if (trusted.has(entry.key_id) || !trusted.has(entry.endorsed_by)) continue;
      const valid = await endorsementValid(entry, trusted.get(entry.endorsed_by));
      if (valid === false) continue;
      if (valid === null) notes.push(`key ${entry.key_id} names ${entry.endorsed_by} as endorser; this browser cannot check Ed25519, so check it with cardledger verify --trust-key`);
      trusted.set(entry.key_id, entry);
      grew = true;
    }
  }
  for (const entry of served) {
    if (!trusted.has(entry.key_id)) problems.push(`key ${entry.key_id} is listed but no remembered key endorses it`);
  }
  if (!problems.length) remember([...trusted.values()], known.since);
  return {
    state: problems.length ? "changed" : "match",
    fingerprints: [...trusted.keys()],
    since: known.since,
    problems,
    notes,
  };
}

export function keysSentence(result) {
  if (!result) return "Checking the service's signing keys…";
  const keys = result.fingerprints.join(", ") || "none";
  if (result.state === "first-use") return `Signing keys seen for the first time and remembered in this browser: ${keys}. Compare them with the fingerprint your operator publishes.`;
  if (result.state === "unknown") return `The signing keys could not be read: ${result.problems.join("; ")}.`;
  if (result.state === "match") return `Signing keys match what this browser remembered since ${result.since}: ${keys}.`;
  return `Warning: the service's signing keys no longer match what this browser remembered since ${result.since}. ${result.problems.join("; ")}. Receipts under a key you did not expect prove nothing.`;
}
