from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="PlayerSeatedData")



@_attrs_define
class PlayerSeatedData:
    """ 
        Attributes:
            client_seed (str):
            player_id (str):
            seat (int): seat number, from 0
     """

    client_seed: str
    player_id: str
    seat: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        client_seed = self.client_seed

        player_id = self.player_id

        seat = self.seat


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "client_seed": client_seed,
            "player_id": player_id,
            "seat": seat,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        client_seed = d.pop("client_seed")

        player_id = d.pop("player_id")

        seat = d.pop("seat")

        player_seated_data = cls(
            client_seed=client_seed,
            player_id=player_id,
            seat=seat,
        )


        player_seated_data.additional_properties = d
        return player_seated_data

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
