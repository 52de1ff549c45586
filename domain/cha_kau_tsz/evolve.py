"""Folding Cha Kau Tsz events into the state of the hand. Events are facts: nothing is re-checked here.

The hot path of every replay: states are built with the constructor rather
than `dataclasses.replace`, which is several times slower.
"""

from __future__ import annotations

from domain.cha_kau_tsz.dealing import HAND_DEALT, HAND_STARTED
from domain.cha_kau_tsz.decide import CARDS_PLAYED, HAND_SCORED, TRICK_WON
from domain.cha_kau_tsz.plays import in_deck_order
from domain.cha_kau_tsz.state import FinishedTrick, Hand, Play
from domain.events import Event


def evolve_hand(hand: Hand | None, event: Event, seats: int) -> Hand:
    data = event.data
    kind = event.type
    if kind == HAND_STARTED:
        return _start_hand(event, seats)
    if hand is None:
        raise ValueError(f"a hand begins with {HAND_STARTED}, not {kind}")
    if kind == CARDS_PLAYED:
        seat = data["seat"]
        cards = tuple(data["cards"])
        remaining = list(hand.hands[seat])
        for card in cards:
            remaining.remove(card)
        return Hand(
            hand.seats,
            hand.hand_no,
            hand.dealer,
            hand.hand_size,
            (*hand.hands[:seat], tuple(remaining), *hand.hands[seat + 1 :]),
            hand.leader,
            hand.trick_no,
            (*hand.trick, Play(seat, cards)),
            hand.tricks,
            hand.last_trick,
            hand.scored,
        )
    if kind == TRICK_WON:
        winner = data["seat"]
        credited = data["tricks"]
        return Hand(
            hand.seats,
            hand.hand_no,
            hand.dealer,
            hand.hand_size,
            hand.hands,
            winner,
            hand.trick_no + 1,
            (),
            (*hand.tricks[:winner], hand.tricks[winner] + credited, *hand.tricks[winner + 1 :]),
            FinishedTrick(hand.trick_no, hand.trick, winner, credited),
            hand.scored,
        )
    if kind == HAND_SCORED:
        return _with_hands(hand, hand.hands, scored=True)
    if kind == HAND_DEALT:
        seat = data["seat"]
        cards = in_deck_order(data["private"]["cards"])
        return _with_hands(hand, (*hand.hands[:seat], cards, *hand.hands[seat + 1 :]), scored=hand.scored)
    raise ValueError(f"unknown cha-kau-tsz event {kind!r}")


def _with_hands(hand: Hand, hands: tuple[tuple[str, ...], ...], scored: bool) -> Hand:
    return Hand(
        hand.seats,
        hand.hand_no,
        hand.dealer,
        hand.hand_size,
        hands,
        hand.leader,
        hand.trick_no,
        hand.trick,
        hand.tricks,
        hand.last_trick,
        scored,
    )


def _start_hand(event: Event, seats: int) -> Hand:
    """The hand a `hand_started` event opens: no cards yet, no tricks."""
    data = event.data
    return Hand(
        seats=seats,
        hand_no=int(data["hand_no"]),
        dealer=int(data["dealer"]),
        hand_size=int(data["hand_size"]),
        hands=((),) * seats,
        leader=int(data["leader"]),
        tricks=(0,) * seats,
    )
