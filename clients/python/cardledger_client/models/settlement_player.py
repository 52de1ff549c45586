from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID






T = TypeVar("T", bound="SettlementPlayer")



@_attrs_define
class SettlementPlayer:
    """ 
        Attributes:
            name (None | str):
            net_cents (int):
            player_id (UUID):
            tables (int): tables the player has rows at
     """

    name: None | str
    net_cents: int
    player_id: UUID
    tables: int





    def to_dict(self) -> dict[str, Any]:
        name: None | str
        name = self.name

        net_cents = self.net_cents

        player_id = str(self.player_id)

        tables = self.tables


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "net_cents": net_cents,
            "player_id": player_id,
            "tables": tables,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))


        net_cents = d.pop("net_cents")

        player_id = UUID(d.pop("player_id"))




        tables = d.pop("tables")

        settlement_player = cls(
            name=name,
            net_cents=net_cents,
            player_id=player_id,
            tables=tables,
        )

        return settlement_player

