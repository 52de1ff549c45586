"""The dealing events of a hand: packets round the table from the seat after the dealer
(docs/rules.md, "Cha Kau Tsz")."""

from __future__ import annotations

from collections.abc import Sequence

from domain.cha_kau_tsz.options import hand_size, packet_size
from domain.events import Event

HAND_STARTED = "hand_started"
HAND_DEALT = "hand_dealt"


def dealer_of(hand_no: int, seats: int) -> int:
    """Hand h (1-based, counted across the table) is dealt by seat (h - 1) mod n."""
    return (hand_no - 1) % seats


def deck_indexes(seat: int, dealer: int, seats: int) -> list[int]:
    """Positions in the shuffled deck of the cards dealt to `seat`."""
    size, packet = hand_size(seats), packet_size(seats)
    position = (seat - dealer - 1) % seats  # 0 for the seat after the dealer, who gets the first packet
    return [
        round_no * seats * packet + position * packet + offset
        for round_no in range(size // packet)
        for offset in range(packet)
    ]


def deal_events(hand_no: int, seats: int, pool_game: int, deck: Sequence[str]) -> list[Event]:
    """`hand_started`, then one `hand_dealt` per seat from the seat after the dealer; the rest stays unseen."""
    dealer = dealer_of(hand_no, seats)
    leader = (dealer + 1) % seats
    events = [
        Event(
            HAND_STARTED,
            {
                "hand_no": hand_no,
                "dealer": dealer,
                "leader": leader,
                "hand_size": hand_size(seats),
                "pool_game": pool_game,
            },
        )
    ]
    for step in range(seats):
        seat = (leader + step) % seats
        indexes = deck_indexes(seat, dealer, seats)
        # In deck order: listed in the order of the sorted hand, the public indexes would tell other seats where
        # the hand's equal cards lie (the hand is sorted when it is folded into the state).
        positions = sorted(indexes)
        events.append(
            Event(
                HAND_DEALT,
                {
                    "seat": seat,
                    "count": len(positions),
                    "deck_indexes": positions,
                    "private": {"cards": [deck[index] for index in positions]},
                },
            )
        )
    return events
