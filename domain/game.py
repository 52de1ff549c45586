"""The contract each game's rules module fulfils; `domain.table` drives it.

A game sees every event of the table stream through `evolve_deal` only for
the events of a running deal (from its own dealing events on); the table
layer owns seats, readiness, seeds and the deal lifecycle.

`carry` is the game's cross-deal state as a JSON object (Cholek Tiga: who
moves first next; Cha Kau Tsz: chip balances, the pool, the pool game number).
It is stored whole in every `deal_ended` event, so that a table's state can be
rebuilt from its opening, its seatings and its last `deal_ended` event alone.

Every event that takes cards from the deck (dealt, drawn, turned up) names
their positions in the shuffled deck in `deck_indexes`, parallel to its
`cards` (at the top level, or under "private" when hidden), so that a deal
can be checked against the deck recomputed from the revealed seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from domain.cards import CardFace
from domain.events import JSON, Event
from domain.ledger import Transfer


class DealContext(Protocol):
    """What a game reads of its table: the running deal and the facts around it, read-only.

    `domain.table.TableState` is one (structurally), so the table hands itself over without a copy on the hot
    path of folding, while the games, typed against this, do not see readiness, seeds or the clock.
    """

    @property
    def deal_no(self) -> int: ...

    @property
    def seats(self) -> int: ...

    @property
    def options(self) -> Mapping[str, JSON]: ...

    @property
    def carry(self) -> Mapping[str, JSON]: ...

    @property
    def players(self) -> tuple[str | None, ...]:
        """Who plays the deal, by seat (the pool's payers are named by player)."""
        ...

    @property
    def deal(self) -> Any:
        """The game's state of the running (or last) deal; None before its first event."""
        ...


@dataclass(frozen=True, slots=True)
class DealOutcome:
    result: dict[str, JSON]  # game-specific result; includes "net" by seat (list of ints)
    transfers: list[Transfer]  # settlement of the deal, seats and the pool as accounts
    carry: dict[str, JSON]  # the game's cross-deal state after this deal


class Game(Protocol):
    name: str
    min_seats: int
    max_seats: int
    canonical_deck: tuple[str, ...]
    money_unit: str  # "cents" or "points"
    has_pool: bool  # settlements move money through the table's pool account as well as its seats
    counts_tricks: bool  # the public state of a deal has "tricks" by seat (the hand_tricks read model)
    card_faces: tuple[CardFace, ...]  # every card type of the deck, in canonical order, for legends

    def parse_options(self, raw: Mapping[str, Any], seats: int) -> dict[str, JSON]:
        """Validated options with defaults filled in; raises OptionError."""
        ...

    def initial_carry(self, seats: int, options: Mapping[str, JSON]) -> dict[str, JSON]: ...

    def start_deal(self, table: DealContext, deck: Sequence[str]) -> list[Event]:
        """The dealing events of deal `table.deal_no` (already advanced by `deal_started`)."""
        ...

    def evolve_deal(self, table: DealContext, deal: Any, event: Event) -> Any:
        """Fold one event of the running deal; `deal` is None before its first event."""
        ...

    def decide_play(self, table: DealContext, seat: int, action: Mapping[str, Any], deck: Sequence[str]) -> list[Event]:
        """Events for a play action by `seat`; raises RuleError. May carry the deal to its end."""
        ...

    def is_over(self, deal: Any) -> bool: ...

    def outcome(self, table: DealContext) -> DealOutcome:
        """Result, settlement and new carry of the finished deal in `table`."""
        ...

    def to_act(self, deal: Any) -> int | None: ...

    def legal_actions(self, table: DealContext, seat: int) -> list[dict[str, JSON]]:
        """Complete action bodies `seat` may post now (play actions only)."""
        ...

    def public_state(self, table: DealContext) -> dict[str, JSON]:
        """The public part of the current deal (API.md field names) and of the carry."""
        ...

    def hand(self, deal: Any, seat: int) -> list[str]: ...

    def timeout_action(self, table: DealContext, seat: int) -> dict[str, JSON]:
        """The action the turn clock takes for `seat`, the seat to act, when its time runs out (a house rule of
        docs/house-rules.md): always legal, and chosen from the hand in canonical order, never at random."""
        ...

    def closing_transfers(self, table: DealContext) -> list[Transfer]:
        """What the service pays back when it closes the abandoned `table` (between deals, nobody seated): the
        Cha Kau Tsz pool to those who paid into it since it was last won; nothing for Cholek Tiga."""
        ...
