"""The table's state before a deal, built from the log without the previous deal's game events
(`infra.table_loader.load_table_before_deal`), against the whole fold (`load_table`), and what the audit of a
deal catches when the state a deal starts from is carried wrong."""

from __future__ import annotations

import random
import secrets
import uuid
from dataclasses import replace
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from domain import table as tables
from domain.shuffle import commitment
from infra.event_store import EventStore
from infra.sql.deal_events import first_version_of_write
from infra.table_loader import load_table, load_table_before_deal
from services.app.callers import AUDITOR_CALLER, Caller
from services.app.ledger import CardLedger
from tests.integration.test_audit_support import event_row, play_table, services, tamper_event
from tests.play import random_action, register

Pool = ConnectionPool[Any]


def _play_one_deal(ledger: CardLedger, table_id: str, callers: dict[int, Caller], rng: random.Random) -> None:
    """Ready every seat not ready, then play random legal actions until the deal ends."""
    deal_no = ledger.queries.load_state(table_id).deal_no
    while True:
        state = ledger.queries.load_state(table_id)
        if state.status == tables.BETWEEN_DEALS:
            if state.deal_no > deal_no:
                return
            seat = min(set(range(state.seats)) - set(state.ready))
            action: dict[str, Any] = {"type": "ready", "client_seed": f"seed-{seat}-{rng.randrange(10**6)}"}
        else:
            seat = tables.to_act(state)
            assert seat is not None
            action = random_action(state, seat, rng)
        ledger.act(callers[seat], table_id, action, uuid.uuid4().hex, None)


def _bounds_before(pool: Pool, table_id: str, deal_no: int) -> tuple[int, int]:
    """(the version before the deal's deal_started, the version before the write that dealt it)."""
    started = int(event_row(pool, table_id, "type = 'deal_started' AND deal_no = %s", (deal_no,))["version"])
    with pool.connection() as conn:
        first = first_version_of_write(conn, table_id, started)
    assert first is not None
    return started - 1, first - 1


@pytest.mark.parametrize(("game", "seats", "deals"), [("cholek-tiga", 2, 3), ("cha-kau-tsz", 3, 3)])
def test_the_state_before_a_deal_is_the_whole_fold_but_the_previous_deal(
    pool: Pool, store: EventStore, game: str, seats: int, deals: int
) -> None:
    """Every field but `deal` equals the whole fold's, before each deal, also after a seat changed hands between
    deals (a player left, another sat down): the carried players, seeds, carry and commitment."""
    ledger, _ = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(seats)]
    rng = random.Random(41)
    played = play_table(ledger, game, players, deals=deals, rng=rng)
    callers = dict(enumerate(players))
    ledger.act(callers[1], played.table_id, {"type": "leave"}, uuid.uuid4().hex, None)
    callers[1] = register(ledger, "newcomer")
    ledger.sit(callers[1], played.table_id, 1, "newcomer-seed")
    _play_one_deal(ledger, played.table_id, callers, rng)
    _play_one_deal(ledger, played.table_id, callers, rng)

    compared = 0
    for deal_no in range(1, deals + 3):
        for bound in _bounds_before(pool, played.table_id, deal_no):
            with pool.connection() as conn:
                whole = load_table(conn, played.table_id, bound)
                carried = load_table_before_deal(conn, played.table_id, deal_no, bound)
            assert whole is not None and carried is not None
            if deal_no > 1:
                assert whole.deal is not None  # the whole fold holds the previous deal's game state
                assert carried.deal is None
            assert carried == replace(whole, deal=carried.deal)
            compared += 1
    assert compared == 2 * (deals + 2)
    newcomer = callers[1].player_id
    with pool.connection() as conn:
        before_last = load_table_before_deal(
            conn, played.table_id, deals + 2, _bounds_before(pool, played.table_id, deals + 2)[0]
        )
    assert before_last is not None and before_last.players[1] == newcomer


def test_an_old_deal_start_without_its_players_is_folded_whole(pool: Pool, store: EventStore) -> None:
    """A deal_started written before seats could change hands names no players: the state before the next deal
    is then the whole fold (the players come from the seatings)."""
    ledger, _ = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cholek-tiga", players, deals=2, rng=random.Random(43))
    started = int(event_row(pool, played.table_id, "type = 'deal_started' AND deal_no = 1", ())["version"])
    tamper_event(pool, played.table_id, started, lambda data: data.pop("players"), rechain=True)
    bound = _bounds_before(pool, played.table_id, 2)[0]
    with pool.connection() as conn:
        assert load_table_before_deal(conn, played.table_id, 2, bound) == load_table(conn, played.table_id, bound)


