"""A whole deal of each game through the generated client only (clients/python), against the running stack
(`cardledger up`: gunicorn, relay, projection workers): every answer parses into the typed models, the events a
player receives are typed by `type` and hide the other seats' cards, and the deal record, ledger, settlement
CSV and dispute page read back through the client agree."""

from __future__ import annotations

import random
import time
import uuid
from typing import Any

import pytest
from cardledger_client import AuthenticatedClient, Client
from cardledger_client.api.actions import act
from cardledger_client.api.history import get_deal, get_ledger, list_events
from cardledger_client.api.players import register_player
from cardledger_client.api.reports import get_dispute_page, get_settlement_csv
from cardledger_client.api.tables import get_seat_view, get_table, open_table, sit
from cardledger_client.models import (
    ActionResult,
    CardsDrawnEvent,
    ChaKauTszOptions,
    ChaKauTszSettings,
    ChaKauTszTableCreate,
    CholekTigaOptions,
    CholekTigaSettings,
    CholekTigaTableCreate,
    DealEndedEvent,
    HandDealtEvent,
    OpenedTable,
    PlayAction,
    PlayChoice,
    PlayerCreate,
    Problem,
    SeatRequest,
)
from cardledger_client.types import UNSET

pytestmark = pytest.mark.slow


def ok(result: Any) -> Any:
    assert result is not None and not isinstance(result, Problem), result
    return result


def body_of(choice: Any, hand: list[str], rng: random.Random) -> Any:
    if isinstance(choice, PlayChoice):
        cards = list(choice.cards) if choice.cards is not UNSET else rng.sample(hand, choice.count)
        return PlayAction(cards=cards, type_="play")
    return choice


@pytest.mark.parametrize(("game", "seats"), [("cholek-tiga", 2), ("cha-kau-tsz", 3)])
def test_a_whole_deal_through_the_generated_client(stack: str, game: str, seats: int) -> None:
    rng = random.Random(f"client-{game}")
    players = []
    for number in range(seats):
        player = ok(register_player.sync(client=Client(base_url=stack), body=PlayerCreate(name=f"p{number}")))
        players.append(AuthenticatedClient(base_url=stack, token=player.token))
    if game == "cholek-tiga":
        opening: Any = CholekTigaTableCreate(
            game="cholek-tiga", seats=seats, options=CholekTigaOptions(point_value_cents=5)
        )
    else:
        opening = ChaKauTszTableCreate(game="cha-kau-tsz", seats=seats, options=ChaKauTszOptions(pool_target_tricks=8))
    opened = ok(open_table.sync(client=players[0], body=opening))
    assert isinstance(opened, OpenedTable)
    assert isinstance(opened.options, CholekTigaSettings if game == "cholek-tiga" else ChaKauTszSettings)
    table_id = opened.id  # a UUID, as every operation takes it
    assert isinstance(table_id, uuid.UUID)
    seat_of = {}
    for player in players:
        seat_of[ok(sit.sync(table_id, client=player, body=SeatRequest())).seat] = player

    actions = 0
    while (state := ok(get_table.sync(table_id, client=players[0]))).status == "playing":
        player = seat_of[state.to_act]
        view = ok(get_seat_view.sync(table_id, client=player))
        body = body_of(rng.choice(view.legal_actions), list(view.hand), rng)
        result = ok(act.sync(table_id, client=player, body=body, idempotency_key=uuid.uuid4().hex))
        assert isinstance(result, ActionResult) and result.receipt is not None
        actions += 1
        assert actions < 3000
    assert state.status == "between_deals"

    # Seat 0's events: typed by `type`; its own dealt cards shown, the others' withheld until the deal ended...
    events = ok(list_events.sync(table_id, client=seat_of[0], limit=1000)).events
    dealt = [event for event in events if isinstance(event, CardsDrawnEvent | HandDealtEvent)]
    assert dealt and all(event.data.private is not UNSET for event in dealt)  # the deal has ended: all shown
    assert isinstance(events[-1], DealEndedEvent)
    assert events[-1].data.server_seed and len(events[-1].data.transfers) >= 0

    record = ok(get_deal.sync(table_id, 1, client=seat_of[0]))
    assert record.verification.ok and record.server_seed == events[-1].data.server_seed
    assert sum(record.net) == 0 or game == "cha-kau-tsz"  # Cha Kau Tsz pays into the pool

    ledger = wait_for_ledger(table_id, seat_of[0], len(record.transfers) * 2)
    assert ledger.balanced and ledger.sum_amount == 0
    csv = ok(get_settlement_csv.sync(client=seat_of[0], table_id=table_id))
    assert isinstance(csv, str) and csv.startswith("player_id,name,account,")
    page = ok(get_dispute_page.sync(client=seat_of[0], table_id=table_id, deal_no=1))
    assert isinstance(page, str) and "<html" in page.lower()


def test_the_running_deal_hides_the_other_seats_cards(stack: str) -> None:
    players = []
    for name in ("alice", "bob"):
        player = ok(register_player.sync(client=Client(base_url=stack), body=PlayerCreate(name=name)))
        players.append(AuthenticatedClient(base_url=stack, token=player.token))
    opening = CholekTigaTableCreate(game="cholek-tiga", seats=2)
    table_id = ok(open_table.sync(client=players[0], body=opening)).id
    seats = {
        ok(sit.sync(table_id, client=player, body=SeatRequest(seat=number))).seat: player
        for number, player in enumerate(players)
    }
    events = ok(list_events.sync(table_id, client=seats[0])).events
    draws = [event for event in events if isinstance(event, CardsDrawnEvent)]
    assert {event.data.seat for event in draws} == {0, 1}
    for event in draws:
        assert (event.data.private is not UNSET) is (event.data.seat == 0)
        assert event.data.private_commitment is not UNSET  # the redacted form keeps the commitment


def wait_for_ledger(table_id: uuid.UUID, player: AuthenticatedClient, lines: int) -> Any:
    """The ledger projection catches up with the deal's end within seconds."""
    deadline = time.monotonic() + 30
    while True:
        ledger = ok(get_ledger.sync(table_id, client=player, limit=1000))
        if len(ledger.lines) >= lines or time.monotonic() > deadline:
            return ledger
        time.sleep(0.2)
