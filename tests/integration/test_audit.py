"""Deal records, dispute reports and the table ledger against the real database (services.app.audit)."""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from psycopg_pool import ConnectionPool

from domain.cards import CHERKI_DECK
from domain.games import game_named
from infra.event_store import EventStore
from services.app.audit.service import dispute_html, verify_tables
from services.app.callers import AUDITOR_CALLER, Caller
from services.app.errors import Forbidden, NotFound
from tests.integration.test_audit_support import event_row, other_card, play_table, project, services, tamper_event
from tests.play import register

Pool = ConnectionPool[Any]
GENERATED_AT = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(("game", "seats"), [("cholek-tiga", 2), ("cha-kau-tsz", 3)])
def test_an_honest_deal_verifies_and_reveals_its_seed(pool: Pool, store: EventStore, game: str, seats: int) -> None:
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(seats)]
    played = play_table(ledger, game, players, deals=2, rng=random.Random(seats))

    for deal_no in (1, 2):
        record = audit.deal_record(players[1], played.table_id, deal_no)
        verification = record["verification"]
        assert verification == {**verification, "ok": True, "first_bad_event": None, "problems": []}
        assert verification["commitment_matches_seed"] is True
        assert verification["deck_matches_seed"] is True
        assert verification["hash_chain_intact"] is True
        assert verification["replay_matches"] is True
        assert record["status"] == "ended"
        assert hashlib.sha256(bytes.fromhex(record["server_seed"])).hexdigest() == record["commitment"]
        assert record["result"]["net"] == played.deals[deal_no - 1]["result"]["net"] == record["net"]
        assert len(record["client_seeds"]) == seats
        if game == "cholek-tiga":
            assert len(record["result"]["scores"]) == seats
        else:
            assert len(record["result"]["tricks"]) == seats
            assert "pool_winner" in record["result"]
    assert audit.deal_record(AUDITOR_CALLER, played.table_id, 2)["verification"]["ok"] is True


def test_a_cha_kau_tsz_deal_recorded_in_hand_order_still_verifies(pool: Pool, store: EventStore) -> None:
    """Deals written before hash version 2 list a hand's deck indexes in the order of the sorted cards; they
    are honest records and must still verify, while a card moved to another index must not."""
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cha-kau-tsz", players, deals=1, rng=random.Random(23))
    order = game_named("cha-kau-tsz").canonical_deck
    with pool.connection() as conn:
        dealt = [
            int(row["version"])
            for row in conn.execute(
                "SELECT version FROM events WHERE stream_id = %s AND type = 'hand_dealt' AND deal_no = 1",
                (played.table_id,),
            )
        ]

    def in_hand_order(data: dict[str, Any]) -> None:
        pairs = sorted(
            zip(data["private"]["cards"], data["deck_indexes"], strict=True), key=lambda p: (order.index(p[0]), p[1])
        )
        data["deck_indexes"] = [index for _, index in pairs]
        data["private"]["cards"] = [card for card, _ in pairs]

    for version in dealt:
        tamper_event(pool, played.table_id, version, in_hand_order, rechain=True)
    assert audit.deal_record(players[0], played.table_id, 1)["verification"]["ok"] is True

    def swap_two_indexes(data: dict[str, Any]) -> None:
        cards = data["private"]["cards"]
        first = next(i for i, card in enumerate(cards) if card != cards[0])
        cards[0], cards[first] = cards[first], cards[0]

    tamper_event(pool, played.table_id, dealt[0], swap_two_indexes, rechain=True)
    verification = audit.deal_record(players[0], played.table_id, 1)["verification"]
    assert verification["deck_matches_seed"] is False
    assert verification["first_bad_event"]["version"] == dealt[0]


