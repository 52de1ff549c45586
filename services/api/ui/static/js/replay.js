// The deal replayer: the dispute report of a deal (GET /v1/reports/dispute) stepped through forward and back,
// with the table after each step, who acted, the legal choices they had and each event's hash; and a panel that
// recomputes the commitment, every hash and the deck in this browser (verify.js).

import { api } from "./api.js";
import { cardRow } from "./cards.js";
import { clear, h, shortId, warn } from "./dom.js";
import { problemMessage } from "./problems.js";
import { describeAction, renderState, seatName } from "./render.js";
import { checkKeys, keysSentence } from "./keytrust.js";
import { verifyReport } from "./verify.js";

// Each seat's cards after each step, from the private blocks the caller may see (every block once the deal has
// ended, for its players and the auditor); a seat whose block is hidden is left out (shown face down).
function handsAfterSteps(report) {
  const hands = {};
  const out = [];
  const remove = (seat, cards) => {
    if (!hands[seat]) return;
    for (const card of cards) {
      const at = hands[seat].indexOf(card);
      if (at >= 0) hands[seat].splice(at, 1);
    }
  };
  for (const step of report.steps) {
    for (const event of step.events) {
      const data = event.data || {};
      if (event.deal_no !== report.deal_no) continue;
      if ((event.type === "cards_drawn" || event.type === "hand_dealt") && data.private) {
        hands[data.seat] = [...(event.type === "cards_drawn" ? hands[data.seat] || [] : []), ...data.private.cards];
      } else if (event.type === "card_discarded") {
        remove(data.seat, [data.card]);
      } else if (event.type === "cards_played") {
        remove(data.seat, data.cards);
      }
    }
    out.push(Object.fromEntries(Object.entries(hands).map(([seat, cards]) => [seat, [...cards]])));
  }
  return out;
}

function actorOf(report, step) {
  if (step.timed_out) return `the turn clock, for ${seatName(report.players, step.seat)}`;
  if (step.seat !== null && step.seat !== undefined) return seatName(report.players, step.seat);
  const player = (report.players || []).findIndex((p) => p && p.id === step.actor);
  if (player >= 0) return `${seatName(report.players, player)} (for the table)`;
  return step.actor === "clock" ? "the turn clock" : step.actor || "the service";
}

function isChosen(step, alternative) {
  const acted = (type) => step.events.find((event) => event.type === type && event.data && event.data.seat === step.seat);
  const same = (a, b) => JSON.stringify(a || null) === JSON.stringify(b || null);
  if (alternative.type === "discard") {
    const event = acted("card_discarded");
    return Boolean(event) && event.data.card === alternative.card && same(event.data.capture, alternative.capture);
  }
  if (alternative.type === "capture") {
    const event = acted("turn_up_captured");
    return Boolean(event) && same(event.data.capture, alternative.cards);
  }
  if (alternative.type === "pass") return Boolean(acted("turn_up_passed"));
  if (alternative.type === "play") {
    const event = acted("cards_played");
    return Boolean(event) && (alternative.cards ? same(event.data.cards, alternative.cards) : true);
  }
  return false;
}

