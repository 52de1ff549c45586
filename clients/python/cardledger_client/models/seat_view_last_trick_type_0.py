from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.seat_view_last_trick_type_0_plays_item import SeatViewLastTrickType0PlaysItem





T = TypeVar("T", bound="SeatViewLastTrickType0")



@_attrs_define
class SeatViewLastTrickType0:
    """ Cha Kau Tsz: the trick before, with its winner and the tricks it credited

        Attributes:
            plays (list[SeatViewLastTrickType0PlaysItem]):
            trick_no (int):
            tricks (int):
            winner (int):
     """

    plays: list[SeatViewLastTrickType0PlaysItem]
    trick_no: int
    tricks: int
    winner: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.seat_view_last_trick_type_0_plays_item import SeatViewLastTrickType0PlaysItem # noqa: PLC0415
        plays = []
        for plays_item_data in self.plays:
            plays_item = plays_item_data.to_dict()
            plays.append(plays_item)



        trick_no = self.trick_no

        tricks = self.tricks

        winner = self.winner


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "plays": plays,
            "trick_no": trick_no,
            "tricks": tricks,
            "winner": winner,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.seat_view_last_trick_type_0_plays_item import SeatViewLastTrickType0PlaysItem # noqa: PLC0415
        d = dict(src_dict)
        plays = []
        _plays = d.pop("plays")
        for plays_item_data in (_plays):
            plays_item = SeatViewLastTrickType0PlaysItem.from_dict(plays_item_data)



            plays.append(plays_item)


        trick_no = d.pop("trick_no")

        tricks = d.pop("tricks")

        winner = d.pop("winner")

        seat_view_last_trick_type_0 = cls(
            plays=plays,
            trick_no=trick_no,
            tricks=tricks,
            winner=winner,
        )


        seat_view_last_trick_type_0.additional_properties = d
        return seat_view_last_trick_type_0

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
