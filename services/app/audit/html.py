"""The dispute report as one self-contained HTML page (no scripts, no external files).

The page is drawn from the report alone (`services.app.audit.service.Audit.dispute_report`), so it shows the
caller exactly what the JSON report shows them: a running deal's hidden cards are absent from the report, hence
from the page.
Every value from the report is escaped with `html.escape`; nothing from the event log is ever written into the
page unescaped. Its size grows with the deal's events: the table after each event is shown as what changed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from html import escape
from typing import Any

from domain.events import JSON
from domain.games import GAMES
from domain.ledger import PLAYER_PREFIX, SEAT_PREFIX
from services.app.audit.glossary import terms_in

# What the page may do, also sent as a header by the API: no script, no network, inline styles only.
CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:80em}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .45em;vertical-align:top}
th{background:#f3f3f3;text-align:left}td.n{text-align:right}.ok{color:#05660f;font-weight:bold}
.bad{color:#a40000;font-weight:bold}.muted,.id{color:#666}.id{font-size:.8em}
code{font-family:ui-monospace,monospace;font-size:.85em;word-break:break-all}
#events{table-layout:fixed;width:100%}#events td{overflow-wrap:anywhere}
tr.step th{background:#e8eef7;font-weight:normal}tr.timeout th{background:#fbe3e3}
i{font-style:normal;font-family:ui-monospace,monospace;font-size:.85em;display:inline-block;min-width:1.9em;
text-align:center;border:1px solid #999;border-radius:3px;padding:0 .1em;margin:0 1px;background:#fff}
i.s0{color:#8a5a00}i.s1{color:#0b5394}i.s2{color:#38761d}i.s3{color:#741b47}i.r{background:#fde0e0;border-color:#c00}
"""

# Keys of event data, results and table views whose string values are card codes.
_CARD_KEYS = frozenset({"card", "cards", "capture", "pool", "piles", "leftover_pool", "pending", "hand", "hands"})
# Keys of the table view that change with every event and say nothing about the cards.
_VOLATILE_VIEW_KEYS = frozenset({"version", "turn_deadline"})


# Card codes -------------------------------------------------------------------------------------------------


class _Page:
    """What rendering needs besides a value: the game's card faces and the players' names."""

    def __init__(self, report: Mapping[str, Any]) -> None:
        game = GAMES.get(str(report.get("game")))
        self.legend = list(game.card_faces) if game is not None else []
        self.faces = {
            code: f"<i class={f's{group} r' if red else f's{group}'}>{escape(code)}</i>"
            for code, _, group, red in self.legend
        }
        players = report.get("players")
        self.players: list[JSON] = list(players) if isinstance(players, list) else []
        self.names = {str(p.get("id")): p.get("name") for p in self.players if isinstance(p, Mapping)}

    def cards(self, value: JSON) -> str:
        """Card codes as faces, lists of them in brackets (a pile per seat), anything else as text."""
        if isinstance(value, str) and value in self.faces:
            return self.faces[value]
        if isinstance(value, list):
            inner = "".join(self.cards(item) for item in value)
            return f"[{inner}]" if any(isinstance(item, list) for item in value) or not value else inner
        return self.value("", value)

    def value(self, key: str, value: JSON) -> str:
        """A value of the report, compact: cards as faces (under card keys), objects as `key: value` lists."""
        if key in _CARD_KEYS and (isinstance(value, list) or (isinstance(value, str) and value in self.faces)):
            return self.cards(value)
        if key == "seat" and isinstance(value, int):
            return self.seat(value)
        if key == "player_id" and isinstance(value, str):
            return self.player(value)
        if key == "players" and isinstance(value, list) and all(isinstance(p, str | None) for p in value):
            return "[" + ", ".join(self.player(p) for p in value) + "]"
        if isinstance(value, Mapping):
            return "{" + ", ".join(f"{escape(str(k))}: {self.value(str(k), v)}" for k, v in value.items()) + "}"
        if isinstance(value, list):
            return "[" + ", ".join(self.value(key, item) for item in value) + "]"
        return _text(value)

    def fields(self, data: JSON, skip: Sequence[str] = ()) -> str:
        if not isinstance(data, Mapping):
            return self.value("", data)
        return "; ".join(f"{escape(str(k))}: {self.value(str(k), v)}" for k, v in data.items() if k not in skip)

    def player(self, player_id: JSON) -> str:
        """A player by name, the id beside it in small print."""
        if player_id is None:
            return '<span class="muted">—</span>'
        name = self.names.get(str(player_id))
        if name is None:
            return f'<span class="id">{_text(player_id)}</span>'
        return f'{_text(name)} <span class="id">{_text(player_id)}</span>'

    def seat(self, seat: int) -> str:
        player = self.players[seat] if 0 <= seat < len(self.players) else None
        name = player.get("name") if isinstance(player, Mapping) else None
        return f"seat {seat}" + (f" ({_text(name)})" if name is not None else "")

    def account(self, account: str) -> str:
        """A ledger account by the player it names (the deal's player at a seat), the account beside it."""
        named = ""
        if account.startswith(SEAT_PREFIX) and account.removeprefix(SEAT_PREFIX).isdigit():
            seat = int(account.removeprefix(SEAT_PREFIX))
            player = self.players[seat] if seat < len(self.players) else None
            if isinstance(player, Mapping):
                named = _text(player.get("name"))
        elif account.startswith(PLAYER_PREFIX):
            named = _text(self.names.get(account.removeprefix(PLAYER_PREFIX)))
        return f'{named} <span class="id">{escape(account)}</span>' if named else escape(account)


