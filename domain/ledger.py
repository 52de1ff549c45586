"""Money moves as transfers; each transfer is a debit of the payer and a credit of the payee.

Accounts are strings: "seat:N" for the player seated at seat N when the transfer is made (the players of the
deal it belongs to), "pool" for the Cha Kau Tsz pool, and "player:ID" for player ID by name, who need not
hold a seat (the pool of an abandoned table goes back to its payers that way).
Amounts are positive integers in the deal's unit (cents or chip points).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from domain.events import JSON

POOL_ACCOUNT = "pool"


SEAT_PREFIX = "seat:"
PLAYER_PREFIX = "player:"


def seat_account(seat: int) -> str:
    return f"{SEAT_PREFIX}{seat}"


def player_account(player_id: str) -> str:
    return f"{PLAYER_PREFIX}{player_id}"


def account_player(account: str, players: Sequence[str | None]) -> str | None:
    """The player an account names: "player:ID" names ID; "seat:N" the player at seat N in `players` (the players
    of the deal the transfer belongs to); the pool or an empty seat, nobody."""
    if account.startswith(PLAYER_PREFIX):
        return account.removeprefix(PLAYER_PREFIX)
    if account.startswith(SEAT_PREFIX):
        try:
            seat = int(account.removeprefix(SEAT_PREFIX))
        except ValueError:
            return None
        return players[seat] if 0 <= seat < len(players) else None
    return None


@dataclass(frozen=True, slots=True)
class Transfer:
    payer: str
    payee: str
    amount: int
    reason: str

    def __post_init__(self) -> None:
        if self.amount <= 0:
            raise ValueError(f"transfer amount must be positive, got {self.amount}")
        if self.payer == self.payee:
            raise ValueError(f"transfer from {self.payer} to itself")

    def entries(self) -> tuple[tuple[str, int], tuple[str, int]]:
        """The two ledger lines: the payer debited, the payee credited."""
        return ((self.payer, -self.amount), (self.payee, self.amount))

    def to_json(self) -> dict[str, JSON]:
        return {"payer": self.payer, "payee": self.payee, "amount": self.amount, "reason": self.reason}

    @staticmethod
    def from_json(raw: Mapping[str, JSON]) -> Transfer:
        return Transfer(str(raw["payer"]), str(raw["payee"]), int(raw["amount"]), str(raw["reason"]))


def net_by_account(transfers: Iterable[Transfer]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for transfer in transfers:
        for account, amount in transfer.entries():
            totals[account] = totals.get(account, 0) + amount
    return totals


def transfer(payer: str, payee: str, amount: int, reason: str) -> list[Transfer]:
    """A transfer as a list, empty when the amount is zero (so callers can concatenate)."""
    return [Transfer(payer, payee, amount, reason)] if amount > 0 else []
