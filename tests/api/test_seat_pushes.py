"""A seat view stream's message built from the public part encoded once per version (`services.api.pushes.seat_pushes`)
is, byte for byte, the seat's whole view encoded, for every seat and version of played deals of both games, in
either order of the seats; a view whose public part names a seat's key is encoded whole."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from domain.table import TableState
from services.api.pushes.seat_pushes import SeatPushes, view_message
from services.bootstrap import Container
from tests.api.conftest import Api, bot_action


@pytest.mark.parametrize("game", ["cholek-tiga", "cha-kau-tsz"])
def test_a_message_is_the_seat_views_text(api: Api, container: Container, game: str) -> None:
    _, alice = api.register("alice")
    _, bob = api.register("bob")
    tokens = [alice, bob]
    table = api.open_table(alice, game)["id"]
    api.sit(alice, table, 0)
    api.sit(bob, table, 1)
    callers = [container.ledger.identity.authenticate(token) for token in tokens]
    queries = container.ledger.queries
    rng = random.Random(5)
    for step in range(60):
        state = queries.load_state(table)
        for order in ((0, 1), (1, 0)):
            pushes = SeatPushes()
            for seat in order:
                caller = callers[seat]
                assert caller is not None
                view = queries.seat_view_at(caller, table, state)
                assert view is not None and view["seat"] == seat
                message = pushes.message(queries, caller, table, state)
                assert message == (state.version, view_message(view)), step
                assert (
                    message[1]
                    == f"id: {state.version}\nevent: view\ndata: {json.dumps(view, separators=(',', ':'))}\n\n"
                )
        _act(api, tokens, table, rng)


def _act(api: Api, tokens: list[str], table: str, rng: random.Random) -> None:
    public = api.table(tokens[0], table)
    if public["status"] == "playing":
        token = tokens[public["to_act"]]
        api.act(token, table, bot_action(api.view(token, table), rng))
    else:
        seat = min({0, 1} - set(public.get("ready") or []))
        api.act(tokens[seat], table, {"type": "ready"})


class PublicHand:
    """Reads whose view has a public key named as a seat's ("hand", before the seat's keys)."""

    def public_view_at(self, state: TableState) -> dict[str, Any]:
        return {"version": state.version, "hand": [], "status": "playing"}

    def seat_view_at(self, caller: Any, table_id: str, state: TableState) -> dict[str, Any]:
        return {"version": state.version, "hand": [], "status": "playing", "seat": 0, "legal_actions": []}


def test_a_public_key_named_as_a_seats_is_encoded_whole(api: Api, container: Container) -> None:
    _, alice = api.register("alice")
    table = api.open_table(alice, "cholek-tiga")["id"]
    api.sit(alice, table, 0)
    caller = container.ledger.identity.authenticate(alice)
    assert caller is not None
    state = container.ledger.queries.load_state(table)
    reads: Any = PublicHand()
    message = SeatPushes().message(reads, caller, table, state)
    assert message == (state.version, view_message(reads.seat_view_at(caller, table, state)))
