// Recomputes in the browser what docs/hashing.md and docs/rules.md ("The shuffle") define: canonical JSON,
// event hashes, private commitments, the seed's commitment and the deck. Pure functions over Web Crypto.

const GENESIS = "0".repeat(64);
const encoder = new TextEncoder();

function compareCodePoints(a, b) {
  // Python sorts keys by code point; JavaScript's default sort compares UTF-16 units (docs/hashing.md).
  const left = Array.from(a);
  const right = Array.from(b);
  for (let i = 0; i < Math.min(left.length, right.length); i += 1) {
    const diff = left[i].codePointAt(0) - right[i].codePointAt(0);
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

export function canonical(value) {
  if (value === null || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error(`canonical JSON holds integers only, not ${value}`);
    return String(value);
  }
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort(compareCodePoints);
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function bytesOfHex(text) {
  if (!/^([0-9a-f]{2})*$/.test(text)) throw new Error(`not lowercase hex: ${text.slice(0, 16)}...`);
  return Uint8Array.from(text.match(/../g) || [], (pair) => parseInt(pair, 16));
}

export async function sha256Hex(bytes) {
  return hex(await crypto.subtle.digest("SHA-256", typeof bytes === "string" ? encoder.encode(bytes) : bytes));
}

export function hashedFields(tableId, event) {
  const data = { ...event.data };
  const fields = {
    type: event.type,
    schema_version: event.schema_version,
    deal_no: event.deal_no,
    metadata: event.metadata,
    occurred_at: event.occurred_at,
    stream_id: tableId,
    version: event.position,
    data,
  };
  if (event.hash_version === 2) {
    delete data.private; // it enters through data.private_commitment
    fields.hash_version = 2;
  }
  return fields;
}

export async function eventHash(tableId, event) {
  return sha256Hex(event.prev_hash + canonical(hashedFields(tableId, event)));
}

export async function privateCommitment(privateBlock) {
  return sha256Hex(canonical(privateBlock));
}

export async function seedCommitment(seedHex) {
  return sha256Hex(bytesOfHex(seedHex));
}

const CANONICAL_DECKS = {
  "cholek-tiga": { kinds: [..."CSM"].flatMap((suit) => range9(suit)).concat(["OT", "WF", "RF"]), copies: 4 },
  "cha-kau-tsz": { kinds: [..."SDH"].flatMap((suit) => range9(suit)).concat(["JC", "QC", "KC"]), copies: 2 },
};

function range9(suit) {
  return Array.from({ length: 9 }, (_, i) => `${i + 1}${suit}`);
}

function concatBytes(parts) {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function hmac(keyBytes, message) {
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
}

export async function deckOf(game, seedHex, tableId, dealNo, clientSeeds) {
  const spec = CANONICAL_DECKS[game];
  if (!spec) throw new Error(`unknown game ${game}`);
  const parts = [encoder.encode("cardledger-shuffle-v1")];
  for (const value of [tableId, String(dealNo), ...clientSeeds]) parts.push(Uint8Array.of(0), encoder.encode(value));
  const shuffleKey = await hmac(bytesOfHex(seedHex), concatBytes(parts));
  const words = [];
  let block = 0n;
  async function nextWord() {
    if (words.length === 0) {
      const counter = new Uint8Array(8);
      new DataView(counter.buffer).setBigUint64(0, block);
      block += 1n;
      const bytes = await hmac(shuffleKey, counter);
      const view = new DataView(bytes.buffer);
      for (let i = 0; i < 4; i += 1) words.push(view.getBigUint64(i * 8));
    }
    return words.shift();
  }
  const deck = [];
  for (let c = 0; c < spec.copies; c += 1) deck.push(...spec.kinds);
  const span = 1n << 64n;
  for (let i = deck.length - 1; i >= 1; i -= 1) {
    const bound = BigInt(i + 1);
    const limit = span - (span % bound);
    let word = await nextWord();
    while (word >= limit) word = await nextWord();
    const j = Number(word % bound);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

function revealedCards(event) {
  const data = event.data || {};
  if (!Array.isArray(data.deck_indexes)) return null;
  if (data.private && Array.isArray(data.private.cards)) return data.private.cards;
  if (Array.isArray(data.cards)) return data.cards;
  return null;
}

function sameMultiset(a, b) {
  return a.length === b.length && [...a].sort().join(",") === [...b].sort().join(",");
}

// Checks a dispute report (GET /v1/reports/dispute): the revealed seed against the commitment, every event's
// hash and link, every private commitment, and the cards each dealing event names against the recomputed deck.
// Answers {ok, checks: [{step, position, check, ok, detail}], firstFailure}.
export async function verifyReport(report) {
  const checks = [];
  const add = (step, position, check, ok, detail) => checks.push({ step, position, check, ok, detail });
  const tableId = report.table_id;
  if (report.server_seed) {
    const recomputed = await seedCommitment(report.server_seed);
    add(0, null, "commitment", recomputed === report.commitment,
      `SHA-256 of the revealed seed is ${recomputed}; the commitment published before the deal is ${report.commitment}`);
  } else {
    add(0, null, "commitment", false, "the server seed is not revealed yet (the deal has not ended)");
  }
  let deck = null;
  if (report.server_seed) {
    deck = await deckOf(report.game, report.server_seed, tableId, report.deal_no, report.client_seeds || []);
  }
  let previous = null;
  for (const step of report.steps) {
    for (const event of step.events) {
      const where = `event ${event.position} (${event.type})`;
      if (event.hash === null || event.prev_hash === null) {
        add(step.step, event.position, "hash", false, `${where}: its hash is withheld while its deal runs`);
        continue;
      }
      if (previous !== null) {
        const linked = event.prev_hash === previous.hash && event.position === previous.position + 1;
        add(step.step, event.position, "link", linked, linked
          ? `${where} follows event ${previous.position}`
          : `${where}: prev_hash ${event.prev_hash} or position does not follow event ${previous.position} (hash ${previous.hash})`);
      } else if (event.position === 1) {
        add(step.step, event.position, "link", event.prev_hash === GENESIS, `${where}: the first event chains from the genesis hash`);
      }
      const recomputed = await eventHash(tableId, event);
      add(step.step, event.position, "hash", recomputed === event.hash, recomputed === event.hash
        ? `${where}: ${recomputed}`
        : `${where}: recomputed ${recomputed}, published ${event.hash}`);
      const block = event.data && event.data.private;
      if (event.hash_version === 2 && block) {
        const commitment = await privateCommitment(block);
        const matches = commitment === event.data.private_commitment;
        add(step.step, event.position, "private", matches, matches
          ? `${where}: the seat's cards match their commitment`
          : `${where}: the private block hashes to ${commitment}, not the committed ${event.data.private_commitment}`);
      }
      const cards = revealedCards(event);
      if (deck && cards && event.deal_no === report.deal_no) {
        const fromDeck = event.data.deck_indexes.map((index) => deck[index]);
        const matches = sameMultiset(fromDeck, cards);
        add(step.step, event.position, "deck", matches, matches
          ? `${where}: deck positions ${event.data.deck_indexes.join(", ")} hold ${cards.join(" ")}`
          : `${where}: the deck holds ${fromDeck.join(" ")} at ${event.data.deck_indexes.join(", ")}, the event says ${cards.join(" ")}`);
      }
      previous = event;
    }
  }
  const firstFailure = checks.find((check) => !check.ok) || null;
  return { ok: firstFailure === null, checks, firstFailure };
}
