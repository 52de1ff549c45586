from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="HandStartedData")



@_attrs_define
class HandStartedData:
    """ 
        Attributes:
            dealer (int): seat number, from 0
            hand_no (int):
            hand_size (int):
            leader (int): seat number, from 0
            pool_game (int):
     """

    dealer: int
    hand_no: int
    hand_size: int
    leader: int
    pool_game: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        dealer = self.dealer

        hand_no = self.hand_no

        hand_size = self.hand_size

        leader = self.leader

        pool_game = self.pool_game


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "dealer": dealer,
            "hand_no": hand_no,
            "hand_size": hand_size,
            "leader": leader,
            "pool_game": pool_game,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        dealer = d.pop("dealer")

        hand_no = d.pop("hand_no")

        hand_size = d.pop("hand_size")

        leader = d.pop("leader")

        pool_game = d.pop("pool_game")

        hand_started_data = cls(
            dealer=dealer,
            hand_no=hand_no,
            hand_size=hand_size,
            leader=leader,
            pool_game=pool_game,
        )


        hand_started_data.additional_properties = d
        return hand_started_data

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