def _text(value: JSON) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return escape(value)
    return escape(json.dumps(value, ensure_ascii=False, sort_keys=True))


def _verdict(value: JSON) -> str:
    if value is None:
        return '<span class="muted">not checked</span>'
    return '<span class="ok">yes</span>' if value else '<span class="bad">NO</span>'


# Sections -----------------------------------------------------------------------------------------------------

# Result lists with one entry per seat, as columns of the result table, in this order; other per-seat lists follow.
_RESULT_COLUMNS = {
    "scores": "score",
    "tricks": "tricks",
    "payments": "paid into the pool",
    "net": "net",
    "net_cents": "net (cents)",
    "balances": "balance after",
    "piles": "pile (cards captured)",
}


def _result(page: _Page, report: Mapping[str, Any], transfers: list[tuple[int, Mapping[str, Any]]]) -> str:
    """Per player: name, the game's figures (score or tricks), net, and the net the transfers add up to."""
    result = report.get("result")
    seats = len(page.players)
    if not isinstance(result, Mapping):
        return '<p class="muted">The deal is still being played: it has no result yet.</p>'
    per_seat = [key for key in _RESULT_COLUMNS if isinstance(result.get(key), list) and len(result[key]) == seats]
    per_seat += [k for k, v in result.items() if k not in per_seat and isinstance(v, list) and len(v) == seats]
    unit = _unit(report)
    moved = _net_by_account(transfers)
    heads = "".join(
        f"<th>{escape(_RESULT_COLUMNS.get(k, k))}{f' ({unit})' if k == 'net' else ''}</th>" for k in per_seat
    )
    rows = [f'<table id="result"><tr><th>seat</th><th>player</th>{heads}<th>net of the transfers</th></tr>']
    for seat, player in enumerate(page.players):
        name = _text(player.get("name")) if isinstance(player, Mapping) else '<span class="muted">empty</span>'
        pid = _text(player.get("id")) if isinstance(player, Mapping) else ""
        cells = "".join(
            f"<td>{page.cards(result[k][seat])}</td>"
            if k in _CARD_KEYS
            else f'<td class="n">{_text(result[k][seat])}</td>'
            for k in per_seat
        )
        from_transfers = moved.get(f"{SEAT_PREFIX}{seat}", 0)
        agrees = not isinstance(result.get("net"), list) or result["net"][seat] == from_transfers
        mark = "" if agrees else ' class="bad" title="differs from the net of the result"'
        rows.append(
            f'<tr><td class="n">{seat}</td><td>{name} <span class="id">{pid}</span></td>{cells}'
            f'<td class="n"{mark}>{from_transfers}</td></tr>'
        )
    rows.append("</table>")
    others = [(k, v) for k, v in result.items() if k not in per_seat]
    if others:
        rows.append("<table><tr><th>also in the result</th><th>value</th></tr>")
        for key, value in others:
            shown = page.seat(value) if key == "pool_winner" and isinstance(value, int) else page.value(key, value)
            rows.append(f"<tr><th>{escape(str(key))}</th><td>{shown}</td></tr>")
        rows.append("</table>")
    return "\n".join(rows)


def _unit(report: Mapping[str, Any]) -> str:
    unit = report.get("unit") or ""
    currency = (report.get("options") or {}).get("currency")
    return escape(f"{unit}, {currency}" if unit == "cents" and currency else str(unit))


def _deal_transfers(report: Mapping[str, Any]) -> list[tuple[int, Mapping[str, Any]]]:
    """(event position, transfer) for every transfer the deal's events carry (in-play bonuses and the settlement):
    what the ledger derives its lines from."""
    found: list[tuple[int, Mapping[str, Any]]] = []
    for event in _events(report):
        data = event.get("data")
        if event.get("deal_no") != report.get("deal_no") or not isinstance(data, Mapping):
            continue
        for transfer in data.get("transfers") or []:
            if isinstance(transfer, Mapping):
                found.append((int(event.get("position") or 0), transfer))
    return found


