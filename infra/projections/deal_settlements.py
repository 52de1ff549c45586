"""The settlement of each deal per account, and the pool refunds of closed tables: the read model of the
settlement report.

deal_settlements: one row per (table, deal, account). A deal's transfers are
those of its `deal_ended` event and of the in-play bonuses (Cholek Tiga
`bonus_paid`) of the same deal before it; each row holds the account's net of
them (`amount`, in the game's money unit, and `amount_cents`, points converted
at the table's `chip_value_cents`), the player at the account ("seat:N": the
player of that seat in that deal, `TableHead.player_at`; none for the pool),
and `settled_at`, the deal_ended's `occurred_at`, which dates the whole deal.
When a deal ends, every seat of the table (and the Cha Kau Tsz pool) gets a
row, at zero when no transfer touched it, so that a report over any set of
deals lists every account of their tables, as the report from the log did.

Bonuses come before their deal ends, often in an earlier batch: their rows wait
with `settled_at` NULL (no report reads them), and the deal's end adds its own
transfers to them and dates them. Each row of a settled deal also carries the
deal_ended's `result.net` (by seat) and `consistent`: whether the seats'
amounts equal it, as `services.app.audit.reports` checks (false only for a
tampered log).

The amounts and the discrepancy check are exactly those of the report that
joined the log with itself (tests/integration/test_audit_reports.py keeps that
report as the oracle): transfers are read with `domain.table.deal_transfers`
from any event that carries a "transfers" key (but `table_closed`, below), and
a deal counts when such an event is among its events up to its `deal_ended`.

closing_refunds (migration 011): one row per (table, account) that the
transfers of the table's `table_closed` event touched. The service closes an
abandoned Cha Kau Tsz table with its pool refunded, from `pool` to
`player:<id>` (docs/house-rules.md); that comes after the table's last
`deal_ended` and belongs to no deal, so it is kept here and not counted as
one: no `result.net` to agree with, no row for the seats. Each row holds the
account's net of the closing (`amount`, `amount_cents` as above; the pool's is
negative, each refunded player's positive), the player (`player:<id>` names
it; none for the pool) and `closed_at`, the table_closed's `occurred_at`. A
table closes once (a closed table refuses every action), so a row is never
changed; a closing without transfers (Cholek Tiga, an empty pool, a table
closed by its players) has no rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.events import Event
from domain.games import game_named
from domain.ledger import POOL_ACCOUNT
from domain.table import DEAL_ENDED, TABLE_CLOSED, deal_transfers
from infra.db import Conn
from infra.event_store import RecordedEvent
from infra.json_codec import dumps_text
from infra.projections.base import ModelTable, Projection
from infra.projections.heads import ProjectionCaches, TableHead, table_heads

CENTS = "cents"

# Rows travel as one jsonb array per statement (see infra/projections/tables.py). Transfers of a deal that has
# already ended (settled in an earlier batch) are left out, as the report leaves out a deal's events after its end.
_ADD_PENDING = """
INSERT INTO deal_settlements (table_id, deal_no, account, player_id, game, unit, amount, amount_cents)
SELECT table_id, deal_no, account, player_id, game, unit, amount, amount_cents
FROM jsonb_to_recordset(%s::jsonb) AS row (table_id text, deal_no integer, account text, player_id text,
                                            game text, unit text, amount bigint, amount_cents bigint)
WHERE NOT EXISTS (SELECT FROM deal_settlements AS s
                  WHERE s.table_id = row.table_id AND s.deal_no = row.deal_no AND s.settled_at IS NOT NULL)
ON CONFLICT (table_id, deal_no, account) DO UPDATE
SET amount = deal_settlements.amount + EXCLUDED.amount,
    amount_cents = deal_settlements.amount_cents + EXCLUDED.amount_cents
