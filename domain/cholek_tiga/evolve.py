"""Folding one Cholek Tiga event into the deal state. Events are facts: no rule is re-checked here."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from domain.cholek_tiga import events as ev
from domain.cholek_tiga.state import DECK_SIZE, DealState, next_to_act, replaced, without
from domain.events import JSON, Event
from domain.game import DealContext
from domain.ledger import Transfer

Data = Mapping[str, JSON]


def _first_draw(table: DealContext, data: Data) -> DealState:
    players = table.seats
    seat = int(data["seat"])
    cards = tuple(sorted(data["private"]["cards"]))
    hands = replaced(((),) * players, seat, cards)
    first_seat = int(table.carry.get("first_seat", seat))
    return DealState(players, first_seat, len(cards), hands, (), ((),) * players, seat, None, 1, (0,) * players)


def _drawn(deal: DealState, data: Data) -> DealState:
    seat = data["seat"]
    cards = data["private"]["cards"]
    new_round = not any(deal.hands)
    hands = replaced(deal.hands, seat, tuple(sorted(deal.hands[seat] + tuple(cards))))
    return DealState(
        deal.players,
        deal.first_seat,
        deal.taken + len(cards),
        hands,
        deal.pool,
        deal.piles,
        seat if new_round else deal.to_act,
        None,
        deal.round + 1 if new_round else deal.round,
        deal.bonus_net,
    )


def _discarded(deal: DealState, data: Data) -> DealState:
    seat = data["seat"]
    card = data["card"]
    capture = data["capture"]
    hands = replaced(deal.hands, seat, without(deal.hands[seat], (card,)))
    if capture:
        pool = without(deal.pool, capture)
        piles = replaced(deal.piles, seat, (*deal.piles[seat], card, *capture))
    else:
        pool = (*deal.pool, card)
        piles = deal.piles
    # With cards left in the stock a turn-up follows; otherwise the turn ends with the discard.
    to_act = seat if deal.taken < DECK_SIZE else next_to_act(hands, seat, deal.taken)
    return DealState(
        deal.players, deal.first_seat, deal.taken, hands, pool, piles, to_act, None, deal.round, deal.bonus_net
    )


def _turned_up(deal: DealState, data: Data) -> DealState:
    seat = data["seat"]
    card = data["card"]
    taken = deal.taken + 1
    if data["can_capture"]:
        return DealState(
            deal.players,
            deal.first_seat,
            taken,
            deal.hands,
            deal.pool,
            deal.piles,
            seat,
            card,
            deal.round,
            deal.bonus_net,
        )
    return DealState(
        deal.players,
        deal.first_seat,
        taken,
        deal.hands,
        (*deal.pool, card),
        deal.piles,
        next_to_act(deal.hands, seat, taken),
        None,
        deal.round,
        deal.bonus_net,
    )


def _up_captured(deal: DealState, data: Data) -> DealState:
    seat = data["seat"]
    capture = data["capture"]
    piles = replaced(deal.piles, seat, (*deal.piles[seat], data["card"], *capture))
    return DealState(
        deal.players,
        deal.first_seat,
        deal.taken,
        deal.hands,
        without(deal.pool, capture),
        piles,
        next_to_act(deal.hands, seat, deal.taken),
        None,
        deal.round,
        deal.bonus_net,
    )


def _up_passed(deal: DealState, data: Data) -> DealState:
    seat = data["seat"]
    return DealState(
        deal.players,
        deal.first_seat,
        deal.taken,
        deal.hands,
        (*deal.pool, data["card"]),
        deal.piles,
        next_to_act(deal.hands, seat, deal.taken),
        None,
        deal.round,
        deal.bonus_net,
    )


def _bonus(deal: DealState, data: Data) -> DealState:
    net = list(deal.bonus_net)
    for raw in data["transfers"]:
        paid = Transfer.from_json(raw)
        net[int(paid.payer.split(":")[1])] -= paid.amount
        net[int(paid.payee.split(":")[1])] += paid.amount
    return DealState(
        deal.players,
        deal.first_seat,
        deal.taken,
        deal.hands,
        deal.pool,
        deal.piles,
        deal.to_act,
        deal.pending,
        deal.round,
        tuple(net),
    )


_HANDLERS: Mapping[str, Callable[[DealState, Data], DealState]] = {
    ev.CARDS_DRAWN: _drawn,
    ev.CARD_DISCARDED: _discarded,
    ev.CARD_TURNED_UP: _turned_up,
    ev.TURN_UP_CAPTURED: _up_captured,
    ev.TURN_UP_PASSED: _up_passed,
    ev.BONUS_PAID: _bonus,
}


def evolve_deal(table: DealContext, deal: DealState | None, event: Event) -> DealState:
    if deal is None:
        if event.type != ev.CARDS_DRAWN:
            raise ValueError(f"a cholek-tiga deal begins with {ev.CARDS_DRAWN}, not {event.type}")
        return _first_draw(table, event.data)
    handler = _HANDLERS.get(event.type)
    if handler is None:
        raise ValueError(f"unknown cholek-tiga event type {event.type!r}")
    return handler(deal, event.data)
