"""Playing tables through the application service in tests: one place for the helpers many test files share."""

from __future__ import annotations

import random
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


def random_action(state: TableState, seat: int, rng: random.Random) -> dict[str, Any]:
    """A legal action of `seat` at random; a follow given as a count takes that many cards of the hand."""
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


def deal_ended(deal_no: int) -> Callable[[TableState], bool]:
    return lambda state: state.deal_no == deal_no and state.status == tables.BETWEEN_DEALS
