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
            currency (None | str): the money `net_cents` is in, as the table's options name it (ISO 4217); null: none named
            deals (int):
            game (str):
            name (None | str):
            net_amount (int): in the table's unit
            net_cents (int):
            player_id (None | UUID): null on the pool's row
            shown_as (None | str): the name, with the first 8 digits of the id when another player of the report has it
            table_id (UUID):
            unit (str): the table's unit of account
     """

    account: str
    currency: None | str
    deals: int
    game: str
    name: None | str
    net_amount: int
    net_cents: int
    player_id: None | UUID
    shown_as: None | str
    table_id: UUID
    unit: str





    def to_dict(self) -> dict[str, Any]:
        account = self.account

        currency: None | str
        currency = self.currency

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

        shown_as: None | str
        shown_as = self.shown_as

        table_id = str(self.table_id)

        unit = self.unit


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "account": account,
            "currency": currency,
            "deals": deals,
            "game": game,
            "name": name,
            "net_amount": net_amount,
            "net_cents": net_cents,
            "player_id": player_id,
            "shown_as": shown_as,
            "table_id": table_id,
            "unit": unit,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        account = d.pop("account")

        def _parse_currency(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        currency = _parse_currency(d.pop("currency"))


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


        def _parse_shown_as(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        shown_as = _parse_shown_as(d.pop("shown_as"))


        table_id = UUID(d.pop("table_id"))




        unit = d.pop("unit")

        settlement_row = cls(
            account=account,
            currency=currency,
            deals=deals,
            game=game,
            name=name,
            net_amount=net_amount,
            net_cents=net_cents,
            player_id=player_id,
            shown_as=shown_as,
            table_id=table_id,
            unit=unit,
        )

        return settlement_row