"""

_PENDING_OF = """
SELECT s.table_id, s.deal_no, s.account, s.amount
FROM deal_settlements AS s
JOIN unnest(%s::text[], %s::integer[]) AS d (table_id, deal_no) ON s.table_id = d.table_id AND s.deal_no = d.deal_no
WHERE s.settled_at IS NULL
"""

_SETTLE = """
INSERT INTO deal_settlements (table_id, deal_no, account, player_id, game, unit, amount, amount_cents,
                              settled_at, result_net, consistent)
SELECT table_id, deal_no, account, player_id, game, unit, amount, amount_cents, settled_at, result_net, consistent
FROM jsonb_to_recordset(%s::jsonb) AS row (table_id text, deal_no integer, account text, player_id text,
                                            game text, unit text, amount bigint, amount_cents bigint,
                                            settled_at timestamptz, result_net bigint[], consistent boolean)
ON CONFLICT (table_id, deal_no, account) DO UPDATE
SET amount = EXCLUDED.amount,
    amount_cents = EXCLUDED.amount_cents,
    settled_at = EXCLUDED.settled_at,
    result_net = EXCLUDED.result_net,
    consistent = EXCLUDED.consistent
"""

_ADD_CLOSINGS = """
INSERT INTO closing_refunds (table_id, account, player_id, game, unit, amount, amount_cents, closed_at)
SELECT table_id, account, player_id, game, unit, amount, amount_cents, closed_at
FROM jsonb_to_recordset(%s::jsonb) AS row (table_id text, account text, player_id text, game text, unit text,
                                            amount bigint, amount_cents bigint, closed_at timestamptz)
ON CONFLICT (table_id, account) DO NOTHING
"""

DealKey = tuple[str, int]  # (table, deal)


def money_unit(game: str) -> str:
    try:
        return game_named(game).money_unit
    except Exception:
        return CENTS


def to_cents(head: TableHead, amount: int) -> int:
    """As the settlement report converts: points at `chip_value_cents` (1 when the table has none)."""
    if money_unit(head.game) == CENTS:
        return amount
    return amount * int(head.options.get("chip_value_cents", 1))


def stored_net(ended: RecordedEvent) -> list[int]:
    """The deal_ended's result.net (by seat); [] when it has none."""
    result = ended.data.get("result")
    net = result.get("net") if isinstance(result, Mapping) else None
    return [int(n) for n in net or []]


def consistent(amounts: Mapping[str, int], net: list[int]) -> bool:
    """The seats' nets from the transfers equal the stored result.net (`services.app.audit.reports._discrepancies`)."""
    return [amounts.get(f"seat:{seat}", 0) for seat in range(len(net))] == net


def _accounts(head: TableHead, amounts: Mapping[str, int]) -> list[str]:
    """Every seat of the table, the pool of a Cha Kau Tsz table, and any other account the deal touched."""
    accounts = [f"seat:{seat}" for seat in range(head.seats)]
    if game_named(head.game).has_pool:
        accounts.append(POOL_ACCOUNT)
    return accounts + sorted(set(amounts) - set(accounts))


def _row(head: TableHead, deal_no: int, account: str, amount: int) -> dict[str, Any]:
    return {
        "table_id": head.table_id,
        "deal_no": deal_no,
        "account": account,
        "player_id": head.player_at(account, deal_no),
        "game": head.game,
        "unit": money_unit(head.game),
        "amount": amount,
        "amount_cents": to_cents(head, amount),
    }


def closing_rows(head: TableHead, closed: RecordedEvent) -> list[dict[str, Any]]:
    """The closing_refunds rows of a table_closed event: one per account its transfers touched."""
    per_account: dict[str, int] = {}
    for transfer in deal_transfers(Event(closed.type, {"transfers": closed.data["transfers"]})):
        for account, amount in transfer.entries():
            per_account[account] = per_account.get(account, 0) + amount
    rows = []
    for account, amount in sorted(per_account.items()):
        row = _row(head, closed.deal_no, account, amount)
        del row["deal_no"]
        row["closed_at"] = closed.occurred_at.isoformat()
        rows.append(row)
    return rows


