"""Hidden information through the API: while a deal is on, no seat receives another seat's cards.

Complete deals of both games are played by a random bot. Everything each seat
receives (its view, the public state, event pages, its action answers, with
and without its new seat view, and the bodies of its errors) is recorded, and a bystander with no seat reads the
public state and events too. Checks while the deal is on:

- every "private" part found in what a seat received belongs to an event of that seat;
  the bystander receives no "private" part at all;
- every "hand" field a seat received is its own hand at that moment;
- no "stock", "deck" or non-null "server_seed" key appears anywhere;
- after the deal, the revealed server seed appears in nothing received before the end,
  and no other seat's whole hand (as a list) ever appears in a seat's texts.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from tests.api.conftest import AUDITOR_TOKEN, Api, bearer, bot_action

SECRET_KEYS = ("stock", "deck", "stock_order", "hands")


def walk(node: Any, parent: dict[str, Any] | None = None) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """(key, value, containing dict) for every key of every dict inside `node`."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value, node
            yield from walk(value, node)
    elif isinstance(node, list):
        for item in node:
            yield from walk(item, parent)


class Received:
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.bodies: list[tuple[Any, list[str] | None]] = []  # (body, the seat's own hand then)

    def add(self, response: Any, own_hand: list[str] | None) -> Any:
        text = response.get_data(as_text=True)
        self.texts.append(text)
        body = json.loads(text) if text and response.mimetype.endswith("json") else None
        self.bodies.append((body, own_hand))
        return body


def check(received: Received, seat: int | None, hands: dict[int, list[str]]) -> None:
    for body, own_hand in received.bodies:
        for key, value, holder in walk(body):
            if key == "private":
                assert seat is not None, f"a bystander received a private part: {holder}"
                assert holder.get("seat") == seat, f"seat {seat} received seat {holder.get('seat')}'s private part"
            if key == "hand":
                assert seat is not None and sorted(value) == sorted(own_hand or []), "a hand that is not the seat's"
            if key in SECRET_KEYS:
                raise AssertionError(f"secret key {key!r} in an answer: {holder}")
            if key == "server_seed":
                assert value is None, "a server seed before the deal ended"
    for other, hand in hands.items():
        if other != seat and len(hand) >= 3:
            for text in received.texts:
                assert json.dumps(hand) not in text and json.dumps(sorted(hand)) not in text


def play_and_watch(api: Api, game: str, seats: int, seed: int) -> None:
    rng = random.Random(seed)
    players = [api.register(f"{game}-{i}") for i in range(seats)]
    _, bystander = api.register("bystander")
    tokens = [token for _, token in players]
    table = api.open_table(tokens[0], game=game, seats=seats)["id"]
    for token in tokens:
        api.sit(token, table)
    seat_of = {api.view(token, table)["seat"]: token for token in tokens}
    received = {seat: Received() for seat in seat_of}
    watcher = Received()
    after = {seat: 0 for seat in seat_of}
    steps = 0
    while True:
        hands = {seat: api.view(token, table)["hand"] for seat, token in seat_of.items()}
        state_response = api.client.get(f"/v1/tables/{table}", headers=bearer(bystander))
        state = watcher.add(state_response, None)
        watcher.add(api.client.get(f"/v1/tables/{table}/events?limit=1000", headers=bearer(bystander)), None)
        if state["status"] != "playing":
            break
        for seat, token in seat_of.items():
            headers = bearer(token)
            view = received[seat].add(api.client.get(f"/v1/tables/{table}/view", headers=headers), hands[seat])
            page = received[seat].add(
                api.client.get(f"/v1/tables/{table}/events?after={after[seat]}", headers=headers), hands[seat]
            )
            after[seat] = page["next_after"]
            if seat != state["to_act"]:
                # An out-of-turn attempt with one of its own cards: the error must not reveal anything.
                card = view["hand"][0] if view["hand"] else "1S"
                attempt = api.act_raw(token, table, {"type": "play", "cards": [card]})
                assert attempt.status_code in (409, 422)
                received[seat].add(attempt, hands[seat])
        # Everything received so far was received while the deal was on.
        for seat in seat_of:
            check(received[seat], seat, hands)
        check(watcher, None, hands)
        mover = state["to_act"]
        token = seat_of[mover]
        view = api.view(token, table)
        # Every other action asks for the mover's new seat view in the answer (its hand after the action).
        prefer = {"Prefer": "return=representation"} if steps % 2 == 0 else {}
        response = api.act_raw(token, table, bot_action(view, rng), **prefer)
        assert response.status_code == 201, response.get_json()
        assert ("view" in response.get_json()) == bool(prefer)
        received[mover].add(response, api.view(token, table)["hand"] if prefer else hands[mover])
        if not any(event["type"] == "deal_ended" for event in response.get_json()["events"]):
            check(received[mover], mover, {s: api.view(t, table)["hand"] for s, t in seat_of.items()})
        steps += 1
        assert steps < 2000
    record = api.client.get(f"/v1/tables/{table}/deals/1", headers=bearer(AUDITOR_TOKEN)).get_json()
    server_seed = record["server_seed"]
    assert server_seed
    # Only texts from before the deal ended (the last action's answer and later reads may reveal it).
    for seat in seat_of:
        assert all(server_seed not in text for text in received[seat].texts[:-1])
    assert all(server_seed not in text for text in watcher.texts[:-2])
    # Once the deal is over, the seated players see every private part of it.
    full = api.client.get(f"/v1/tables/{table}/events?limit=1000", headers=bearer(tokens[0])).get_json()
    assert any("private" in event["data"] and event["data"]["seat"] != 0 for event in full["events"])
    public = api.client.get(f"/v1/tables/{table}/events?limit=1000", headers=bearer(bystander)).get_json()
    assert all("private" not in event["data"] for event in public["events"])


@pytest.mark.parametrize(("game", "seats", "seed"), [("cholek-tiga", 2, 11), ("cholek-tiga", 3, 12)])
def test_cholek_tiga_deal_hides_hands(api: Api, game: str, seats: int, seed: int) -> None:
    play_and_watch(api, game, seats, seed)


@pytest.mark.parametrize(("game", "seats", "seed"), [("cha-kau-tsz", 3, 21), ("cha-kau-tsz", 2, 22)])
def test_cha_kau_tsz_deal_hides_hands(api: Api, game: str, seats: int, seed: int) -> None:
    play_and_watch(api, game, seats, seed)
