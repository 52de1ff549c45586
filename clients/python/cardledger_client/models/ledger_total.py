from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID






T = TypeVar("T", bound="LedgerTotal")



@_attrs_define
class LedgerTotal:
    """ 
        Attributes:
            account (str):
            amount (int):
            amount_cents (int):
            player_id (None | UUID):
     """

    account: str
    amount: int
    amount_cents: int
    player_id: None | UUID





    def to_dict(self) -> dict[str, Any]:
        account = self.account

        amount = self.amount

        amount_cents = self.amount_cents

        player_id: None | str
        if isinstance(self.player_id, UUID):
            player_id = str(self.player_id)
        else:
            player_id = self.player_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "account": account,
            "amount": amount,
            "amount_cents": amount_cents,
            "player_id": player_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        account = d.pop("account")

        amount = d.pop("amount")

        amount_cents = d.pop("amount_cents")

        def _parse_player_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                player_id_type_0 = UUID(data)



                return player_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        player_id = _parse_player_id(d.pop("player_id"))


        ledger_total = cls(
            account=account,
            amount=amount,
            amount_cents=amount_cents,
            player_id=player_id,
        )

        return ledger_total

