// The public state of a table drawn as a table: seats, pool, piles, stock and turn-up (Cholek Tiga); tricks,
// chips and pool (Cha Kau Tsz). Shared by the live table and the replayer. `hands` (seat -> cards) shows faces
// only for the hands given (the viewer's own while a deal runs; every seat's in the replay of a finished deal).

import { cardBack, cardElement, cardRow } from "./cards.js";
import { h } from "./dom.js";

export function seatName(players, seat) {
  const player = players && players[seat];
  return player ? `${player.name} (seat ${seat})` : `seat ${seat} (free)`;
}

function backs(count, label) {
  const row = h("span", { class: "card-row backs", role: "img", "aria-label": label });
  for (let i = 0; i < Math.min(count, 15); i += 1) {
    const back = cardBack({ small: true });
    back.removeAttribute("role");
    back.removeAttribute("aria-label");
    row.append(back);
  }
  return row;
}

function handOf(game, seat, size, hands, renderHand) {
  if (hands && hands[seat]) {
    if (renderHand) return renderHand(seat, hands[seat]);
    return h("div", { class: "hand", dataset: { handSeat: seat } }, cardRow(game, hands[seat], { small: true }));
  }
  return backs(size || 0, `${size || 0} cards, face down`);
}

function seatBox(state, players, seat, mySeat, extra) {
  const classes = ["seat"];
  if (seat === state.to_act) classes.push("to-act");
  if (seat === mySeat) classes.push("mine");
  return h(
    "section",
    { class: classes.join(" "), "aria-label": seatName(players, seat), dataset: { seat } },
    h(
      "h3",
      {},
      seatName(players, seat),
      seat === mySeat ? h("span", { class: "badge" }, "you") : null,
      seat === state.to_act ? h("span", { class: "badge turn" }, "to act") : null,
      (state.ready || []).includes(seat) ? h("span", { class: "badge" }, "ready") : null,
    ),
    extra,
  );
}

function cholekTiga(state, players, mySeat, hands, renderHand) {
  const game = "cholek-tiga";
  const seats = (state.hand_sizes || []).map((size, seat) =>
    seatBox(state, players, seat, mySeat, [
      h("p", {}, `${size} in hand`, state.scores ? `, score ${state.scores[seat]}` : ""),
      handOf(game, seat, size, hands, renderHand),
      h("p", { class: "label" }, `Pile (${(state.piles[seat] || []).length})`),
      cardRow(game, state.piles[seat] || [], { small: true }),
    ]),
  );
  const stock = h(
    "div",
    { class: "stock" },
    state.stock_remaining > 0 ? backs(1, "the stock") : null,
    h("span", {}, `Stock: ${state.stock_remaining} cards`),
  );
  const pending = state.pending
    ? h("div", { class: "pending" }, h("p", { class: "label" }, `Turned up, awaiting seat ${state.to_act}'s capture or pass`), cardElement(game, state.pending))
    : null;
  return h(
    "div",
    { class: "felt" },
    h("div", { class: "centre" }, h("p", { class: "label" }, `Round ${state.round} · Pool (${state.pool.length})`), cardRow(game, state.pool), pending, stock),
    h("div", { class: "seats" }, seats),
  );
}

function plays(game, list, players) {
  return h(
    "ol",
    { class: "plays" },
    (list || []).map((play) => h("li", {}, h("span", { class: "label" }, seatName(players, play.seat)), cardRow(game, play.cards, { small: true }))),
  );
}

function chaKauTsz(state, players, mySeat, hands, renderHand) {
  const game = "cha-kau-tsz";
  const seats = (state.hand_sizes || []).map((size, seat) =>
    seatBox(state, players, seat, mySeat, [
      h(
        "p",
        {},
        `${size} in hand · ${state.tricks[seat]} tricks · chips ${state.stacks[seat]} (balance ${state.balances[seat]})`,
        seat === state.dealer ? " · dealer" : "",
      ),
      handOf(game, seat, size, hands, renderHand),
    ]),
  );
  const last = state.last_trick;
  return h(
    "div",
    { class: "felt" },
    h(
      "div",
      { class: "centre" },
      h("p", { class: "label" }, `Pool game ${state.pool_game} · hand ${state.hand_no} · pool ${state.pool} points`),
      h("p", { class: "label" }, state.trick_no ? `Trick ${state.trick_no}, led by ${seatName(players, state.leader)}` : "The hand is over"),
      plays(game, state.trick, players),
      last
        ? h("details", {}, h("summary", {}, `Last trick, number ${last.trick_no}: won by ${seatName(players, last.winner)}, who is credited ${last.tricks} ${last.tricks === 1 ? "trick" : "tricks"} (one for each card led)`), plays(game, last.plays, players))
        : null,
      state.debts && state.debts.length
        ? h("p", { class: "label" }, `Debts: ${state.debts.map((d) => `seat ${d.seat} owes ${d.points}`).join(", ")}`)
        : null,
    ),
    h("div", { class: "seats" }, seats),
  );
}

export function renderState(game, state, { players, mySeat = null, hands = null, renderHand = null } = {}) {
  if (!state.hand_sizes) {
    return h("div", { class: "felt" }, h("p", {}, "No deal is being played."), h("div", { class: "seats" }, (players || []).map((_, seat) => seatBox(state, players, seat, mySeat, []))));
  }
  return game === "cholek-tiga"
    ? cholekTiga(state, players, mySeat, hands, renderHand)
    : chaKauTsz(state, players, mySeat, hands, renderHand);
}

export function describeAction(action) {
  if (action.type === "discard") return action.capture ? `Discard ${action.card}, capturing ${action.capture.join(" + ")}` : `Discard ${action.card}`;
  if (action.type === "capture") return `Capture with ${action.cards.join(" + ")}`;
  if (action.type === "pass") return "Pass (leave the turned-up card in the pool)";
  if (action.type === "play" && action.cards) return `Play ${action.cards.join(" ")}`;
  if (action.type === "play") return `Play ${action.count} card(s) of your choice`;
  if (action.type === "ready") return "Ready for the next deal";
  if (action.type === "leave") return "Leave the table";
  if (action.type === "close") return "Close the table for good";
  return JSON.stringify(action);
}

export function actionCards(action) {
  if (action.type === "discard") return [action.card, ...(action.capture || [])];
  if (action.type === "capture" || (action.type === "play" && action.cards)) return action.cards;
  return [];
}