def _net_by_account(transfers: list[tuple[int, Mapping[str, Any]]]) -> dict[str, int]:
    net: dict[str, int] = {}
    for _, transfer in transfers:
        amount = transfer.get("amount")
        if isinstance(amount, int):
            net[str(transfer.get("payer"))] = net.get(str(transfer.get("payer")), 0) - amount
            net[str(transfer.get("payee"))] = net.get(str(transfer.get("payee")), 0) + amount
    return net


def _transfers(page: _Page, report: Mapping[str, Any], transfers: list[tuple[int, Mapping[str, Any]]]) -> str:
    if not transfers:
        return '<p class="muted">No transfer: the deal has not ended, or moved no money.</p>'
    rows = [
        '<table id="transfers"><tr><th>event</th><th>reason</th><th>payer</th><th>payee</th>'
        f"<th>amount ({_unit(report)})</th></tr>"
    ]
    rows += [
        f'<tr><td class="n"><a href="#e{position}">{position}</a></td><td>{_text(t.get("reason"))}</td>'
        f"<td>{page.account(str(t.get('payer')))}</td><td>{page.account(str(t.get('payee')))}</td>"
        f'<td class="n">{_text(t.get("amount"))}</td></tr>'
        for position, t in transfers
    ]
    rows.append("</table>")
    return "\n".join(rows)


def _legend(page: _Page) -> str:
    if not page.legend:
        return '<p class="muted">No legend: the game is not known to this page.</p>'
    rows = ['<table id="legend"><tr><th>code</th><th>card</th></tr>']
    rows += [
        f"<tr><td>{page.faces[code]}</td><td>{escape(name)}{' — red-stamped' if red else ''}</td></tr>"
        for code, name, _, red in page.legend
    ]
    rows.append("</table>")
    return "\n".join(rows)


def _verification(verification: Mapping[str, Any]) -> str:
    rows = [
        ("Commitment matches the revealed seed", verification.get("commitment_matches_seed")),
        ("Every dealt, drawn and turned-up card matches the deck from the seed", verification.get("deck_matches_seed")),
        ("Hash chain intact", verification.get("hash_chain_intact")),
        ("Replaying the events gives the stored result", verification.get("replay_matches")),
        ("Overall", verification.get("ok")),
    ]
    parts = ['<table id="verification">']
    parts += [f"<tr><th>{escape(label)}</th><td>{_verdict(value)}</td></tr>" for label, value in rows]
    parts.append("</table>")
    first = verification.get("first_bad_event")
    if first:
        parts.append(
            f'<p class="bad">First bad event: version {_text(first.get("version"))}: {_text(first.get("reason"))}</p>'
        )
    problems = verification.get("problems") or []
    if problems:
        parts.append("<table><tr><th>version</th><th>check</th><th>reason</th></tr>")
        parts += [
            f"<tr><td>{_text(p.get('version'))}</td><td>{_text(p.get('check'))}</td><td>{_text(p.get('reason'))}</td></tr>"
            for p in problems
        ]
        parts.append("</table>")
    return "\n".join(parts)