def test_the_server_seed_stays_secret_until_the_deal_ends(pool: Pool, store: EventStore) -> None:
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cholek-tiga", players, deals=1, rng=random.Random(5), moves_into_next_deal=3)
    with pool.connection() as conn:
        seeds = {
            int(r["deal_no"]): bytes(r["server_seed"]).hex()
            for r in conn.execute(
                "SELECT deal_no, server_seed FROM deal_seeds WHERE stream_id = %s", (played.table_id,)
            )
        }

    running = audit.deal_record(players[0], played.table_id, 2)
    assert running["status"] == "playing"
    assert running["server_seed"] is None
    assert running["result"] is None
    assert running["verification"]["hash_chain_intact"] is True
    assert running["verification"]["ok"] is True
    for unchecked in ("commitment_matches_seed", "deck_matches_seed", "replay_matches"):
        assert running["verification"][unchecked] is None
    dispute = audit.dispute_report(players[0], played.table_id, 2)
    ended = audit.deal_record(players[0], played.table_id, 1)
    assert ended["server_seed"] == seeds[1]
    for secret_seed in (seeds[2], seeds[3]):  # the running deal's and the next one's
        for shown in (running, dispute, ended, audit.dispute_report(AUDITOR_CALLER, played.table_id, 1)):
            assert secret_seed not in json.dumps(shown)
        assert secret_seed not in dispute_html(dispute, GENERATED_AT)


def test_a_tampered_event_is_named_by_record_dispute_and_verify(pool: Pool, store: EventStore) -> None:
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cholek-tiga", players, deals=2, rng=random.Random(7))
    target = event_row(pool, played.table_id, "type = 'card_discarded' AND deal_no = 1", ())
    version = int(target["version"])

    def swap_card(data: dict[str, Any]) -> None:
        data["card"] = other_card(CHERKI_DECK, data["card"])

    tamper_event(pool, played.table_id, version, swap_card)

    record = audit.deal_record(players[0], played.table_id, 1)["verification"]
    assert record["ok"] is False
    assert record["hash_chain_intact"] is False
    assert record["first_bad_event"]["version"] == version
    assert str(version) in record["first_bad_event"]["reason"]
    # A deal record walks the chain of its own deal from the link to the event before it, so its cost does not
    # grow with the table's history: deal 2's chain is intact; the table's verification names the event.
    later = audit.deal_record(players[0], played.table_id, 2)["verification"]
    assert later["hash_chain_intact"] is True
    dispute = audit.dispute_report(AUDITOR_CALLER, played.table_id, 1)
    assert dispute["verification"]["first_bad_event"]["version"] == version
    assert f"version {version}" in dispute_html(dispute, GENERATED_AT)
    summary = verify_tables(pool, played.table_id, progress=False)
    assert not summary.ok
    assert summary.failures[0].table_id == played.table_id
    assert summary.failures[0].deal_no == 1
    assert summary.failures[0].version == version
    assert "hash" in summary.failures[0].reason


def test_a_tampered_revealed_seed_fails_commitment_and_deck(pool: Pool, store: EventStore) -> None:
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(3)]
    played = play_table(ledger, "cha-kau-tsz", players, deals=1, rng=random.Random(11))
    ended = event_row(pool, played.table_id, "type = 'deal_ended'", ())

    def forge(data: dict[str, Any]) -> None:
        data["server_seed"] = secrets.token_bytes(32).hex()

    tamper_event(pool, played.table_id, int(ended["version"]), forge, rechain=True)

    verification = audit.deal_record(players[2], played.table_id, 1)["verification"]
    assert verification["hash_chain_intact"] is True  # the forger re-chained: the other checks must catch it
    assert verification["commitment_matches_seed"] is False
    assert verification["deck_matches_seed"] is False
    assert verification["ok"] is False
    reasons = " ".join(p["reason"] for p in verification["problems"])
    assert "not the commitment" in reasons
    assert not verify_tables(pool, None, progress=False).ok


