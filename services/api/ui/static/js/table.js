// The live table: the seat's view (hand, legal actions) or, without a seat, the public state; refreshed from the
// live stream; every action sent with an Idempotency-Key and If-Match on the version it was chosen from.

import { api, identity, newIdempotencyKey } from "./api.js";
import { cardElement, cardRow } from "./cards.js";
import { announce, append, clear, h, money, shortId, warn } from "./dom.js";
import { problemMessage } from "./problems.js";
import { actionCards, describeAction, renderState, seatName } from "./render.js";
import { follow } from "./sse.js";

export async function sit(tableId, seat, clientSeed) {
  const body = {};
  if (seat !== null && seat !== undefined && seat !== "") body.seat = Number(seat);
  if (clientSeed) body.client_seed = clientSeed;
  const { data } = await api("POST", `/v1/tables/${tableId}/seats`, { body });
  return data;
}

export function showTable(root, tableId) {
  let current = null; // the last view or public state read
  let mySeat = null;
  let selected = [];
  let busy = false;
  let refreshing = null;
  let wanted = 0;
  let streamState = "connecting";

  // The seat's view when the caller holds a seat (found by its player id in the public state), else the public
  // state: a page never asks for a view it would be refused.
  async function read(minVersion) {
    const query = minVersion ? { min_version: minVersion } : undefined;
    if (mySeat === null) {
      const { data } = await api("GET", `/v1/tables/${tableId}`, { query });
      const seat = data.players.findIndex((player) => player && player.id === identity());
      if (seat < 0) return data;
      mySeat = seat;
    }
    try {
      const { data } = await api("GET", `/v1/tables/${tableId}/view`, { query });
      mySeat = data.seat;
      return data;
    } catch (error) {
      if (error.code !== "no_seat") throw error;
      mySeat = null; // the seat was left, or given to someone else
      const { data } = await api("GET", `/v1/tables/${tableId}`, { query });
      return data;
    }
  }

  let forced = false;

  // Reads the view again: at least at `minVersion` (a write or a streamed event), or afresh with 0.
  async function refresh(minVersion = 0) {
    wanted = Math.max(wanted, minVersion);
    forced = forced || minVersion === 0;
    if (refreshing) return refreshing;
    refreshing = (async () => {
      try {
        for (let round = 0; round < 5 && (forced || !current || current.version < wanted); round += 1) {
          forced = false;
          const next = await read(wanted);
          const changed = !current || next.version !== current.version || next.seat !== current.seat;
          current = next;
          if (changed) {
            selected = [];
            draw();
          }
        }
      } catch (error) {
        warn(problemMessage(error));
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  async function act(action) {
    if (busy) return;
    busy = true;
    draw();
    try {
      const { data } = await api("POST", `/v1/tables/${tableId}/actions`, {
        body: action,
        headers: { "Idempotency-Key": newIdempotencyKey(), "If-Match": `"${current.version}"` },
      });
      announce(`${describeAction(action)}: done (version ${data.version}).`);
      busy = false;
      await refresh(data.version);
    } catch (error) {
      busy = false;
      draw();
      warn(problemMessage(error));
      await refresh(0);
    }
  }

  async function takeSeat(seat, seedInput) {
    try {
      const data = await sit(tableId, seat, seedInput.value);
      announce(`You sat down at seat ${data.seat}.`);
      await refresh(data.version);
    } catch (error) {
      warn(problemMessage(error));
    }
  }

  function myHand(seat, cards) {
    const choice = (current.legal_actions || []).find((action) => action.type === "play" && action.count);
    if (!choice) {
      return h("div", { class: "hand", dataset: { handSeat: seat }, "aria-label": "your hand" }, cardRow(current.game, cards));
    }
    const row = h("div", { class: "hand choosing", dataset: { handSeat: seat }, role: "group", "aria-label": `your hand: choose ${choice.count} card(s)` });
    cards.forEach((code, index) => {
      const pressed = selected.includes(index);
      row.append(
        cardElement(current.game, code, {
          pressed,
          onToggle: () => {
            selected = pressed ? selected.filter((i) => i !== index) : [...selected, index];
            draw();
          },
        }),
      );
      row.lastChild.dataset.handIndex = index;
    });
    return row;
  }

  function actionsPanel() {
    const actions = current.legal_actions || [];
    if (mySeat === null) return null;
    const panel = h("section", { class: "actions", "aria-label": "your actions" }, h("h2", {}, "Your actions"));
    if (actions.length === 0) {
      panel.append(h("p", {}, current.status === "playing" ? `Waiting for ${seatName(current.players, current.to_act)}.` : "Nothing to do now."));
      return panel;
    }
    const list = h("div", { class: "action-list" });
    let seedInput = null;
    for (const action of actions) {
      if (action.type === "play" && action.count) {
        const ready = selected.length === action.count;
        const cards = selected.map((index) => current.hand[index]);
        list.append(
          h("button", { type: "button", class: "action", disabled: !ready || busy, dataset: { action: "follow", count: action.count }, onclick: () => act({ type: "play", cards }) },
            ready ? `Play ${cards.join(" ")}` : `Choose ${action.count} card(s) in your hand (${selected.length} chosen)`),
        );
        continue;
      }
      if (action.type === "ready") {
        seedInput = h("input", { id: "ready-seed", type: "text", maxlength: 64, autocomplete: "off" });
        list.append(h("label", { for: "ready-seed" }, "Client seed for the next deal (optional) "), seedInput);
      }
      const body = action.type === "ready" ? null : action;
      list.append(
        h(
          "button",
          {
            type: "button",
            class: `action ${action.type}`,
            disabled: busy,
            "aria-label": describeAction(action),
            dataset: { action: JSON.stringify(action) },
            onclick: () => act(body || (seedInput.value ? { type: "ready", client_seed: seedInput.value } : { type: "ready" })),
          },
          h("span", {}, describeAction(action)),
          actionCards(action).length ? cardRow(current.game, actionCards(action), { small: true }) : null,
        ),
      );
    }
    panel.append(list);
    return panel;
  }

  function seatsPanel() {
    if (mySeat !== null || identity() === "auditor" || !["open", "between_deals"].includes(current.status)) return null;
    const free = current.players.map((player, seat) => (player ? null : seat)).filter((seat) => seat !== null);
    if (free.length === 0) return null;
    const seed = h("input", { id: "sit-seed", type: "text", maxlength: 64, autocomplete: "off" });
    return h(
      "section",
      { class: "sit", "aria-label": "take a seat" },
      h("h2", {}, "Take a seat"),
      h("label", { for: "sit-seed" }, "Client seed (optional) "),
      seed,
      free.map((seat) => h("button", { type: "button", dataset: { sit: seat }, onclick: () => takeSeat(seat, seed) }, `Sit at seat ${seat}`)),
    );
  }

  function resultPanel() {
    const result = current.last_result;
    if (!result) return null;
    const unit = current.game === "cholek-tiga" ? "cents" : "points";
    return h(
      "section",
      { class: "result", "aria-label": "last result" },
      h("h2", {}, `Result of deal ${current.deal_no}`),
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Seat"), result.scores ? h("th", { scope: "col" }, "Score") : null, result.tricks ? h("th", { scope: "col" }, "Tricks") : null, h("th", { scope: "col" }, "Net"))),
        h(
          "tbody",
          {},
          result.net.map((net, seat) =>
            h("tr", {}, h("td", {}, seatName(current.players, seat)), result.scores ? h("td", {}, result.scores[seat]) : null, result.tricks ? h("td", {}, result.tricks[seat]) : null, h("td", {}, money(net, unit))),
          ),
        ),
      ),
    );
  }

  function focusedKey() {
    const element = document.activeElement;
    if (!element || !root.contains(element)) return null;
    for (const name of ["handIndex", "action", "sit"]) {
      if (element.dataset[name] !== undefined) {
        const attribute = name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
        return `[data-${attribute}="${CSS.escape(element.dataset[name])}"]`;
      }
    }
    return element.id ? `#${CSS.escape(element.id)}` : null;
  }

  function draw() {
    if (!current) return;
    const active = focusedKey(); // redrawing keeps the keyboard focus on the same control, and what was typed
    const typed = [...root.querySelectorAll("input[id]")].map((input) => [input.id, input.value]);
    clear(root);
    const state = current;
    const hands = mySeat !== null && state.hand ? { [mySeat]: state.hand } : null;
    root.dataset.version = state.version;
    root.dataset.status = state.status;
    root.dataset.seat = mySeat === null ? "" : mySeat;
    root.dataset.toAct = state.to_act === null ? "" : state.to_act;
    const finished = state.status === "playing" ? state.deal_no - 1 : state.deal_no;
    const mayAudit = mySeat !== null || identity() === "auditor"; // deal records and ledgers: players and auditor
    append(root, [
      h(
        "header",
        { class: "table-head" },
        h("h1", { tabindex: "-1" }, `${state.game === "cholek-tiga" ? "Cholek Tiga" : "Cha Kau Tsz"} · table ${shortId(state.id)}`),
        h(
          "p",
          {},
          `Status ${state.status.replace("_", " ")} · deal ${state.deal_no} · version ${state.version} · `,
          mySeat === null ? "watching (no seat)" : `you are seat ${mySeat}`,
          state.to_act === mySeat && mySeat !== null ? h("strong", { class: "your-turn" }, " · your turn") : null,
          state.turn_deadline ? ` · clock acts at ${new Date(state.turn_deadline).toLocaleTimeString()}` : "",
          h("span", { class: `stream ${streamState}` }, ` · live: ${streamState}`),
        ),
        h(
          "nav",
          { "aria-label": "this table" },
          mayAudit ? Array.from({ length: Math.max(finished, 0) }, (_, i) => h("a", { href: `#/replay/${state.id}/${i + 1}` }, `Replay deal ${i + 1}`)) : null,
          mayAudit ? h("a", { href: `#/money/${state.id}` }, "Settlement and ledger") : null,
        ),
      ),
      state.next_deal
        ? h("p", { class: "commitment" }, `Deal ${state.next_deal.deal_no} is committed: SHA-256 of its server seed is `, h("code", {}, state.next_deal.commitment))
        : null,
      renderState(state.game, state, { players: state.players, mySeat, hands, renderHand: mySeat !== null ? myHand : null }),
      actionsPanel(),
      seatsPanel(),
      resultPanel(),
    ]);
    for (const [id, value] of typed) {
      const input = document.getElementById(id);
      if (input) input.value = value;
    }
    root.dataset.stream = streamState;
    if (active) {
      // The control that had the focus may be gone (an action taken): the next one, else the heading, takes it.
      const focus = root.querySelector(active) || root.querySelector("button.action:enabled") || root.querySelector("h1");
      focus.focus();
    }
  }

  const stop = { stream: null };
  refresh(0).then(() => {
    if (!current) return;
    stop.stream = follow(
      tableId,
      current.version,
      (event) => {
        if (!current || event.position > current.version) refresh(event.position);
      },
      (state) => {
        streamState = state;
        root.dataset.stream = state;
        const badge = root.querySelector(".stream");
        if (badge) {
          badge.className = `stream ${state}`;
          badge.textContent = ` · live: ${state}`;
        }
        if (state === "live") refresh(0); // catch up with anything appended while the stream was down
      },
    );
  });
  return () => {
    if (stop.stream) stop.stream();
  };
}
