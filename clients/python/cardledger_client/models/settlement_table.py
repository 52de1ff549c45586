from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from uuid import UUID






T = TypeVar("T", bound="SettlementTable")



@_attrs_define
class SettlementTable:
    """ 
        Attributes:
            deals (int):
            game (str):
            net_cents_shown (int): the sum of the rows shown
            table_id (UUID):
     """

    deals: int
    game: str
    net_cents_shown: int
    table_id: UUID





    def to_dict(self) -> dict[str, Any]:
        deals = self.deals

        game = self.game

        net_cents_shown = self.net_cents_shown

        table_id = str(self.table_id)


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "deals": deals,
            "game": game,
            "net_cents_shown": net_cents_shown,
            "table_id": table_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        deals = d.pop("deals")

        game = d.pop("game")

        net_cents_shown = d.pop("net_cents_shown")

        table_id = UUID(d.pop("table_id"))




        settlement_table = cls(
            deals=deals,
            game=game,
            net_cents_shown=net_cents_shown,
            table_id=table_id,
        )

        return settlement_table