def _events(report: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for step in report.get("steps") or []:
        yield from step.get("events") or []


def _changes(before: JSON, after: JSON) -> dict[str, JSON]:
    """The keys of the table view `after` whose values differ from `before` (all of them after no view)."""
    if not isinstance(after, Mapping):
        return {} if after is None else {"view": after}
    earlier = before if isinstance(before, Mapping) else {}
    return {k: v for k, v in after.items() if k not in _VOLATILE_VIEW_KEYS and (k not in earlier or earlier[k] != v)}


def _alternative(page: _Page, action: JSON) -> str:
    if isinstance(action, Mapping):
        rest = page.fields(action, skip=("type",))
        return f"<b>{_text(action.get('type'))}</b>" + (f" {rest}" if rest else "")
    return page.value("", action)


def _steps(page: _Page, report: Mapping[str, Any]) -> str:
    """One table: a header row per step (who acted, their legal choices), a row per event with its hash."""
    rows = [
        '<table id="events"><colgroup><col style="width:3.5em"><col style="width:9em"><col><col>'
        '<col style="width:11em"></colgroup><tr><th>#</th><th>event</th><th>what it says</th>'
        "<th>the table after it (what changed)</th><th>hash</th></tr>"
    ]
    view: JSON = None
    last_hash: JSON = None
    for step in report.get("steps") or []:
        events = step.get("events") or []
        when = events[0].get("occurred_at") if events else None
        seat = step.get("seat")
        who = page.player(step.get("actor")) + (f", seat {_text(seat)}" if seat is not None else "")
        header = f"Step {_text(step.get('step'))}: {who}; to act before: {_text(step.get('to_act_before'))}"
        header += f' <span class="muted">{_text(when)}</span>'
        if step.get("timed_out"):
            header += ' <span class="bad">timed out: the turn clock took the default action for the seat</span>'
        alternatives = step.get("legal_alternatives")
        if alternatives is not None:
            listed = " | ".join(_alternative(page, a) for a in alternatives) or '<span class="muted">none</span>'
            header += f"<br>Legal choices: {listed}"
        timeout = " timeout" if step.get("timed_out") else ""
        rows.append(f'<tr class="step{timeout}"><th colspan="5">{header}</th></tr>')
        for event in events:
            position = _text(event.get("position"))
            said = page.fields(event.get("data"))
            if event.get("occurred_at") != when:
                said += f' <span class="muted">{_text(event.get("occurred_at"))}</span>'
            if event.get("replay_error"):
                said += f'<br><span class="bad">Replay stopped here: {_text(event.get("replay_error"))}</span>'
            after = event.get("public_state_after")
            changed = page.fields(_changes(view, after)) if after is not None else '<span class="muted">—</span>'
            view = after if after is not None else view
            rows.append(
                f'<tr id="e{position}" class="event"><td class="n">{position}</td><td>{_text(event.get("type"))}</td>'
                f"<td>{said}</td><td>{changed}</td><td>{_hash(event, last_hash)}</td></tr>"
            )
            last_hash = event.get("hash")
    rows.append("</table>")
    return "\n".join(rows)


def _hash(event: Mapping[str, Any], last_hash: JSON) -> str:
    """The event's hash; its prev_hash too where it is not the hash of the row above (the first row, a break)."""
    digest = event.get("hash")
    if digest is None:
        return '<span class="hash muted">withheld until the deal ends</span>'
    shown = f'<code class="hash">{_text(digest)}</code>'
    prev = event.get("prev_hash")
    if prev != last_hash:
        shown += f'<br><span class="muted">after</span> <code>{_text(prev)}</code>'
    return shown


# The page ---------------------------------------------------------------------------------------------------------


def dispute_html(report: Mapping[str, Any], generated_at: datetime) -> str:
    """A readable page for a person settling an argument at the table, generated at `generated_at`."""
    page = _Page(report)
    title = f"Deal {report.get('deal_no')} at table {report.get('table_id')}"
    moment = generated_at.astimezone(UTC)
    player_rows = "".join(
        f'<tr><td class="n">{seat}</td><td>{page.player(p.get("id")) if isinstance(p, Mapping) else "—"}</td></tr>'
        for seat, p in enumerate(page.players)
    )
    seed_rows = "".join(
        f"<tr><th>{escape(label)}</th><td><code>{_text(report.get(key))}</code></td></tr>"
        for label, key in (
            ("Commitment (published before the deal)", "commitment"),
            ("Client seeds", "client_seeds"),
            ("Server seed (revealed when the deal ended)", "server_seed"),
        )
    )
    transfers = _deal_transfers(report)
    note = report.get("alternatives_note")
    body = f"""<h1>{escape(title)}</h1>
<p>Game {_text(report.get("game"))}, deal status {_text(report.get("status"))}, seen as {_text(report.get("viewer"))}.
Generated <time id="generated" datetime="{moment.isoformat()}">{moment.strftime("%Y-%m-%d %H:%M:%S UTC")}</time>.</p>
<h2>Result</h2>
{_result(page, report, transfers)}
<h2>Transfers</h2>
<p class="muted">The money the deal's events moved (in-play bonuses and the settlement): the ledger holds two lines
for each, the payer debited and the payee credited.</p>
{_transfers(page, report, transfers)}
<h2>Verification</h2>
{_verification(report.get("verification") or {})}
<h2>Players</h2><table id="players"><tr><th>seat</th><th>player</th></tr>{player_rows}</table>
<h2>Seeds</h2><table>{seed_rows}</table>
<h2>Step by step</h2>
{f'<p class="muted">{_text(note)}</p>' if note else ""}
{_steps(page, report)}
<h2>Card codes</h2>
{_legend(page)}
"""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">
<title>{escape(title)}</title><style>{_STYLE}</style></head>
<body>
{body}{_glossary(body)}</body></html>
"""


def _glossary(body: str) -> str:
    """The rules' words the page shows as the events name them (`ang_pow_besar`, ...), said in words."""
    used = terms_in(body)
    if not used:
        return ""
    rows = "".join(f"<dt><code>{escape(term)}</code></dt><dd>{escape(meaning)}</dd>" for term, meaning in used.items())
    return f'<h2>Terms</h2><dl id="terms">{rows}</dl><p class="muted">The rules: docs/rules.md.</p>\n'
