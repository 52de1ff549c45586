"""A bot that plays complete deals over HTTP, choosing among the legal actions it is offered."""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from typing import Any

from tests.e2e.stack import http


@dataclass
class Seat:
    player_id: str
    token: str
    seat: int
    version: int  # the table's version after this seat sat down


class ApiError(AssertionError):
    pass


def call(method: str, url: str, body: Any = None, token: str | None = None, **headers: str) -> Any:
    status, _, payload = http(method, url, body, token, headers)
    if status >= 400:
        raise ApiError(f"{method} {url} -> {status}: {payload}")
    return payload


def register(base_url: str, name: str) -> tuple[str, str]:
    player = call("POST", f"{base_url}/v1/players", {"name": name})
    return player["id"], player["token"]


def open_and_fill(
    base_url: str, game: str, seats: int, options: dict[str, Any] | None = None
) -> tuple[str, list[Seat]]:
    players = [register(base_url, f"{game}-bot-{n}") for n in range(seats)]
    table = call(
        "POST", f"{base_url}/v1/tables", {"game": game, "seats": seats, "options": options or {}}, players[0][1]
    )
    table_id = table["id"]
    seated = []
    for n, (player_id, token) in enumerate(players):
        answer = call("POST", f"{base_url}/v1/tables/{table_id}/seats", {"seat": n, "client_seed": f"bot{n}"}, token)
        seated.append(Seat(player_id, token, answer["seat"], answer["version"]))
    return table_id, seated


def concrete(action: dict[str, Any], hand: list[str], rng: random.Random) -> dict[str, Any]:
    """A follow is offered as {"type": "play", "count": k}: pick k cards of the hand."""
    if action.get("type") == "play" and "count" in action:
        return {"type": "play", "cards": rng.sample(hand, action["count"])}
    return action


def play_deal(
    base_url: str, table_id: str, seats: list[Seat], rng: random.Random, max_actions: int = 2000
) -> tuple[int, int]:
    """Play until the current deal ends; returns the number of actions posted and the table's last version.

    Reads come from projections, so the bot asks for at least the version its
    last write produced (`min_version`), as any client that reads its writes should.
    """
    posted = 0
    known_version = max(seat.version for seat in seats)
    while posted < max_actions:
        view = call("GET", f"{base_url}/v1/tables/{table_id}?min_version={known_version}", token=seats[0].token)
        if view["status"] != "playing":
            return posted, known_version
        seat = seats[view["to_act"]]
        mine = call("GET", f"{base_url}/v1/tables/{table_id}/view?min_version={view['version']}", token=seat.token)
        if not mine["legal_actions"]:
            continue
        action = concrete(rng.choice(mine["legal_actions"]), mine["hand"], rng)
        answer = call(
            "POST",
            f"{base_url}/v1/tables/{table_id}/actions",
            action,
            seat.token,
            **{"Idempotency-Key": str(uuid.uuid4()), "If-Match": f'"{mine["version"]}"'},
        )
        known_version = answer["version"]
        posted += 1
    raise AssertionError(f"deal at table {table_id} did not end within {max_actions} actions")
