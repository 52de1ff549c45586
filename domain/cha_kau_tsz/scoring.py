"""Scoring a hand (RULES.md section 3) and the carry it leaves.

Let M be the most tricks anyone won. Every player pays M - tricks points into
the pool. If one player won at least `pool_target_tricks`, after those
payments that player takes the whole pool: the pool game ends, and the next
hand starts pool game + 1 with the same balances and an empty pool. Balances
are changes from the starting stack and may go negative (a debt); the pool is
an account, so sum(balances) + pool == 0 always.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.events import JSON
from domain.ledger import POOL_ACCOUNT, Transfer, seat_account, transfer

HAND_PAYMENT = "hand_payment"
POOL_WON = "pool_won"


@dataclass(frozen=True, slots=True)
class Settlement:
    payments: list[int]  # points each seat pays into the pool
    pool_winner: int | None
    pool_won: int  # points the pool winner takes (0 when nobody wins the pool)
    net: list[int]  # change of each seat's balance this hand
    transfers: list[Transfer]
    carry: dict[str, JSON]  # the carry after this hand


def pool_winner(tricks: Sequence[int], target: int) -> int | None:
    """The seat that won at least `target` tricks (at most one, as target is more than half the hand)."""
    for seat, won in enumerate(tricks):
        if won >= target:
            return seat
    return None


def settle(tricks: Sequence[int], carry: Mapping[str, Any], target: int) -> Settlement:
    most = max(tricks)
    payments = [most - won for won in tricks]
    transfers = [
        t for seat, paid in enumerate(payments) for t in transfer(seat_account(seat), POOL_ACCOUNT, paid, HAND_PAYMENT)
    ]
    net = [-paid for paid in payments]
    pool = int(carry["pool"]) + sum(payments)
    winner = pool_winner(tricks, target)
    won = 0
    pool_game = int(carry["pool_game"])
    hands_in_pool_game = int(carry["hands_in_pool_game"]) + 1
    if winner is not None:
        won, pool = pool, 0
        net[winner] += won
        transfers += transfer(POOL_ACCOUNT, seat_account(winner), won, POOL_WON)
        pool_game, hands_in_pool_game = pool_game + 1, 0
    balances = [int(balance) + change for balance, change in zip(carry["balances"], net, strict=True)]
    new_carry: dict[str, JSON] = {
        **carry,
        "balances": balances,
        "pool": pool,
        "pool_game": pool_game,
        "hands_in_pool_game": hands_in_pool_game,
    }
    return Settlement(payments, winner, won, net, transfers, new_carry)
