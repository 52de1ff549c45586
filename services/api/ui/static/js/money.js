// A table's settlement (GET /v1/reports/settlement?table_id=) and double-entry ledger (GET /v1/tables/{id}/ledger)
// as tables, each with a CSV download (the settlement's CSV as the API writes it; the ledger's made here).

import { api } from "./api.js";
import { clear, downloadText, h, money, shortId, warn } from "./dom.js";
import { problemMessage } from "./problems.js";

const LEDGER_PAGE = 1000;
const LEDGER_MAX_PAGES = 50;
const LEDGER_COLUMNS = ["version", "line_no", "deal_no", "event_type", "account", "player_id", "amount", "unit", "amount_cents", "reason", "occurred_at"];

function csvCell(value) {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`; // never a spreadsheet formula
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function ledgerCsv(lines) {
  return [LEDGER_COLUMNS.join(","), ...lines.map((line) => LEDGER_COLUMNS.map((column) => csvCell(line[column])).join(","))].join("\n") + "\n";
}

function grid(caption, columns, rows, id) {
  return h(
    "table",
    { id, class: "grid" },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, columns.map(([title]) => h("th", { scope: "col" }, title)))),
    h("tbody", {}, rows.map((row) => h("tr", {}, columns.map(([, cell]) => h("td", {}, cell(row)))))),
  );
}

async function wholeLedger(tableId) {
  let page = null;
  const lines = [];
  let after = null;
  for (let n = 0; n < LEDGER_MAX_PAGES; n += 1) {
    ({ data: page } = await api("GET", `/v1/tables/${tableId}/ledger`, { query: { limit: LEDGER_PAGE, after } }));
    lines.push(...page.lines);
    after = page.next_after;
    if (after === null) break;
  }
  return { ...page, lines };
}

export function showMoney(root, tableId) {
  clear(root);
  const heading = h("h1", {}, `Settlement and ledger · table ${shortId(tableId)}`);
  const settlementSection = h("section", { "aria-label": "settlement", id: "settlement" }, h("h2", {}, "Settlement"), h("p", {}, "Loading…"));
  const ledgerSection = h("section", { "aria-label": "ledger", id: "ledger" }, h("h2", {}, "Ledger"), h("p", {}, "Loading…"));
  root.append(h("header", {}, heading, h("p", {}, h("a", { href: `#/table/${tableId}` }, "back to the table"))), settlementSection, ledgerSection);

  (async () => {
    try {
      const { data: report } = await api("GET", "/v1/reports/settlement", { query: { table_id: tableId, format: "json", limit: 200 } });
      clear(settlementSection).append(
        h("h2", {}, "Settlement"),
        h("p", {}, `${report.deals} finished deal(s) · ${report.balanced ? "balanced" : "NOT balanced"} · amounts in cents`),
        grid(
          "Net per account",
          [
            ["Player", (row) => row.name || row.account],
            ["Account", (row) => row.account],
            ["Game", (row) => row.game],
            ["Net", (row) => `${row.net_amount} ${row.unit}`],
            ["Net (money)", (row) => money(row.net_cents, "cents")],
            ["Deals", (row) => row.deals],
          ],
          report.rows,
          "settlement-table",
        ),
        h(
          "button",
          {
            type: "button",
            id: "settlement-csv",
            onclick: async () => {
              try {
                const { text } = await api("GET", "/v1/reports/settlement", { query: { table_id: tableId, format: "csv", limit: 200 }, accept: "text" });
                downloadText(`settlement-${tableId}.csv`, text, "text/csv");
              } catch (error) {
                warn(problemMessage(error));
              }
            },
          },
          "Download the settlement as CSV",
        ),
      );
    } catch (error) {
      clear(settlementSection).append(h("h2", {}, "Settlement"), h("p", {}, problemMessage(error)));
    }
    try {
      const ledger = await wholeLedger(tableId);
      clear(ledgerSection).append(
        h("h2", {}, "Ledger"),
        h("p", {}, `${ledger.line_count} line(s) · sum ${ledger.sum_amount} · ${ledger.balanced ? "balanced" : "NOT balanced"}`),
        grid(
          "Totals by account",
          [
            ["Account", (row) => row.account],
            ["Amount", (row) => `${row.amount} ${ledger.unit}`],
            ["Money", (row) => money(row.amount_cents, "cents")],
          ],
          ledger.totals,
          "ledger-totals",
        ),
        grid(
          "Lines",
          [
            ["Version", (row) => row.version],
            ["Deal", (row) => row.deal_no],
            ["Event", (row) => row.event_type],
            ["Account", (row) => row.account],
            ["Amount", (row) => `${row.amount} ${row.unit}`],
            ["Money", (row) => money(row.amount_cents, "cents")],
            ["Reason", (row) => row.reason],
          ],
          ledger.lines,
          "ledger-lines",
        ),
        h("button", { type: "button", id: "ledger-csv", onclick: () => downloadText(`ledger-${tableId}.csv`, ledgerCsv(ledger.lines), "text/csv") }, "Download the ledger as CSV"),
      );
    } catch (error) {
      clear(ledgerSection).append(h("h2", {}, "Ledger"), h("p", {}, problemMessage(error)));
    }
  })();
  return () => {};
}
