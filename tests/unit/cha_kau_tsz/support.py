"""Helpers for the Cha Kau Tsz tests: tables driven through `domain.table`, rigged hands, a reference referee."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from domain import table as tbl
from domain.events import Event

GAME = "cha-kau-tsz"
SUITS = ("S", "D", "H")
PICTURES = ("JC", "QC", "KC")


class Seeds(dict[int, bytes]):
    """Server seeds for every deal number, derived on demand (tests only)."""

    def __init__(self, salt: str = "") -> None:
        super().__init__()
        self.salt = salt

    def __missing__(self, deal_no: int) -> bytes:
        seed = hashlib.sha256(f"cha-kau-tsz-test/{self.salt}/{deal_no}".encode()).digest()
        self[deal_no] = seed
        return seed


class Table:
    """A table and its whole event stream, driven through domain.table.decide and evolve."""

    def __init__(
        self, seats: int, options: Mapping[str, Any] | None = None, table_id: str = "t-1", salt: str = ""
    ) -> None:
        self.seeds = Seeds(salt or table_id)
        opened = tbl.open_table(table_id, GAME, seats, dict(options or {}), self.seeds[1])
        self.events: list[Event] = [opened]
        self.state = tbl.evolve(None, opened)
        self.seats = seats
        for seat in range(seats):
            self.apply(tbl.decide(self.state, tbl.Sit(f"player-{seat}"), self.seeds))

    def apply(self, events: Iterable[Event]) -> list[Event]:
        events = list(events)
        for event in events:
            self.state = tbl.evolve(self.state, event)
            self.events.append(event)
        return events

    def act(self, seat: int, action: Mapping[str, Any]) -> list[Event]:
        return self.apply(tbl.decide(self.state, tbl.Act(seat, action), self.seeds))

    def play(self, seat: int, *cards: str) -> list[Event]:
        return self.act(seat, {"type": "play", "cards": list(cards)})

    def ready_all(self) -> list[Event]:
        out: list[Event] = []
        for seat in range(self.seats):
            out += self.act(seat, {"type": "ready"})
        return out

    def hand(self, seat: int) -> list[str]:
        return list(tbl.seat_view(self.state, seat)["hand"])

    @property
    def to_act(self) -> int | None:
        return tbl.to_act(self.state)

    def rig(self, hands: Sequence[Sequence[str]], leader: int, carry: Mapping[str, Any] | None = None) -> None:
        """Replace the running deal's cards by `hands` (test only: events are facts, evolve trusts them)."""
        if carry is not None:
            self.state = replace(self.state, carry=dict(carry))
        hand_no = self.state.deal_no
        started = Event(
            "hand_started",
            {
                "hand_no": hand_no,
                "dealer": (leader - 1) % self.seats,
                "leader": leader,
                "hand_size": len(hands[0]),
                "pool_game": self.state.carry["pool_game"],
            },
        )
        dealt = [
            Event(
                "hand_dealt", {"seat": seat, "count": len(cards), "deck_indexes": [], "private": {"cards": list(cards)}}
            )
            for seat, cards in enumerate(hands)
        ]
        self.apply([started, *dealt])


def event_types(events: Iterable[Event]) -> list[str]:
    return [event.type for event in events]


def only(events: Iterable[Event], kind: str) -> list[Event]:
    return [event for event in events if event.type == kind]


# A reference referee written independently of domain.cha_kau_tsz -------------


def is_number(card: str) -> bool:
    return card[0].isdigit()


def ref_kind(cards: Sequence[str]) -> tuple[str, int] | None:
    """("single"|"sequence"|"group", strength) by the letter of docs/rules.md, "Cha Kau Tsz", or None."""
    if len(cards) == 1:
        return ("single", int(cards[0][0]) if is_number(cards[0]) else 0)
    numbers = [card for card in cards if is_number(card)]
    pictures = len(cards) - len(numbers)
    if len(cards) < 3 or not numbers:
        return None
    ranks = sorted(int(card[0]) for card in numbers)
    suits = {card[1] for card in numbers}
    if ranks[0] == ranks[-1] and suits == set(SUITS) and (pictures == 0 or ranks[0] == 1):
        return ("group", ranks[0])
    if pictures == 0 and len(suits) == 1 and ranks == list(range(ranks[0], ranks[0] + len(ranks))):
        return ("sequence", ranks[-1])
    return None


def ref_winner(plays: Sequence[tuple[int, Sequence[str]]]) -> int:
    leader, led = plays[0]
    if len(led) == 1:
        card = led[0]
        suit = card[1] if is_number(card) else None
        if suit is None:
            first = next((cards[0] for _, cards in plays[1:] if is_number(cards[0])), None)
            if first is None:
                return leader
            suit = first[1]
        contenders = [
            (int(cards[0][0]), -order, seat)
            for order, (seat, cards) in enumerate(plays)
            if is_number(cards[0]) and cards[0][1] == suit
        ]
        return max(contenders)[2]
    kind = ref_kind(led)
    assert kind is not None
    best, winner = kind[1], leader
    for seat, cards in plays[1:]:
        other = ref_kind(cards)
        if other is not None and other[0] == kind[0] and other[1] > best:
            best, winner = other[1], seat
    return winner
