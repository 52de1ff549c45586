"""`CHOLEK_TIGA`: the Cholek Tiga rules as a `domain.game.Game`, for `domain.table` to drive."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from domain.cards import CHERKI_DECK, CHERKI_FACES, CHERKI_TYPES, CardFace
from domain.cholek_tiga import decide, evolve, options, views
from domain.cholek_tiga.scoring import scores
from domain.cholek_tiga.settlement import ang_pow_transfers, net_by_seat, next_first_seat, point_transfers
from domain.cholek_tiga.state import DealState
from domain.events import JSON, Event
from domain.game import DealContext, DealOutcome
from domain.ledger import Transfer

if TYPE_CHECKING:
    from domain.game import Game


class CholekTiga:
    name: str = "cholek-tiga"
    min_seats: int = 2
    max_seats: int = 3
    canonical_deck: tuple[str, ...] = CHERKI_DECK
    money_unit: str = "cents"
    has_pool: bool = False
    counts_tricks: bool = False
    card_faces: tuple[CardFace, ...] = CHERKI_FACES

    def parse_options(self, raw: Mapping[str, Any], seats: int) -> dict[str, JSON]:
        return options.parse_options(raw, seats)

    def initial_carry(self, seats: int, options: Mapping[str, JSON]) -> dict[str, JSON]:
        return {"first_seat": 0}

    def start_deal(self, table: DealContext, deck: Sequence[str]) -> list[Event]:
        first = int(table.carry.get("first_seat", 0))
        return decide.round_draws(table.seats, first, 0, 1, deck)

    # Bound directly (no wrapper call): folding events is the hot path.
    evolve_deal = staticmethod(evolve.evolve_deal)

    def decide_play(self, table: DealContext, seat: int, action: Mapping[str, Any], deck: Sequence[str]) -> list[Event]:
        return decide.decide_play(table, seat, action, deck)

    def is_over(self, deal: DealState | None) -> bool:
        return deal is not None and deal.over

    def to_act(self, deal: DealState | None) -> int | None:
        return None if deal is None else deal.to_act

    def outcome(self, table: DealContext) -> DealOutcome:
        deal: DealState = table.deal
        final = scores(deal.piles)
        transfers = point_transfers(final, int(table.options["point_value_cents"])) + ang_pow_transfers(deal.piles)
        settled = net_by_seat(transfers, deal.players)
        result: dict[str, JSON] = {
            "scores": final,
            "net": [settled[seat] + deal.bonus_net[seat] for seat in range(deal.players)],
            "leftover_pool": list(deal.pool),
            "piles": [list(pile) for pile in deal.piles],
        }
        return DealOutcome(result, transfers, {"first_seat": next_first_seat(final, deal.first_seat)})

    def legal_actions(self, table: DealContext, seat: int) -> list[dict[str, JSON]]:
        return views.legal_actions(table, seat)

    def public_state(self, table: DealContext) -> dict[str, JSON]:
        return views.public_state(table)

    def hand(self, deal: DealState | None, seat: int) -> list[str]:
        return views.hand(deal, seat)

    def timeout_action(self, table: DealContext, seat: int) -> dict[str, JSON]:
        """With a turned-up card pending, pass; otherwise discard the hand's first card in canonical order
        (docs/rules.md, "The Cherki deck": coins, strings, myriads by rank, then OT WF RF), capturing nothing."""
        deal: DealState = table.deal
        if deal.pending is not None:
            return {"type": "pass"}
        return {"type": "discard", "card": min(deal.hands[seat], key=_CANONICAL.__getitem__), "capture": None}

    def closing_transfers(self, table: DealContext) -> list[Transfer]:
        return []  # Cholek Tiga settles each game in full when it ends: nothing is left on the table


_CANONICAL: dict[str, int] = {code: index for index, code in enumerate(CHERKI_TYPES)}


CHOLEK_TIGA = CholekTiga()

if TYPE_CHECKING:
    _CONFORMS: Game = CHOLEK_TIGA