def settles_no_deal(events: list[RecordedEvent]) -> bool:
    """Whether the batch leaves the deal settlements and closing refunds as they are: no transfers (a closing's
    refunds are transfers), no deal ended."""
    return not any(event.type == DEAL_ENDED or "transfers" in event.data for event in events)


def apply_deal_settlements(conn: Conn, events: list[RecordedEvent], caches: ProjectionCaches) -> None:
    closings = [e for e in events if e.type == TABLE_CLOSED and "transfers" in e.data]
    deal_events = [e for e in events if e.type != TABLE_CLOSED]
    deals = {(e.stream_id, e.deal_no) for e in deal_events if e.type == DEAL_ENDED or "transfers" in e.data}
    tables = {table_id for table_id, _ in deals} | {e.stream_id for e in closings}
    heads = table_heads(conn, caches, tables, deals) if tables else {}
    if closings:
        refunds = [row for e in closings if e.stream_id in heads for row in closing_rows(heads[e.stream_id], e)]
        if refunds:
            conn.execute(_ADD_CLOSINGS, (dumps_text(refunds),))
    amounts: dict[DealKey, dict[str, int]] = {}  # this batch's transfers, by deal and account
    ended: dict[DealKey, RecordedEvent] = {}
    for event in deal_events:  # a closing's transfers (a pool refund) are no deal's: closing_rows above
        head = heads.get(event.stream_id)
        key = (event.stream_id, event.deal_no)
        if head is None or key in ended:
            continue  # not a table; or after its deal ended (the report takes a deal's events up to its end)
        if "transfers" in event.data:
            per_account = amounts.setdefault(key, {})
            for transfer in deal_transfers(Event(event.type, {"transfers": event.data["transfers"]})):
                for account, amount in transfer.entries():
                    per_account[account] = per_account.get(account, 0) + amount
        if event.type == DEAL_ENDED:
            ended[key] = event
    pending = [
        _row(heads[table_id], deal_no, account, amount)
        for (table_id, deal_no), per_account in sorted(amounts.items())
        if (table_id, deal_no) not in ended
        for account, amount in sorted(per_account.items())
    ]
    with conn.cursor() as cur:
        if pending:
            cur.execute(_ADD_PENDING, (dumps_text(pending),))
        if not ended:
            return
        keys = sorted(ended)
        earlier: dict[DealKey, dict[str, int]] = {}
        cur.execute(_PENDING_OF, ([t for t, _ in keys], [d for _, d in keys]))
        for row in cur.fetchall():
            earlier.setdefault((str(row["table_id"]), int(row["deal_no"])), {})[str(row["account"])] = int(
                row["amount"]
            )
        settled = []
        for key in keys:
            if key not in amounts and key not in earlier:
                continue  # no event of the deal carried transfers: the report never counted it
            head, event = heads[key[0]], ended[key]
            total = dict(earlier.get(key, {}))
            for account, amount in amounts.get(key, {}).items():
                total[account] = total.get(account, 0) + amount
            net = stored_net(event)
            agrees = consistent(total, net)
            for account in _accounts(head, total):
                row = _row(head, key[1], account, total.get(account, 0))
                row.update(settled_at=event.occurred_at.isoformat(), result_net=net, consistent=agrees)
                settled.append(row)
        if settled:
            cur.execute(_SETTLE, (dumps_text(settled),))


DEAL_SETTLEMENTS = Projection(
    "deal_settlements",
    (
        ModelTable(
            "deal_settlements",
            "table_id, deal_no, account, player_id, game, unit, amount, amount_cents, settled_at, result_net, "
            "consistent",
            "table_id, deal_no, account",
        ),
        ModelTable(
            "closing_refunds",
            "table_id, account, player_id, game, unit, amount, amount_cents, closed_at",
            "table_id, account",
        ),
    ),
    apply_deal_settlements,
    idle_for=settles_no_deal,
)
