"""The frozen state of one running (or finished) hand; built only by `evolve`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True, slots=True)
class Play:
    seat: int
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FinishedTrick:
    trick_no: int
    plays: tuple[Play, ...]
    winner: int
    tricks: int  # tricks credited to the winner: the number of cards led


class Hand(NamedTuple):
    """One Cha Kau Tsz hand (a deal of the table). A NamedTuple, not a frozen dataclass: every event of the hand
    folds into a new one, and a tuple is made without a Python call per field."""

    seats: int
    hand_no: int
    dealer: int
    hand_size: int
    hands: tuple[tuple[str, ...], ...]  # cards held by seat, in deck order
    leader: int  # the seat that leads (or led) the current trick
    trick_no: int = 1  # the current trick, 1-based; tricks are numbered by leads
    trick: tuple[Play, ...] = ()  # plays so far in the current trick, the lead first
    tricks: tuple[int, ...] = ()  # tricks won this hand by seat
    last_trick: FinishedTrick | None = None
    scored: bool = False  # the hand_scored event has been folded: the hand is over

    @property
    def to_act(self) -> int | None:
        if self.scored:
            return None
        if not self.trick:
            return self.leader
        return (self.trick[-1].seat + 1) % self.seats

    @property
    def on_lead(self) -> bool:
        return not self.trick
