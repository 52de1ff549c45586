// Signing in (a token kept in session storage, or a new player registered), the lobby of tables, opening one.

import { api, identity, signIn } from "./api.js";
import { announce, clear, h, shortId, warn } from "./dom.js";
import { problemMessage } from "./problems.js";
import { sit } from "./table.js";

// "any": every table, newest first, so that tables in play show by default (not "No open tables" beside them).
const STATUSES = ["any", "open", "playing", "between_deals", "closed"];

export function showSignIn(root, onSignedIn) {
  const tokenInput = h("input", { id: "token", type: "password", autocomplete: "off", required: true, spellcheck: "false" });
  const nameInput = h("input", { id: "register-name", type: "text", maxlength: 64, autocomplete: "off", required: true });
  const shown = h("p", { id: "new-token", class: "new-token" });
  root.append(
    h("h1", {}, "Sign in"),
    h("p", {}, "Your token stays in this tab's session storage and is sent to this API only."),
    h(
      "form",
      {
        id: "sign-in",
        onsubmit: (event) => {
          event.preventDefault();
          signIn(tokenInput.value.trim());
          onSignedIn();
        },
      },
      h("label", { for: "token" }, "Bearer token (a player's or the auditor's) "),
      tokenInput,
      h("button", { type: "submit" }, "Sign in"),
    ),
    h("h2", {}, "New player"),
    h(
      "form",
      {
        id: "register",
        onsubmit: async (event) => {
          event.preventDefault();
          try {
            const { data } = await api("POST", "/v1/players", { body: { name: nameInput.value } });
            signIn(data.token, data.name);
            clear(shown).append(
              "Registered. Your token, shown only this once (keep it to sign in again): ",
              h("code", {}, data.token),
              " ",
              h("a", { href: "#/lobby", onclick: () => onSignedIn() }, "Continue to the lobby"),
            );
            announce(`Registered as ${data.name}.`);
          } catch (error) {
            warn(problemMessage(error));
          }
        },
      },
      h("label", { for: "register-name" }, "Name "),
      nameInput,
      h("button", { type: "submit" }, "Register"),
    ),
    shown,
  );
  tokenInput.focus();
  return () => {};
}

function createForm(onOpened) {
  const game = h("select", { id: "new-game" }, h("option", { value: "cholek-tiga" }, "Cholek Tiga (2-3 seats)"), h("option", { value: "cha-kau-tsz" }, "Cha Kau Tsz (2-4 seats)"));
  const seats = h("input", { id: "new-seats", type: "number", min: 2, max: 4, value: 2, required: true });
  const turn = h("input", { id: "new-turn-seconds", type: "number", min: 0, max: 3600, value: 60, required: true });
  const extra = h("textarea", { id: "new-options", rows: 2, cols: 40, placeholder: '{"honours_rank": "ace"}' });
  return h(
    "form",
    {
      id: "open-table",
      onsubmit: async (event) => {
        event.preventDefault();
        let options;
        try {
          options = extra.value.trim() ? JSON.parse(extra.value) : {};
        } catch (error) {
          warn(`The options are not JSON: ${error.message}`);
          return;
        }
        options.turn_seconds = Number(turn.value);
        try {
          const { data } = await api("POST", "/v1/tables", { body: { game: game.value, seats: Number(seats.value), options } });
          announce(`Table ${shortId(data.id)} is open.`);
          onOpened(data.id);
        } catch (error) {
          warn(problemMessage(error));
        }
      },
    },
    h("h2", {}, "Open a table"),
    h("p", {}, h("label", { for: "new-game" }, "Game "), game, " ", h("label", { for: "new-seats" }, "Seats "), seats, " ", h("label", { for: "new-turn-seconds" }, "Turn clock, seconds (0: none) "), turn),
    h("p", {}, h("label", { for: "new-options" }, "Other options, as JSON (docs/rules.md, Table options) "), extra),
    h("button", { type: "submit" }, "Open the table"),
  );
}

