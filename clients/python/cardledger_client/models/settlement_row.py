from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID






T = TypeVar("T", bound="SettlementRow")



@_attrs_define
class SettlementRow:
    """ 
        Attributes:
            account (str): `seat:N`, `pool` or `player:<id>`
            deals (int):
            game (str):
            name (None | str):
            net_amount (int): in the table's unit
            net_cents (int):
            player_id (None | UUID): null on the pool's row
            table_id (UUID):
            unit (str): the table's unit of account
     """

    account: str
    deals: int
    game: str
    name: None | str
    net_amount: int
    net_cents: int
    player_id: None | UUID
    table_id: UUID
    unit: str





    def to_dict(self) -> dict[str, Any]:
        account = self.account

        deals = self.deals

        game = self.game

        name: None | str
        name = self.name

        net_amount = self.net_amount

        net_cents = self.net_cents

        player_id: None | str
        if isinstance(self.player_id, UUID):
            player_id = str(self.player_id)
        else:
            player_id = self.player_id

        table_id = str(self.table_id)

        unit = self.unit


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "account": account,
            "deals": deals,
            "game": game,
            "name": name,
            "net_amount": net_amount,
            "net_cents": net_cents,
            "player_id": player_id,
            "table_id": table_id,
            "unit": unit,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        account = d.pop("account")

        deals = d.pop("deals")

        game = d.pop("game")

        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))


        net_amount = d.pop("net_amount")

        net_cents = d.pop("net_cents")

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


        table_id = UUID(d.pop("table_id"))




        unit = d.pop("unit")

        settlement_row = cls(
            account=account,
            deals=deals,
            game=game,
            name=name,
            net_amount=net_amount,
            net_cents=net_cents,
            player_id=player_id,
            table_id=table_id,
            unit=unit,
        )

        return settlement_row