def test_a_tampered_stored_seed_fails_commitment_and_deck(pool: Pool, store: EventStore) -> None:
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cholek-tiga", players, deals=1, rng=random.Random(13))
    with pool.connection() as conn:
        conn.execute(
            "UPDATE deal_seeds SET server_seed = %s WHERE stream_id = %s AND deal_no = 1",
            (secrets.token_bytes(32), played.table_id),
        )

    verification = audit.deal_record(AUDITOR_CALLER, played.table_id, 1)["verification"]
    assert verification["hash_chain_intact"] is True
    assert verification["commitment_matches_seed"] is False
    assert verification["deck_matches_seed"] is False
    assert any("deal_seeds" in p["reason"] for p in verification["problems"])
    summary = verify_tables(pool, played.table_id, progress=False)
    assert {f.deal_no for f in summary.failures} == {1}


@pytest.mark.parametrize("rechain", [False, True])
def test_a_tampered_dealt_card_is_detected(pool: Pool, store: EventStore, rechain: bool) -> None:
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cholek-tiga", players, deals=1, rng=random.Random(17))
    drawn = event_row(pool, played.table_id, "type = 'cards_drawn' AND deal_no = 1", ())
    version = int(drawn["version"])

    def swap_first(data: dict[str, Any]) -> None:
        cards = data["private"]["cards"]
        cards[0] = other_card(CHERKI_DECK, cards[0])

    tamper_event(pool, played.table_id, version, swap_first, rechain=rechain)

    verification = audit.deal_record(players[0], played.table_id, 1)["verification"]
    assert verification["deck_matches_seed"] is False
    assert verification["hash_chain_intact"] is rechain
    assert verification["commitment_matches_seed"] is True
    assert verification["first_bad_event"]["version"] == version
    assert any(p["check"] == "deck" and p["version"] == version for p in verification["problems"])
    assert not verification["ok"]
    assert verify_tables(pool, played.table_id, progress=False).failures[0].version == version


def test_dispute_report_replays_the_deal_step_by_step(pool: Pool, store: EventStore) -> None:
    ledger, audit = services(pool, store)
    hostile = "<script>alert('x')</script>"
    players = [register(ledger, hostile), register(ledger, "p1")]
    played = play_table(
        ledger, "cholek-tiga", players, deals=1, rng=random.Random(19), client_seed=lambda seat: hostile
    )

    report = audit.dispute_report(players[1], played.table_id, 1)
    assert report["verification"]["ok"] is True
    steps = report["steps"]
    assert any(e["type"] == "deal_started" for e in steps[0]["events"])
    assert steps[-1]["events"][-1]["type"] == "deal_ended"
    discards = 0
    for step in steps:
        assert step["actor"] in {p.player_id for p in players}
        for event in step["events"]:
            assert event["public_state_after"] is not None
            if event["type"] == "cards_drawn":
                assert "private" in event["data"]  # the deal has ended: its seated players see every hand
            if event["type"] == "card_discarded":
                discards += 1
                taken = {"type": "discard", "card": event["data"]["card"], "capture": event["data"]["capture"]}
                assert step["seat"] == event["data"]["seat"]
                assert taken in step["legal_alternatives"]
    assert discards > 0
    assert report["players"][0] == {"id": players[0].player_id, "name": hostile}
    page = dispute_html(report, GENERATED_AT)
    assert page.startswith("<!DOCTYPE html>")
    assert hostile not in page
    assert "&lt;script&gt;" in page


def test_dispute_report_of_a_running_deal_hides_hands_and_choices(pool: Pool, store: EventStore) -> None:
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(3)]
    played = play_table(ledger, "cha-kau-tsz", players, deals=0, rng=random.Random(23), moves_into_next_deal=4)

    report = audit.dispute_report(players[0], played.table_id, 1)
    assert report["status"] == "playing"
    assert report["server_seed"] is None
    dealt = [e for step in report["steps"] for e in step["events"] if e["type"] == "hand_dealt"]
    assert dealt
    for event in dealt:
        assert ("private" in event["data"]) is (event["data"]["seat"] == 0)
    assert all(step["legal_alternatives"] is None for step in report["steps"])
    assert report["verification"]["ok"] is True