export function showReplay(root, tableId, dealNo) {
  let report = null;
  let hands = [];
  let index = 0;
  let verification = null;
  let keys = null;

  function stepView() {
    const step = report.steps[index];
    const last = step.events[step.events.length - 1];
    const alternatives = step.legal_alternatives;
    return h(
      "section",
      { class: "step", "aria-label": `step ${step.step}`, dataset: { step: step.step } },
      h("h2", { id: "step-heading", tabindex: "-1" }, `Step ${step.step} of ${report.steps.length}: ${actorOf(report, step)}`),
      alternatives === null
        ? h("p", {}, report.alternatives_note || "No choice was made by a player in this step.")
        : h(
            "div",
            { class: "alternatives" },
            h("h3", {}, `Legal choices (${alternatives.length})`),
            h(
              "ul",
              {},
              alternatives.map((alternative) =>
                h("li", { class: isChosen(step, alternative) ? "chosen" : "" }, describeAction(alternative), isChosen(step, alternative) ? h("strong", {}, " ← chosen") : null),
              ),
            ),
          ),
      h(
        "table",
        { class: "events" },
        h("caption", {}, "Events of this step"),
        h("thead", {}, h("tr", {}, ["Position", "Type", "Seat", "Cards", "Hash"].map((title) => h("th", { scope: "col" }, title)))),
        h(
          "tbody",
          {},
          step.events.map((event) => {
            const data = event.data || {};
            const cards = (data.private && data.private.cards) || data.cards || (data.card ? [data.card, ...(data.capture || [])] : []);
            const failed = verification && verification.checks.some((check) => !check.ok && check.position === event.position);
            return h(
              "tr",
              { class: failed ? "failed" : "" },
              h("td", {}, event.position),
              h("td", {}, event.type),
              h("td", {}, data.seat ?? ""),
              h("td", {}, cards.length ? cardRow(report.game, cards, { small: true }) : ""),
              h("td", {}, h("code", { class: "hash" }, event.hash || "withheld")),
            );
          }),
        ),
      ),
      h("h3", {}, "The table after this step"),
      renderState(report.game, last.public_state_after, { players: report.players, hands: hands[index] }),
    );
  }

  function go(to) {
    index = Math.max(0, Math.min(report.steps.length - 1, to));
    draw(true);
  }

  function controls() {
    const total = report.steps.length;
    const slider = h("input", {
      id: "step-slider",
      type: "range",
      min: 1,
      max: total,
      value: index + 1,
      "aria-label": "step",
      oninput: (event) => go(Number(event.target.value) - 1),
    });
    return h(
      "div",
      { class: "controls", role: "toolbar", "aria-label": "replay controls" },
      h("button", { type: "button", dataset: { go: "first" }, disabled: index === 0, onclick: () => go(0) }, "First"),
      h("button", { type: "button", dataset: { go: "back" }, disabled: index === 0, onclick: () => go(index - 1) }, "◀ Back"),
      h("label", { for: "step-slider" }, ` Step ${index + 1} / ${total} `),
      slider,
      h("button", { type: "button", dataset: { go: "forward" }, disabled: index === total - 1, onclick: () => go(index + 1) }, "Forward ▶"),
      h("button", { type: "button", dataset: { go: "last" }, disabled: index === total - 1, onclick: () => go(total - 1) }, "Last"),
    );
  }

  async function runVerification() {
    const panel = root.querySelector("#verification");
    panel.dataset.state = "running";
    panel.querySelector(".verdict").textContent = "Verifying…";
    if (!crypto.subtle) {
      panel.querySelector(".verdict").textContent =
        "This browser offers Web Crypto only on a secure page: open the viewer over HTTPS (or on localhost) to verify.";
      return;
    }
    try {
      verification = await verifyReport(report);
    } catch (error) {
      verification = { ok: false, checks: [], firstFailure: { step: null, detail: String(error) } };
    }
    draw(false);
  }

  function verificationPanel() {
    let verdict = "Not run yet: the browser recomputes the commitment from the revealed seed, every event hash and link, the private commitments and the deck, with Web Crypto SHA-256.";
    let details = null;
    let state = "idle";
    if (verification) {
      const failures = verification.checks.filter((check) => !check.ok);
      state = verification.ok ? "ok" : "failed";
      verdict = verification.ok
        ? `All ${verification.checks.length} checks passed: the seed matches its commitment, every hash and link recomputes, and the deck holds every card dealt.`
        : `Step ${verification.firstFailure.step} fails: ${verification.firstFailure.detail}`;
      details = h(
        "details",
        {},
        h("summary", {}, `${verification.checks.length} checks, ${failures.length} failed`),
        h("ol", { class: "checks" }, verification.checks.map((check) => h("li", { class: check.ok ? "ok" : "failed" }, `${check.ok ? "OK" : "FAILED"} · step ${check.step} · ${check.check} · ${check.detail}`))),
      );
    }
    return h(
      "section",
      { id: "verification", class: `verification ${state}`, "aria-label": "verification", dataset: { state } },
      h("h2", {}, "Verification in this browser"),
      h("p", {}, "Commitment ", h("code", {}, report.commitment), report.server_seed ? [" · revealed seed ", h("code", {}, report.server_seed)] : " · seed not revealed yet"),
      h("button", { type: "button", id: "verify-button", onclick: runVerification }, verification ? "Verify again" : "Verify"),
      h("p", { class: "verdict", role: "status" }, verdict),
      h("p", { id: "key-trust", class: `keys ${keys ? keys.state : "checking"}`, dataset: { state: keys ? keys.state : "checking" } }, keysSentence(keys)),
      details,
      h("p", { class: "label" }, `The service's own check: ${report.verification.ok ? "OK" : `FAILED (${(report.verification.problems || []).join("; ")})`}`),
    );
  }

  function draw(focusStep) {
    const focused = document.activeElement && root.contains(document.activeElement) ? document.activeElement : null;
    const focusKey = focused ? focused.dataset.go || focused.id : null;
    clear(root);
    root.dataset.step = report.steps[index].step;
    root.append(
      h("header", {}, h("h1", {}, `Replay of deal ${report.deal_no} · ${report.game === "cholek-tiga" ? "Cholek Tiga" : "Cha Kau Tsz"} · table ${shortId(report.table_id)}`),
        h("p", {}, `Viewed as ${report.viewer} · status ${report.status} · `, h("a", { href: `#/table/${report.table_id}` }, "back to the table"), " · ", h("a", { href: `#/money/${report.table_id}` }, "settlement and ledger"))),
      controls(),
      stepView(),
      verificationPanel(),
    );
    const again = focusKey ? root.querySelector(`[data-go="${focusKey}"]`) || root.querySelector(`#${CSS.escape(focusKey)}`) : null;
    if (again && !again.disabled) again.focus();
    else if (focusStep) root.querySelector("#step-heading").focus();
  }

  function onKey(event) {
    if (!report || event.target.tagName === "INPUT") return;
    if (event.key === "ArrowRight") go(index + 1);
    else if (event.key === "ArrowLeft") go(index - 1);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(report.steps.length - 1);
  }

  root.append(h("p", {}, "Loading the deal…"));
  root.addEventListener("keydown", onKey);
  api("GET", "/v1/reports/dispute", { query: { table_id: tableId, deal_no: dealNo, format: "json" } })
    .then(({ data }) => {
      report = data;
      hands = handsAfterSteps(report);
      draw(false);
      checkKeys()
        .then((result) => {
          keys = result;
        })
        .catch((error) => {
          keys = { state: "unknown", fingerprints: [], since: "", problems: [problemMessage(error)], notes: [] };
        })
        .finally(() => draw(false));
    })
    .catch((error) => {
      clear(root);
      root.append(h("p", {}, "This deal cannot be shown."));
      warn(problemMessage(error));
    });
  return () => root.removeEventListener("keydown", onKey);
}
