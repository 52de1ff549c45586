"""What may be seen of a deal: the public state, a seat's hand, and the legal actions of the seat to move."""

from __future__ import annotations

from domain.cholek_tiga.captures import capture_choices, pairs_of, rank_groups
from domain.cholek_tiga.ranks import rank_table
from domain.cholek_tiga.scoring import scores
from domain.cholek_tiga.state import DealState
from domain.events import JSON
from domain.game import DealContext


def public_state(table: DealContext) -> dict[str, JSON]:
    deal: DealState = table.deal
    return {
        "pool": list(deal.pool),
        "piles": [list(pile) for pile in deal.piles],
        "hand_sizes": [len(hand) for hand in deal.hands],
        "stock_remaining": deal.stock_remaining,
        "pending": deal.pending,
        "scores": scores(deal.piles) if deal.over else None,
        "round": deal.round,
        "first_seat": deal.first_seat,
    }


def hand(deal: DealState | None, seat: int) -> list[str]:
    if deal is None:
        return []
    return list(deal.hands[seat])


def legal_actions(table: DealContext, seat: int) -> list[dict[str, JSON]]:
    deal: DealState | None = table.deal
    if deal is None or deal.to_act != seat:
        return []
    ranks = rank_table(table.options)
    if deal.pending is not None:
        actions: list[dict[str, JSON]] = [
            {"type": "capture", "cards": list(pair)} for pair in capture_choices(deal.pool, deal.pending, ranks)
        ]
        actions.append({"type": "pass"})
        return actions
    cards = sorted(set(deal.hands[seat]))
    groups = rank_groups(deal.pool, ranks, {ranks[card] for card in cards})
    actions = []
    for card in cards:
        actions.append({"type": "discard", "card": card, "capture": None})
        counts = groups[ranks[card]]
        if len(counts) > 1 or sum(counts.values()) >= 2:
            actions.extend({"type": "discard", "card": card, "capture": list(pair)} for pair in pairs_of(counts))
    return actions