def test_ledger_has_two_balanced_lines_per_transfer(pool: Pool, store: EventStore) -> None:
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(3)]
    played = play_table(
        ledger, "cholek-tiga", players, deals=2, rng=random.Random(29), options={"in_play_bonuses": True}
    )
    project(pool)  # the ledger reads its projection
    report = audit.table_ledger(players[2], played.table_id)
    assert report["balanced"] is True
    assert report["sum_amount"] == 0
    lines = report["lines"]
    with pool.connection() as conn:
        transfers = sum(
            len(r["data"]["transfers"])
            for r in conn.execute(
                "SELECT data FROM events WHERE stream_id = %s AND data -> 'transfers' IS NOT NULL", (played.table_id,)
            )
        )
    assert len(lines) == 2 * transfers
    assert {line["unit"] for line in lines} == {"cents"}
    per_seat = {t["account"]: t["amount"] for t in report["totals"]}
    for seat, caller in enumerate(players):
        assert per_seat.get(f"seat:{seat}", 0) == sum(d["result"]["net"][seat] for d in played.deals)
        assert all(line["player_id"] == caller.player_id for line in lines if line["account"] == f"seat:{seat}")


def test_cha_kau_tsz_ledger_counts_the_pool_and_converts_points(pool: Pool, store: EventStore) -> None:
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(4)]
    played = play_table(
        ledger, "cha-kau-tsz", players, deals=2, rng=random.Random(31), options={"chip_value_cents": 25}
    )
    project(pool)
    report = audit.table_ledger(AUDITOR_CALLER, played.table_id)
    assert report["balanced"] is True
    assert all(line["amount_cents"] == 25 * line["amount"] for line in report["lines"])
    assert any(line["account"] == "pool" and line["player_id"] is None for line in report["lines"])
    seats = {t["account"]: t["amount"] for t in report["totals"]}
    assert sum(seats.values()) == 0
    assert game_named("cha-kau-tsz").money_unit == report["unit"] == "points"


def test_access_rules(pool: Pool, store: EventStore) -> None:
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(2)]
    outsider = register(ledger, "outsider")
    played = play_table(ledger, "cha-kau-tsz", players, deals=1, rng=random.Random(37))

    reads: list[Callable[[Caller], dict[str, Any]]] = [
        lambda c: audit.deal_record(c, played.table_id, 1),
        lambda c: audit.dispute_report(c, played.table_id, 1),
        lambda c: audit.table_ledger(c, played.table_id),
    ]
    for read in reads:
        with pytest.raises(Forbidden, match=outsider.player_id or "?"):
            read(outsider)
        assert read(players[0]) is not None
        assert read(AUDITOR_CALLER) is not None
    with pytest.raises(NotFound, match="no deal 7"):
        audit.deal_record(players[0], played.table_id, 7)
    with pytest.raises(NotFound, match="no deal 0"):
        audit.dispute_report(players[0], played.table_id, 0)
    with pytest.raises(NotFound, match="nope"):
        audit.deal_record(AUDITOR_CALLER, "nope", 1)
    with pytest.raises(NotFound):
        audit.table_ledger(players[0], "nope")
    with pytest.raises(Forbidden, match=players[1].player_id or "?"):
        audit.settlement_report(players[0], players[1].player_id, None, None, None)


def test_a_deal_record_checks_its_link_to_the_event_before_it(pool: Pool, store: EventStore) -> None:
    """The event the deal's first write follows is the deal's link to the history: a change to it fails the
    record of that deal (and a rewrite of the history before it breaks the link)."""
    ledger, audit = services(pool, store)
    players = [register(ledger, f"p{i}") for i in range(2)]
    played = play_table(ledger, "cholek-tiga", players, deals=2, rng=random.Random(29))
    started = event_row(pool, played.table_id, "type = 'deal_started' AND deal_no = 2", ())
    link = int(started["version"]) - 1

    def note(data: dict[str, Any]) -> None:
        data["note"] = "rewritten"

    tamper_event(pool, played.table_id, link, note)
    verification = audit.deal_record(players[0], played.table_id, 2)["verification"]
    assert verification["hash_chain_intact"] is False
    assert verification["first_bad_event"]["version"] == link
