"""Deciding a play: the rule checks, then every event that follows automatically from the decision."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.cholek_tiga import events as ev
from domain.cholek_tiga.actions import CaptureTurnUp, Discard, parse_action
from domain.cholek_tiga.captures import can_capture, check_capture
from domain.cholek_tiga.evolve import evolve_deal
from domain.cholek_tiga.ranks import RankTable, rank_table
from domain.cholek_tiga.settlement import bonus_transfers
from domain.cholek_tiga.state import DECK_SIZE, DRAW_SIZE, DealState
from domain.errors import RuleError
from domain.events import Event
from domain.game import DealContext


def round_draws(players: int, first: int, taken: int, round_no: int, deck: Sequence[str]) -> list[Event]:
    """Three cards each (fewer when the stock runs short), in turn order from `first`."""
    events: list[Event] = []
    position = taken
    for step in range(players):
        count = min(DRAW_SIZE, len(deck) - position)
        if count <= 0:
            break
        cards = deck[position : position + count]
        events.append(ev.cards_drawn((first + step) % players, round_no, position, cards))
        position += count
    return events


def _next_round(deal: DealState, deck: Sequence[str]) -> list[Event]:
    if deal.to_act is None or any(deal.hands):
        return []
    return round_draws(deal.players, deal.to_act, deal.taken, deal.round + 1, deck)


def _bonus(table: DealContext, seat: int, kind: str, card: str, pair: tuple[str, str]) -> list[Event]:
    if not table.options.get("in_play_bonuses") or pair[0] != card or pair[1] != card:
        return []
    return [ev.bonus_paid(seat, kind, card, bonus_transfers(seat, table.seats, kind))]


def _discard(
    table: DealContext, deal: DealState, seat: int, action: Discard, ranks: RankTable, deck: Sequence[str]
) -> list[Event]:
    if deal.pending is not None:
        raise RuleError(
            f"seat {seat} must first capture with the turned-up {deal.pending} or pass", code="turn_up_pending"
        )
    card = action.card
    if card not in deal.hands[seat]:
        raise RuleError(f"card {card} is not in seat {seat}'s hand", code="card_not_in_hand")
    if action.capture is not None:
        check_capture(deal.pool, card, action.capture, ranks, "the discard")
    discarded = ev.card_discarded(seat, card, action.capture)
    events = [discarded]
    if action.capture is not None:
        events += _bonus(table, seat, "ayam", card, action.capture)
    state = evolve_deal(table, deal, discarded)
    if state.taken < DECK_SIZE:
        turned = deck[state.taken]
        turn_up = ev.card_turned_up(seat, turned, state.taken, can_capture(state.pool, turned, ranks))
        events.append(turn_up)
        if turn_up.data["can_capture"]:
            return events  # wait for the capture-or-pass decision
        state = evolve_deal(table, state, turn_up)
    return events + _next_round(state, deck)


def _turn_up_decision(
    table: DealContext, deal: DealState, seat: int, action: CaptureTurnUp | None, ranks: RankTable, deck: Sequence[str]
) -> list[Event]:
    pending = deal.pending
    if pending is None:
        raise RuleError(
            f"there is no turned-up card awaiting a decision; seat {seat} must discard", code="no_pending_turn_up"
        )
    if action is None:
        decision = ev.turn_up_passed(seat, pending)
        events = [decision]
    else:
        check_capture(deal.pool, pending, action.cards, ranks, "the turned-up card")
        decision = ev.turn_up_captured(seat, pending, action.cards)
        events = [decision, *_bonus(table, seat, "kandang", pending, action.cards)]
    return events + _next_round(evolve_deal(table, deal, decision), deck)


def decide_play(table: DealContext, seat: int, action: Mapping[str, Any], deck: Sequence[str]) -> list[Event]:
    deal: DealState = table.deal
    parsed = parse_action(action)
    ranks = rank_table(table.options)
    if isinstance(parsed, Discard):
        return _discard(table, deal, seat, parsed, ranks, deck)
    return _turn_up_decision(table, deal, seat, parsed if isinstance(parsed, CaptureTurnUp) else None, ranks, deck)
