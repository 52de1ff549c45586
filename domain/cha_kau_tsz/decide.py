"""The events of a play action: a lead or a follow, and the end of the trick and of the hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.cha_kau_tsz.plays import ORDER, classify, illegal_lead_reason
from domain.cha_kau_tsz.scoring import settle
from domain.cha_kau_tsz.state import Hand
from domain.cha_kau_tsz.tricks import trick_winner
from domain.errors import RuleError
from domain.events import Event

CARDS_PLAYED = "cards_played"
TRICK_WON = "trick_won"
HAND_SCORED = "hand_scored"
ACTION_KEYS = frozenset({"type", "cards"})


def decide_play(hand: Hand, seat: int, action: Mapping[str, Any], carry: Mapping[str, Any], target: int) -> list[Event]:
    """Events for `seat` (the seat to act) playing `action`; raises RuleError."""
    cards = _cards_of(action)
    _check_held(hand.hands[seat], cards, seat)
    lead = hand.on_lead
    if lead:
        if classify(cards) is None:
            raise RuleError(illegal_lead_reason(cards), code="illegal_lead")
    else:
        led = len(hand.trick[0].cards)
        if len(cards) != led:
            raise RuleError(
                f"seat {seat} must play exactly {led} card{'s' if led > 1 else ''} to follow this trick, "
                f"not {len(cards)}",
                code="wrong_count",
            )
    played = list(cards)
    events = [Event(CARDS_PLAYED, {"seat": seat, "cards": played, "lead": lead, "trick_no": hand.trick_no})]
    if len(hand.trick) + 1 < hand.seats:
        return events
    plays = [(play.seat, play.cards) for play in hand.trick]
    plays.append((seat, cards))
    winner = trick_winner(plays)
    credited = len(hand.trick[0].cards)
    total = hand.tricks[winner] + credited
    events.append(Event(TRICK_WON, {"seat": winner, "tricks": credited, "trick_no": hand.trick_no, "total": total}))
    if len(hand.hands[seat]) == len(cards):  # the last follower's hand is empty: every hand is
        tricks = list(hand.tricks)
        tricks[winner] = total
        settlement = settle(tricks, carry, target)
        events.append(
            Event(
                HAND_SCORED,
                {
                    "hand_no": hand.hand_no,
                    "tricks": tricks,
                    "most": max(tricks),
                    "payments": settlement.payments,
                    "pool_winner": settlement.pool_winner,
                    "pool_won": settlement.pool_won,
                },
            )
        )
    return events


def _cards_of(action: Mapping[str, Any]) -> tuple[str, ...]:
    if type(action) is not dict and not isinstance(action, Mapping):
        raise RuleError("an action must be a JSON object", code="illegal_action")
    kind = action.get("type")
    if kind != "play":
        raise RuleError(
            f'unknown action type {kind!r} for cha-kau-tsz; a play is {{"type": "play", "cards": [...]}}',
            code="unknown_action",
        )
    if not ACTION_KEYS.issuperset(action):
        extra = sorted(str(key) for key in action if key not in ACTION_KEYS)
        raise RuleError(f'a play takes only "type" and "cards", not {extra[0]!r}', code="illegal_action")
    cards = action.get("cards")
    if not isinstance(cards, list | tuple) or not cards:
        raise RuleError('a play needs "cards": a non-empty list of card codes', code="illegal_action")
    for card in cards:
        if not isinstance(card, str):
            raise RuleError(f"card codes are strings, not {card!r}", code="illegal_action")
        if card not in ORDER:
            raise RuleError(f"{card!r} is not a card of the Sampen deck", code="unknown_card")
    return tuple(cards)


def _check_held(held: Sequence[str], cards: Sequence[str], seat: int) -> None:
    for card in cards:
        wanted = cards.count(card)
        if wanted > 1 or card not in held:
            have = held.count(card)
            if wanted > have:
                message = (
                    f"seat {seat} does not hold {card}"
                    if have == 0
                    else f"seat {seat} holds {have} {card}, not {wanted}"
                )
                raise RuleError(message, code="card_not_in_hand")
