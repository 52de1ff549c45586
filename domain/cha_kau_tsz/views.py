"""What a hand shows: the public state (API.md field names), a seat's cards, and its legal actions."""

from __future__ import annotations

from collections.abc import Mapping

from domain.cha_kau_tsz.plays import legal_leads
from domain.cha_kau_tsz.state import Hand, Play
from domain.events import JSON


def public_state(hand: Hand, carry: Mapping[str, JSON]) -> dict[str, JSON]:
    """The public part of the hand and of the carry; never a card that is still held.

    `balances` are points by seat, changes from the starting stack (negative: a
    debt); `stacks` are the points each seat holds in chips (starting stack plus
    balance, negative when in debt); `debts` lists the seats in debt and what
    they owe; `pool` is the points in the pool before this hand's payments
    while it is played, and after them once the deal has ended.
    """
    balances = [int(balance) for balance in carry["balances"]]
    stack = int(carry["starting_stack"])
    last = hand.last_trick
    return {
        "hand_no": hand.hand_no,
        "pool_game": carry["pool_game"],
        "hands_in_pool_game": carry["hands_in_pool_game"],
        "dealer": hand.dealer,
        "leader": None if hand.scored else hand.leader,
        "trick_no": None if hand.scored else hand.trick_no,
        "trick": _plays(hand.trick),
        "last_trick": None
        if last is None
        else {"trick_no": last.trick_no, "plays": _plays(last.plays), "winner": last.winner, "tricks": last.tricks},
        "tricks": list(hand.tricks),
        "hand_sizes": [len(cards) for cards in hand.hands],
        "pool": carry["pool"],
        "balances": balances,
        "stacks": [stack + balance for balance in balances],
        "starting_stack": stack,
        "debts": [{"seat": seat, "points": -balance} for seat, balance in enumerate(balances) if balance < 0],
    }


def _plays(plays: tuple[Play, ...]) -> list[JSON]:
    return [{"seat": play.seat, "cards": list(play.cards)} for play in plays]


def held_cards(hand: Hand | None, seat: int) -> list[str]:
    """The cards `seat` holds, in deck order (suits S, D, H by rank, then JC QC KC)."""
    if hand is None or not 0 <= seat < len(hand.hands):
        return []
    return list(hand.hands[seat])


def legal_actions(hand: Hand | None, seat: int) -> list[dict[str, JSON]]:
    """On lead, every distinct legal lead as a complete body; on a follow, the number of cards to play."""
    if hand is None or hand.to_act != seat:
        return []
    if hand.on_lead:
        return [{"type": "play", "cards": list(cards)} for cards in legal_leads(hand.hands[seat])]
    return [{"type": "play", "count": len(hand.trick[0].cards)}]
