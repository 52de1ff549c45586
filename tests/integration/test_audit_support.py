"""Helpers for the audit tests: random games played through the application service, and tampering.

(A module of helpers, not tests: the audit tests import it by name.)
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from domain import table as tables
from domain.hashchain import event_hash, hashed_fields, private_commitment
from infra.event_store import EventStore
from infra.projections import catch_up_all
from infra.storage.postgres import PostgresStorage
from services.app.audit.service import Audit
from services.app.callers import Caller
from services.app.ledger import CardLedger
from tests.play import random_action

AUDITOR_TOKEN = "audit-test-operator-token"


@dataclass
class PlayedTable:
    table_id: str
    game: str
    callers: list[Caller]  # by seat
    options: dict[str, Any] = field(default_factory=dict)  # as asked for when opening
    deals: list[dict[str, Any]] = field(default_factory=list)  # the deal_ended data of each finished deal


def services(pool: ConnectionPool[Any], store: EventStore) -> tuple[CardLedger, Audit]:
    return CardLedger(PostgresStorage(pool, store), AUDITOR_TOKEN), Audit(pool, store)


def play_table(
    ledger: CardLedger,
    game: str,
    players: list[Caller],
    deals: int,
    rng: random.Random,
    options: Mapping[str, Any] | None = None,
    moves_into_next_deal: int = 0,
    client_seed: Callable[[int], str] | None = None,
) -> PlayedTable:
    """Open a table, seat `players` (in seat order), and play `deals` whole deals with random legal actions.

    With `moves_into_next_deal`, deal `deals + 1` is started and that many actions are played in it.
    """
    seed_for = client_seed or (lambda seat: f"client-{seat}-{rng.randrange(10**6)}")
    view = ledger.open_table(players[0], game, len(players), dict(options or {}))
    table_id = str(view["id"])
    for seat, caller in enumerate(players):
        ledger.sit(caller, table_id, seat, seed_for(seat))
    played = PlayedTable(table_id, game, list(players), dict(options or {}))
    moves_left = moves_into_next_deal
    while True:
        state = ledger.queries.load_state(table_id)
        if state.status == tables.BETWEEN_DEALS:
            if state.deal_no >= deals and not (moves_into_next_deal and state.deal_no == deals):
                break
            seat = min(set(range(state.seats)) - set(state.ready))
            ledger.act(players[seat], table_id, {"type": "ready", "client_seed": seed_for(seat)}, _key(), None)
            continue
        if state.status != tables.PLAYING:
            raise AssertionError(f"table {table_id} is {state.status}")
        if state.deal_no > deals:
            if moves_left == 0:
                break
            moves_left -= 1
        to_act = tables.to_act(state)
        assert to_act is not None
        seat = to_act
        action = random_action(state, seat, rng)
        response = ledger.act(players[seat], table_id, action, _key(), None)
        for event in response["events"]:
            if event["type"] == tables.DEAL_ENDED:
                played.deals.append(event["data"])
    return played


def play_until_a_pool(
    ledger: CardLedger, players: list[Caller], rng: random.Random, options: Mapping[str, Any] | None = None
) -> PlayedTable:
    """A Cha Kau Tsz table of `players`, played deal by deal (random legal actions) until a deal ends with
    points carried in the pool (paid into it and not won), then left between deals as it is."""
    view = ledger.open_table(players[0], "cha-kau-tsz", len(players), dict(options or {}))
    table_id = str(view["id"])
    for seat, caller in enumerate(players):
        ledger.sit(caller, table_id, seat, f"client-{seat}-{rng.randrange(10**6)}")
    played = PlayedTable(table_id, "cha-kau-tsz", list(players), dict(options or {}))
    while True:
        state = ledger.queries.load_state(table_id)
        if state.status == tables.BETWEEN_DEALS:
            if int(state.carry["pool"]) > 0:
                return played
            assert state.deal_no < 20, "no deal left points in the pool"
            seat = min(set(range(state.seats)) - set(state.ready))
            action = {"type": "ready", "client_seed": f"client-{seat}-{rng.randrange(10**6)}"}
            ledger.act(players[seat], table_id, action, _key(), None)
            continue
        assert state.status == tables.PLAYING, f"table {table_id} is {state.status}"
        seat = tables.to_act(state)
        assert seat is not None
        action = random_action(state, seat, rng)
        for event in ledger.act(players[seat], table_id, action, _key(), None)["events"]:
            if event["type"] == tables.DEAL_ENDED:
                played.deals.append(event["data"])


def project(pool: ConnectionPool[Any], timeout: float = 20.0) -> None:
    """Catch every projection up with the whole log (the projection workers' job, done inline): the ledger and
    the settlement report read the projections.

    The log is read behind the oldest transaction still running on the server (another test run's included),
    so this retries until every projection's checkpoint has passed the newest event.
    """
    deadline = time.monotonic() + timeout
    with pool.connection() as conn:
        while True:
            catch_up_all(conn)
            row = conn.execute(
                """SELECT count(*) AS n FROM log_positions
                   WHERE name LIKE 'projection:%%'
                     AND global_position < (SELECT coalesce(max(global_position), 0) FROM events)"""
            ).fetchone()
            if row is not None and row["n"] == 0:
                return
            assert time.monotonic() < deadline, "the projections did not catch up with the log"
            time.sleep(0.05)


def _key() -> str:
    return uuid.uuid4().hex


def event_row(pool: ConnectionPool[Any], table_id: str, where: str, params: tuple[Any, ...]) -> dict[str, Any]:
    """The first event of the table matching `where` (SQL over the events columns)."""
    with pool.connection() as conn:
        row = conn.execute(
            f"SELECT version, type, data FROM events WHERE stream_id = %s AND {where} ORDER BY version LIMIT 1",
            (table_id, *params),
        ).fetchone()
    assert row is not None, f"no event of table {table_id} where {where} {params}"
    return dict(row)


def tamper_event(
    pool: ConnectionPool[Any],
    table_id: str,
    version: int,
    change: Callable[[dict[str, Any]], None],
    rechain: bool = False,
) -> None:
    """Change one event's data in place, as an attacker with database access would.

    With `rechain`, the attacker also recomputes the changed private block's commitment, that event's hash and
    every later one, and the stream head, so the hash chain alone cannot see it.
    """
    with pool.connection() as conn, conn.transaction():
        conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
        row = conn.execute(
            "SELECT data FROM events WHERE stream_id = %s AND version = %s", (table_id, version)
        ).fetchone()
        assert row is not None, f"table {table_id} has no version {version}"
        data = dict(row["data"])
        change(data)
        if rechain and "private_commitment" in data:
            data["private_commitment"] = private_commitment(data["private"])
        conn.execute(
            "UPDATE events SET data = %s WHERE stream_id = %s AND version = %s", (Jsonb(data), table_id, version)
        )
        if rechain:
            rows = conn.execute(
                """SELECT version, type, schema_version, deal_no, data, metadata, occurred_at, prev_hash, hash_version
                   FROM events WHERE stream_id = %s AND version >= %s ORDER BY version""",
                (table_id, version),
            ).fetchall()
            prev = str(rows[0]["prev_hash"])
            for r in rows:
                fields = hashed_fields(
                    table_id,
                    r["version"],
                    r["type"],
                    r["schema_version"],
                    r["deal_no"],
                    r["data"],
                    r["metadata"],
                    r["occurred_at"],
                    r["hash_version"],
                )
                digest = event_hash(prev, fields)
                conn.execute(
                    "UPDATE events SET prev_hash = %s, hash = %s WHERE stream_id = %s AND version = %s",
                    (prev, digest, table_id, r["version"]),
                )
                prev = digest
            conn.execute("UPDATE streams SET last_hash = %s WHERE stream_id = %s", (prev, table_id))
        conn.execute("ALTER TABLE events ENABLE TRIGGER USER")


def other_card(deck: tuple[str, ...], card: str) -> str:
    return next(c for c in deck if c != card)
