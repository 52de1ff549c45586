"""Money of a Cholek Tiga game in integer cents (docs/rules.md, "Cholek Tiga", Settlement), and the next first seat."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from domain.cards import CHERKI_RED_STAMPED
from domain.cholek_tiga.scoring import type_counts
from domain.ledger import Transfer, seat_account, transfer

ANG_POW_CENTS = 100  # exactly three of a red-stamped type, from each other player
ANG_POW_BESAR_CENTS = 200  # all four
BONUS_CENTS = {"ayam": 50, "kandang": 100}  # in-play: three identical cards captured by a hand / turned-up card


def point_transfers(scores: Sequence[int], point_value_cents: int) -> list[Transfer]:
    """Every player below the top pays (top - score) * point value, split equally among the tied top
    players; the remainder cents go to the tied player earliest in turn order from seat 0."""
    top = max(scores)
    winners = [seat for seat, score in enumerate(scores) if score == top]
    transfers: list[Transfer] = []
    for seat, score in enumerate(scores):
        if score == top:
            continue
        owed = (top - score) * point_value_cents
        share, remainder = divmod(owed, len(winners))
        for place, winner in enumerate(winners):
            amount = share + (remainder if place == 0 else 0)
            transfers += transfer(seat_account(seat), seat_account(winner), amount, "points")
    return transfers


def ang_pow_transfers(piles: Sequence[Iterable[str]]) -> list[Transfer]:
    transfers: list[Transfer] = []
    players = len(piles)
    for seat, pile in enumerate(piles):
        counts = type_counts(pile)
        for card in sorted(CHERKI_RED_STAMPED):
            if counts[card] == 3:
                amount, reason = ANG_POW_CENTS, "ang_pow"
            elif counts[card] == 4:
                amount, reason = ANG_POW_BESAR_CENTS, "ang_pow_besar"
            else:
                continue
            for other in range(players):
                if other != seat:
                    transfers += transfer(seat_account(other), seat_account(seat), amount, reason)
    return transfers


def bonus_transfers(seat: int, players: int, kind: str) -> list[Transfer]:
    """An in-play bonus ("ayam" or "kandang") paid to `seat` by each other player."""
    amount = BONUS_CENTS[kind]
    return [
        Transfer(seat_account(other), seat_account(seat), amount, kind) for other in range(players) if other != seat
    ]


def net_by_seat(transfers: Iterable[Transfer], players: int) -> list[int]:
    net = [0] * players
    accounts = {seat_account(seat): seat for seat in range(players)}
    for paid in transfers:
        net[accounts[paid.payer]] -= paid.amount
        net[accounts[paid.payee]] += paid.amount
    return net


def next_first_seat(scores: Sequence[int], first_seat: int) -> int:
    """The lowest scorer moves first next game; ties go to the earliest in turn order from `first_seat`."""
    players = len(scores)
    order = [(first_seat + step) % players for step in range(players)]
    return min(order, key=lambda seat: scores[seat])
