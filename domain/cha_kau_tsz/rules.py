"""The Cha Kau Tsz `Game` (domain.game.Game) that `domain.table` drives."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from domain.cards import SAMPEN_DECK, SAMPEN_FACES, CardFace
from domain.cha_kau_tsz import options as opts
from domain.cha_kau_tsz import views
from domain.cha_kau_tsz.dealing import deal_events
from domain.cha_kau_tsz.decide import decide_play
from domain.cha_kau_tsz.evolve import evolve_hand
from domain.cha_kau_tsz.plays import in_deck_order
from domain.cha_kau_tsz.scoring import pool_paid_after, pool_refunds, settle
from domain.cha_kau_tsz.state import Hand
from domain.events import JSON, Event
from domain.game import DealContext, DealOutcome
from domain.ledger import Transfer

if TYPE_CHECKING:
    from domain.game import Game


class ChaKauTsz:
    name = "cha-kau-tsz"
    min_seats = 2
    max_seats = 4
    canonical_deck: tuple[str, ...] = SAMPEN_DECK
    money_unit = "points"
    has_pool = True
    counts_tricks = True
    card_faces: tuple[CardFace, ...] = SAMPEN_FACES

    def parse_options(self, raw: Mapping[str, Any], seats: int) -> dict[str, JSON]:
        return opts.parse_options(raw, seats)

    def initial_carry(self, seats: int, options: Mapping[str, JSON]) -> dict[str, JSON]:
        return opts.initial_carry(seats, options)

    def start_deal(self, table: DealContext, deck: Sequence[str]) -> list[Event]:
        return deal_events(table.deal_no, table.seats, int(table.carry["pool_game"]), deck)

    def evolve_deal(self, table: DealContext, deal: Any, event: Event) -> Any:
        return evolve_hand(deal, event, table.seats)

    def decide_play(self, table: DealContext, seat: int, action: Mapping[str, Any], deck: Sequence[str]) -> list[Event]:
        hand = _hand(table.deal)
        return decide_play(hand, seat, action, table.carry, int(table.options["pool_target_tricks"]))

    def is_over(self, deal: Any) -> bool:
        return deal is not None and _hand(deal).scored

    def outcome(self, table: DealContext) -> DealOutcome:
        hand = _hand(table.deal)
        settlement = settle(hand.tricks, table.carry, int(table.options["pool_target_tricks"]))
        carry = pool_paid_after(table.carry, settlement, table.players)
        cents = int(table.options["chip_value_cents"])
        result: dict[str, JSON] = {
            "hand_no": hand.hand_no,
            "pool_game": table.carry["pool_game"],
            "tricks": list(hand.tricks),
            "payments": settlement.payments,
            "pool_winner": settlement.pool_winner,
            "pool_won": settlement.pool_won,
            "net": settlement.net,
            "net_cents": [points * cents for points in settlement.net],
            "balances": carry["balances"],
            "pool": carry["pool"],
        }
        return DealOutcome(result, settlement.transfers, carry)

    def to_act(self, deal: Any) -> int | None:
        return None if deal is None else _hand(deal).to_act

    def legal_actions(self, table: DealContext, seat: int) -> list[dict[str, JSON]]:
        return views.legal_actions(table.deal, seat)

    def public_state(self, table: DealContext) -> dict[str, JSON]:
        return views.public_state(_hand(table.deal), table.carry)

    def hand(self, deal: Any, seat: int) -> list[str]:
        return views.held_cards(deal, seat)

    def timeout_action(self, table: DealContext, seat: int) -> dict[str, JSON]:
        """On lead, the hand's first card in canonical (deck) order as a single; following a lead of k cards,
        the hand's first k cards in canonical order."""
        hand = _hand(table.deal)
        held = in_deck_order(hand.hands[seat])
        count = 1 if hand.on_lead else len(hand.trick[0].cards)
        return {"type": "play", "cards": list(held[:count])}

    def closing_transfers(self, table: DealContext) -> list[Transfer]:
        return pool_refunds(table.carry)


def _hand(deal: Any) -> Hand:
    if not isinstance(deal, Hand):
        raise ValueError(f"no Cha Kau Tsz hand is in play (deal state {deal!r})")
    return deal


CHA_KAU_TSZ: Game = ChaKauTsz()
