"""Scoring a hand (docs/rules.md, "Cha Kau Tsz") and the carry it leaves.

Let M be the most tricks anyone won. Every player pays M - tricks points into
the pool. If one player won at least `pool_target_tricks`, after those
payments that player takes the whole pool: the pool game ends, and the next
hand starts pool game + 1 with the same balances and an empty pool. Balances
are changes from the starting stack and may go negative (a debt); the pool is
an account, so sum(balances) + pool == 0 always.

The carry also names who paid the pool (`pool_paid`, since it was last won), so
that the pool of a table the service closes can go back to them pro rata
(`pool_refunds`, a house rule of docs/house-rules.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.events import JSON
from domain.ledger import POOL_ACCOUNT, Transfer, player_account, seat_account, transfer

HAND_PAYMENT = "hand_payment"
POOL_WON = "pool_won"
POOL_RETURNED = "pool_returned"
POOL_PAID = "pool_paid"


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


def pool_paid_after(carry: Mapping[str, Any], settlement: Settlement, players: Sequence[str | None]) -> dict[str, JSON]:
    """`settlement.carry` with `pool_paid` brought up to date: one entry {"seat", "player_id", "points"} per seat
    and player that paid into the pool since it was last won, in the order of their first payment; empty once
    the pool is won. A carry written before the pool was tracked (no `pool_paid`) stays without it until its
    pool is empty, as nobody can tell who paid what before."""
    after = {key: value for key, value in settlement.carry.items() if key != POOL_PAID}
    known = carry.get(POOL_PAID)
    if settlement.pool_winner is not None:
        after[POOL_PAID] = []
        return after
    if known is None:
        if int(carry["pool"]) != 0:
            return after
        known = []
    entries = [dict(entry) for entry in known]
    for seat, paid in enumerate(settlement.payments):
        if paid <= 0:
            continue
        player = players[seat] if seat < len(players) else None
        entry = next((e for e in entries if e["seat"] == seat and e["player_id"] == player), None)
        if entry is None:
            entries.append({"seat": seat, "player_id": player, "points": paid})
        else:
            entry["points"] = int(entry["points"]) + paid
    after[POOL_PAID] = entries
    return after


def pool_refunds(carry: Mapping[str, Any]) -> list[Transfer]:
    """The pool back to those who paid into it since it was last won, pro rata to what each paid (the remainder
    of the division to the payer at the lowest seat), as transfers from the pool to each player's own account
    (`player:ID`: nobody holds a seat at a closed table). None when the pool is empty or its payers unknown."""
    pool = int(carry.get("pool", 0))
    entries = [e for e in carry.get(POOL_PAID) or [] if int(e["points"]) > 0 and e.get("player_id")]
    total = sum(int(e["points"]) for e in entries)
    if pool <= 0 or total <= 0:
        return []
    entries.sort(key=lambda e: int(e["seat"]))  # stable: payers of one seat stay in the order they first paid
    shares = [pool * int(e["points"]) // total for e in entries]
    shares[0] += pool - sum(shares)
    by_player: dict[str, int] = {}
    for entry, share in zip(entries, shares, strict=True):
        by_player[str(entry["player_id"])] = by_player.get(str(entry["player_id"]), 0) + share
    return [
        t
        for player, amount in by_player.items()
        for t in transfer(POOL_ACCOUNT, player_account(player), amount, POOL_RETURNED)
    ]