def test_a_missing_deal_end_is_folded_whole(pool: Pool, store: EventStore) -> None:
    """When the previous deal's deal_ended is not where the log's index says (its deal number rewritten), the
    state is the whole fold, and the record of the deal after it still checks its commitment against it."""
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cholek-tiga", players, deals=2, rng=random.Random(47))
    ended = int(event_row(pool, played.table_id, "type = 'deal_ended' AND deal_no = 1", ())["version"])
    with pool.connection() as conn, conn.transaction():
        conn.execute("ALTER TABLE events DISABLE TRIGGER USER")
        conn.execute("UPDATE events SET deal_no = 7 WHERE stream_id = %s AND version = %s", (played.table_id, ended))
        conn.execute("ALTER TABLE events ENABLE TRIGGER USER")
    bound = _bounds_before(pool, played.table_id, 2)[0]
    with pool.connection() as conn:
        assert load_table_before_deal(conn, played.table_id, 2, bound) == load_table(conn, played.table_id, bound)
    assert audit.deal_record(AUDITOR_CALLER, played.table_id, 2)["verification"]["commitment_matches_seed"] is True


@pytest.mark.parametrize("rechain", [False, True])
def test_a_forged_carried_commitment_fails_the_next_deal(pool: Pool, store: EventStore, rechain: bool) -> None:
    """The commitment deal 2 must announce is carried by deal 1's deal_ended: forged there (and re-chained, so
    the chain cannot see it), deal 2's record and report fail its commitment, naming deal 2's start."""
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cholek-tiga", players, deals=3, rng=random.Random(53))
    ended = int(event_row(pool, played.table_id, "type = 'deal_ended' AND deal_no = 1", ())["version"])
    forged = commitment(secrets.token_bytes(32))

    def forge(data: dict[str, Any]) -> None:
        data["next_commitment"] = forged

    tamper_event(pool, played.table_id, ended, forge, rechain=rechain)
    started = int(event_row(pool, played.table_id, "type = 'deal_started' AND deal_no = 2", ())["version"])
    for verification in (
        audit.deal_record(AUDITOR_CALLER, played.table_id, 2)["verification"],
        audit.dispute_report(AUDITOR_CALLER, played.table_id, 2)["verification"],
    ):
        assert verification["commitment_matches_seed"] is False
        assert verification["ok"] is False
        assert any(p["version"] == started and forged in p["reason"] for p in verification["problems"])
    assert audit.deal_record(AUDITOR_CALLER, played.table_id, 3)["verification"]["ok"] is True


def test_a_forged_carry_fails_the_next_deals_deal(pool: Pool, store: EventStore) -> None:
    """What a deal leaves for the next one (Cholek Tiga: the seat that plays first) is carried by its deal_ended:
    forged there and re-chained, the next deal's dealing is not what the rules deal, and the forged deal's own
    replay names the carry."""
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cholek-tiga", players, deals=2, rng=random.Random(59))
    ended = event_row(pool, played.table_id, "type = 'deal_ended' AND deal_no = 1", ())
    first_seat = int(ended["data"]["carry"]["first_seat"])

    def forge(data: dict[str, Any]) -> None:
        data["carry"] = {**data["carry"], "first_seat": 1 - first_seat}

    tamper_event(pool, played.table_id, int(ended["version"]), forge, rechain=True)
    next_deal = audit.deal_record(AUDITOR_CALLER, played.table_id, 2)["verification"]
    assert next_deal["hash_chain_intact"] is True
    assert next_deal["ok"] is False
    assert next_deal["deck_matches_seed"] is False or next_deal["replay_matches"] is False
    forged_deal = audit.deal_record(AUDITOR_CALLER, played.table_id, 1)["verification"]
    assert forged_deal["replay_matches"] is False
    assert any("carry" in p["reason"] for p in forged_deal["problems"])


def test_a_dispute_report_shows_the_table_between_deals_as_it_was(pool: Pool, store: EventStore) -> None:
    """The record's verification replays from the carried state; the report's steps show the events before the
    deal's start (the `ready` that dealt it) with the table's public state then, the previous deal's included."""
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cholek-tiga", players, deals=2, rng=random.Random(61))
    report = audit.dispute_report(AUDITOR_CALLER, played.table_id, 2)
    assert report["verification"]["ok"] is True
    ready = report["steps"][0]["events"][0]
    assert ready["type"] == tables.PLAYER_READY
    shown = ready["public_state_after"]
    assert shown["status"] == tables.BETWEEN_DEALS and shown["deal_no"] == 1
    assert shown["scores"] is not None and len(shown["piles"]) == 2  # deal 1's table, as it was left
    assert report["steps"][0]["legal_alternatives"] is not None
