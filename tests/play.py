"""Playing tables in tests, one place for the helpers many test files share: a random legal action of a state
(`random_action`, `next_move`), and tables played through the application service (`register`, `seated_table`,
`Table`, `play_until`). The HTTP-level twins are in tests/api/conftest.py."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any

from domain import table as tables
from domain.games import game_named
from domain.table import TableState
from services.app.callers import Caller
from services.app.ledger import CardLedger


def register_with_token(ledger: CardLedger, name: str) -> tuple[Caller, str]:
    """A new player, as the caller its token authenticates, and the token."""
    player = ledger.identity.register_player(name)
    token = str(player["token"])
    caller = ledger.identity.authenticate(token)
    assert caller is not None and caller.player_id == player["id"]
    return caller, token


def register(ledger: CardLedger, name: str) -> Caller:
    """A new player, as the caller its token authenticates."""
    return register_with_token(ledger, name)[0]


MAX_STEPS = 3_000


def random_action(state: TableState, seat: int, rng: random.Random) -> dict[str, Any]:
    """A legal action of `seat` at random; a follow given as a count takes that many cards of the seat's hand."""
    action = dict(rng.choice(tables.legal_actions(state, seat)))
    if action.get("type") == "play" and "count" in action:
        hand = game_named(state.game).hand(state.deal, seat)
        action = {"type": "play", "cards": rng.sample(hand, int(action["count"]))}
    return action


def next_move(state: TableState, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """A seat that may act now and a random legal action of it (a ready between deals)."""
    if state.status == tables.BETWEEN_DEALS:
        seat = min(set(range(state.seats)) - set(state.ready))
        return seat, {"type": "ready", "client_seed": f"ready-{seat}-{state.deal_no}"}
    assert state.status == tables.PLAYING, f"table {state.table_id} is {state.status}"
    to_act = tables.to_act(state)
    assert to_act is not None
    return to_act, random_action(state, to_act, rng)


def seated_table(ledger: CardLedger, players: list[Caller], game: str = "cholek-tiga", **options: Any) -> str:
    """A table opened by the first of `players` and filled by them in seat order: its first deal is running."""
    table_id = str(ledger.open_table(players[0], game, len(players), options)["id"])
    for seat, player in enumerate(players):
        ledger.sit(player, table_id, seat, f"client-{seat}")
    return table_id


def play_until(
    state: Callable[[], TableState],
    act: Callable[[int, dict[str, Any]], dict[str, Any]],
    rng: random.Random,
    done: Callable[[TableState], bool],
) -> list[dict[str, Any]]:
    """`act(*next_move(...))` on `state()` until `done(state())`; every answer of `act`."""
    answers = []
    for _ in range(MAX_STEPS):
        now = state()
        if done(now):
            return answers
        answers.append(act(*next_move(now, rng)))
    raise AssertionError(f"table {now.table_id} did not get there in {MAX_STEPS} actions")


class Table:
    """A table opened and filled through one CardLedger by players registered for it, each answer's version kept."""

    def __init__(self, ledger: CardLedger, game: str, seats: int, **options: Any) -> None:
        self.ledger = ledger
        self.players = [register(ledger, f"{game}-{seat}") for seat in range(seats)]
        opened = ledger.open_table(self.players[0], game, seats, options)
        self.table_id = str(opened["id"])
        self.versions = [int(opened["version"])]
        for seat, player in enumerate(self.players):
            answer = ledger.sit(player, self.table_id, seat, f"client-{seat}")
            assert answer["seat"] == seat
            self.versions.append(int(answer["version"]))

    def state(self) -> TableState:
        return self.ledger.queries.load_state(self.table_id)

    def act(self, seat: int, action: dict[str, Any], key: str | None = None, **kwargs: Any) -> dict[str, Any]:
        key = key if key is not None else uuid.uuid4().hex
        answer = self.ledger.act(self.players[seat], self.table_id, action, key, kwargs.pop("if_match", None), **kwargs)
        self.versions.append(int(answer["version"]))
        return answer

    def play_until(self, rng: random.Random, done: Callable[[TableState], bool]) -> list[dict[str, Any]]:
        """Random legal actions until `done(state)`; every answer."""
        return play_until(self.state, self.act, rng, done)


def deal_ended(deal_no: int) -> Callable[[TableState], bool]:
    return lambda state: state.deal_no == deal_no and state.status == tables.BETWEEN_DEALS