// What a reader of a table may open: the replays of its ended deals and its settlement, for its players and
// the auditor (the API refuses them to anyone else).
function tableLinks(table, mine) {
  if (!mine) return [];
  const ended = table.status === "playing" ? table.deal_no - 1 : table.deal_no;
  const links = [];
  if (ended >= 1) links.push(h("a", { href: `#/replay/${table.id}/${ended}`, dataset: { link: "replay" } }, `replay deal ${ended}`));
  links.push(h("a", { href: `#/money/${table.id}`, dataset: { link: "money" } }, "settlement"));
  return links.flatMap((link, index) => (index ? [" · ", link] : [link]));
}

export function showLobby(root, navigate) {
  const auditor = identity() === "auditor"; // reads everything, acts nowhere: no seat or table to offer
  let status = "any";
  const list = h("div", { id: "lobby-list" }, h("p", {}, "Loading…"));
  const seed = h("input", { id: "lobby-seed", type: "text", maxlength: 64, autocomplete: "off" });
  const filter = h(
    "select",
    {
      id: "lobby-status",
      onchange: () => {
        status = filter.value;
        load();
      },
    },
    STATUSES.map((value) => h("option", { value }, value === "any" ? "of any status" : value.replace("_", " "))),
  );

  async function takeSeat(tableId, seat) {
    try {
      const data = await sit(tableId, seat, seed.value);
      announce(`You sat down at seat ${data.seat}.`);
      navigate(`#/table/${tableId}`);
    } catch (error) {
      warn(problemMessage(error));
    }
  }

  async function load() {
    try {
      const query = status === "any" ? { limit: 100 } : { status, limit: 100 };
      const { data } = await api("GET", "/v1/tables", { query });
      clear(list);
      if (data.tables.length === 0) {
        list.append(h("p", {}, status === "any" ? "No tables yet." : `No ${status.replace("_", " ")} tables: choose another status above.`));
        return;
      }
      list.append(
        h(
          "table",
          { class: "grid lobby" },
          h("caption", {}, status === "any" ? "Tables" : `Tables (${status.replace("_", " ")})`),
          h("thead", {}, h("tr", {}, ["Table", "Game", "Players", "Status", "Deal", "", ""].map((title) => h("th", { scope: "col" }, title)))),
          h(
            "tbody",
            {},
            data.tables.map((table) =>
              h(
                "tr",
                { dataset: { table: table.id } },
                h("td", {}, h("a", { href: `#/table/${table.id}` }, shortId(table.id))),
                h("td", {}, table.game),
                h("td", {}, table.players.map((player, seat) => (player ? player.name : `seat ${seat} free`)).join(", ")),
                h("td", {}, table.status.replace("_", " ")),
                h("td", {}, table.deal_no),
                h(
                  "td",
                  {},
                  table.players.map((player, seat) =>
                    auditor || player || !["open", "between_deals"].includes(table.status)
                      ? null
                      : h("button", { type: "button", dataset: { sit: seat }, onclick: () => takeSeat(table.id, seat) }, `Sit at seat ${seat}`),
                  ),
                ),
                h("td", { class: "links" }, tableLinks(table, auditor || table.players.some((player) => player && player.id === identity()))),
              ),
            ),
          ),
        ),
      );
    } catch (error) {
      clear(list).append(h("p", {}, problemMessage(error)));
    }
  }

  root.append(
    h("h1", {}, "Lobby"),
    h("p", {}, h("label", { for: "lobby-status" }, "Show tables that are "), filter, " ", h("button", { type: "button", id: "lobby-refresh", onclick: load }, "Refresh")),
    auditor ? h("p", {}, "Signed in as the auditor: you may read every table, its replays and its settlement, and act at none.") : h("p", {}, h("label", { for: "lobby-seed" }, "Client seed for the seat you take (optional) "), seed),
    list,
    auditor ? null : createForm((tableId) => navigate(`#/table/${tableId}`)),
  );
  load();
  return () => {};
}
