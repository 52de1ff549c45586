"""Money moves as transfers; each transfer is a debit of the payer and a credit of the payee.

Accounts are strings: "seat:N" for a seated player, "pool" for the Cha Kau Tsz pool.
Amounts are positive integers in the deal's unit (cents or chip points).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from domain.events import JSON

POOL_ACCOUNT = "pool"


def seat_account(seat: int) -> str:
    return f"seat:{seat}"


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
