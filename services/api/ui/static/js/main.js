// The viewer's router: #/lobby, #/table/<id>, #/replay/<id>/<deal>, #/money/<id>; signing in first.

import { identity, signOut, signedInName, token, whoAmI } from "./api.js";
import { announce, clear, h, shortId, warn } from "./dom.js";
import { problemMessage } from "./problems.js";
import { showLobby, showSignIn } from "./lobby.js";
import { showMoney } from "./money.js";
import { showReplay } from "./replay.js";
import { showTable } from "./table.js";

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const ROUTES = [
  [new RegExp(`^#/table/(${UUID})$`), (root, [id]) => showTable(root, id)],
  [new RegExp(`^#/replay/(${UUID})/(\\d{1,9})$`), (root, [id, deal]) => showReplay(root, id, Number(deal))],
  [new RegExp(`^#/money/(${UUID})$`), (root, [id]) => showMoney(root, id)],
];

let leave = () => {};

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function drawAccount() {
  const account = clear(document.getElementById("account"));
  if (!token()) return;
  account.append(
    `Signed in as ${signedInName() || (identity() === "auditor" ? "the auditor" : `player ${shortId(identity() || "?")}`)} `,
    h("button", {
      type: "button",
      id: "sign-out",
      onclick: () => {
        signOut();
        announce("Signed out.");
        navigate("#/lobby");
      },
    }, "Sign out"),
  );
}

async function route() {
  leave();
  leave = () => {};
  const root = clear(document.getElementById("app"));
  drawAccount();
  if (!token()) {
    leave = showSignIn(root, () => navigate("#/lobby"));
    return;
  }
  if (!identity()) {
    try {
      await whoAmI();
      drawAccount();
    } catch (error) {
      signOut();
      warn(problemMessage(error));
      leave = showSignIn(root, () => navigate("#/lobby"));
      return;
    }
  }
  for (const [pattern, show] of ROUTES) {
    const match = pattern.exec(location.hash);
    if (match) {
      leave = show(root, match.slice(1));
      return;
    }
  }
  leave = showLobby(root, navigate);
}

window.addEventListener("hashchange", route);
route();
