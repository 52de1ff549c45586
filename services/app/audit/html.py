"""The dispute report as one self-contained HTML page (no scripts, no external files).

Every value from the report is escaped with `html.escape`; nothing from the
event log is ever written into the page unescaped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from typing import Any

from domain.events import JSON

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:70em}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top}
th{background:#f3f3f3;text-align:left}.ok{color:#05660f;font-weight:bold}.bad{color:#a40000;font-weight:bold}
.step{border-left:4px solid #ddd;padding-left:1em;margin:1em 0}
code,pre{font-family:ui-monospace,monospace;font-size:.85em}
pre{white-space:pre-wrap;background:#fafafa;padding:.4em;margin:.2em 0}.muted{color:#666}
"""


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


def _verification(verification: Mapping[str, Any]) -> str:
    rows = [
        ("Commitment matches the revealed seed", verification.get("commitment_matches_seed")),
        ("Every dealt, drawn and turned-up card matches the deck from the seed", verification.get("deck_matches_seed")),
        ("Hash chain intact", verification.get("hash_chain_intact")),
        ("Replaying the events gives the stored result", verification.get("replay_matches")),
        ("Overall", verification.get("ok")),
    ]
    parts = ["<table>"]
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


def _step(step: Mapping[str, Any]) -> str:
    who = step.get("actor")
    seat = step.get("seat")
    parts = [
        '<div class="step">',
        f"<h3>Step {_text(step.get('step'))}: {_text(who)}"
        + (f" (seat {_text(seat)})" if seat is not None else "")
        + f"; seat to act before: {_text(step.get('to_act_before'))}</h3>",
    ]
    if step.get("timed_out"):
        parts.append(
            '<p class="bad">Timed out: the seat did not act in time, and the turn clock took the default action '
            "for it (docs/house-rules.md).</p>"
        )
    alternatives = step.get("legal_alternatives")
    if alternatives is not None:
        listed = ", ".join(f"<code>{_text(a)}</code>" for a in alternatives) or '<span class="muted">none</span>'
        parts.append(f"<p>Legal choices at this point: {listed}</p>")
    for event in step.get("events", []):
        parts.append(
            f"<p><b>#{_text(event.get('position'))} {_text(event.get('type'))}</b>"
            f' <span class="muted">{_text(event.get("occurred_at"))}</span></p>'
            f"<pre>{_text(event.get('data'))}</pre>"
        )
        if event.get("replay_error"):
            parts.append(f'<p class="bad">Replay stopped here: {_text(event.get("replay_error"))}</p>')
        state = event.get("public_state_after")
        if state is not None:
            parts.append(f"<details><summary>Table after it</summary><pre>{_text(state)}</pre></details>")
    parts.append("</div>")
    return "\n".join(parts)


def _player(player: JSON) -> str:
    if isinstance(player, Mapping):
        return f'{_text(player.get("name"))} <span class="muted">{_text(player.get("id"))}</span>'
    return _text(player)


def dispute_html(report: Mapping[str, Any]) -> str:
    """A readable page for a person settling an argument at the table."""
    title = f"Deal {report.get('deal_no')} at table {report.get('table_id')}"
    players = report.get("players") or []
    player_rows = "".join(f"<tr><td>{seat}</td><td>{_player(p)}</td></tr>" for seat, p in enumerate(players))
    seed_rows = "".join(
        f"<tr><th>{escape(label)}</th><td><code>{_text(report.get(key))}</code></td></tr>"
        for label, key in (
            ("Commitment (published before the deal)", "commitment"),
            ("Client seeds", "client_seeds"),
            ("Server seed (revealed when the deal ended)", "server_seed"),
        )
    )
    steps = "\n".join(_step(step) for step in report.get("steps", []))
    note = report.get("alternatives_note")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title><style>{_STYLE}</style></head>
<body>
<h1>{escape(title)}</h1>
<p>Game {_text(report.get("game"))}, deal status {_text(report.get("status"))},
seen as {_text(report.get("viewer"))}.</p>
<h2>Players</h2><table><tr><th>seat</th><th>player</th></tr>{player_rows}</table>
<h2>Seeds</h2><table>{seed_rows}</table>
<h2>Result</h2><pre>{_text(report.get("result"))}</pre>
<h2>Verification</h2>
{_verification(report.get("verification") or {})}
<h2>Step by step</h2>
{f'<p class="muted">{_text(note)}</p>' if note else ""}
{steps}
</body></html>
"""
