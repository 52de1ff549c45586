"""Helpers for the Cholek Tiga tests: tables driven through domain.table, and hand-built deal states."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from domain.cards import CHERKI_DECK
from domain.cholek_tiga.rules import CHOLEK_TIGA
from domain.cholek_tiga.state import DealState
from domain.events import Event
from domain.shuffle import deal_deck
from domain.table import PLAYING, Act, Sit, TableState, decide, evolve, fold, open_table, to_act
from tests.play import random_action

GAME = CHOLEK_TIGA


def seeds_for(deals: int, salt: int = 0) -> dict[int, bytes]:
    return {deal_no: bytes([deal_no, salt % 256]) * 16 for deal_no in range(1, deals + 2)}


def seated_table(
    players: int,
    options: Mapping[str, Any] | None = None,
    seeds: Mapping[int, bytes] | None = None,
    table_id: str = "t",
) -> tuple[TableState, list[Event]]:
    """A table opened and fully seated (deal 1 dealt), and its stream so far."""
    seeds = seeds or seeds_for(1)
    events = [open_table(table_id, "cholek-tiga", players, options or {}, seeds[1])]
    state = evolve(None, events[0])
    for seat in range(players):
        new = decide(state, Sit(f"player-{seat}"), seeds)
        state = fold(state, new)
        events += new
    return state, events


def act(
    state: TableState, seat: int, action: Mapping[str, Any], seeds: Mapping[int, bytes]
) -> tuple[TableState, list[Event]]:
    new = decide(state, Act(seat, action), seeds)
    return fold(state, new), new


def play_deal(state: TableState, rng: random.Random, seeds: Mapping[int, bytes]) -> tuple[TableState, list[Event]]:
    """Random legal play until the running deal ends."""
    events: list[Event] = []
    while (seat := to_act(state)) is not None:
        state, new = act(state, seat, random_action(state, seat, rng), seeds)
        events += new
    return state, events


def ready_all(state: TableState, seeds: Mapping[int, bytes]) -> tuple[TableState, list[Event]]:
    events: list[Event] = []
    for seat in range(state.seats):
        state, new = act(state, seat, {"type": "ready"}, seeds)
        events += new
    return state, events


def current_deck(state: TableState, seeds: Mapping[int, bytes]) -> tuple[str, ...]:
    return deal_deck(CHERKI_DECK, seeds[state.deal_no], state.table_id, state.deal_no, state.deal_client_seeds)


# Hand-built states ------------------------------------------------------------


def deal_state(
    hands: Sequence[Sequence[str]],
    pool: Sequence[str] = (),
    piles: Sequence[Sequence[str]] | None = None,
    *,
    taken: int = 60,
    to_act: int | None = 0,
    pending: str | None = None,
    round_no: int = 1,
    first_seat: int = 0,
) -> DealState:
    players = len(hands)
    return DealState(
        players=players,
        first_seat=first_seat,
        taken=taken,
        hands=tuple(tuple(sorted(hand)) for hand in hands),
        pool=tuple(pool),
        piles=tuple(tuple(pile) for pile in (piles or [()] * players)),
        to_act=to_act,
        pending=pending,
        round=round_no,
        bonus_net=(0,) * players,
    )


def table_with(deal: DealState, **options: Any) -> TableState:
    players = deal.players
    return TableState(
        table_id="unit",
        game="cholek-tiga",
        seats=players,
        options=GAME.parse_options(options, players),
        status=PLAYING,
        players=tuple(f"player-{seat}" for seat in range(players)),
        deal_no=1,
        carry={"first_seat": deal.first_seat},
        deal=deal,
    )


def deck_with(cards_at: Mapping[int, str]) -> list[str]:
    """A 120-card deck (any order is fine for rule tests) with the given cards at the given indexes."""
    deck = list(CHERKI_DECK)
    for index, card in cards_at.items():
        deck[index] = card
    return deck


def play(
    table: TableState, seat: int, action: Mapping[str, Any], deck: Sequence[str]
) -> tuple[TableState, list[Event]]:
    """decide_play + evolve_deal directly on a hand-built table."""
    events = GAME.decide_play(table, seat, action, deck)
    deal = table.deal
    for event in events:
        deal = GAME.evolve_deal(table, deal, event)
    return replace(table, deal=deal), events


def types(events: Sequence[Event]) -> list[str]:
    return [event.type for event in events]


# Independent re-implementations used as oracles --------------------------------

RED = {"9S", "RF", "OT"}


def oracle_score(pile: Sequence[str]) -> int:
    total = 0
    for card, copies in Counter(pile).items():
        if card in RED:
            total += {1: 1, 2: 4, 3: 3, 4: 8}[copies]
        else:
            total += {1: 0, 2: 0, 3: 3, 4: 8}[copies]
    return total


def oracle_rank(card: str, honours_rank: str) -> str:
    if card in ("OT", "WF", "RF"):
        return "1" if honours_rank == "ace" else "H"
    return card[0]
