from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.turn_up_passed_data_card import check_turn_up_passed_data_card
from ..models.turn_up_passed_data_card import TurnUpPassedDataCard
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="TurnUpPassedData")



@_attrs_define
class TurnUpPassedData:
    """ 
        Attributes:
            card (TurnUpPassedDataCard): a Cherki card code (docs/rules.md)
            seat (int): seat number, from 0
            timed_out (bool | Unset): the turn clock acted for the seat (docs/house-rules.md)
     """

    card: TurnUpPassedDataCard
    seat: int
    timed_out: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        card: str = self.card

        seat = self.seat

        timed_out = self.timed_out


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "card": card,
            "seat": seat,
        })
        if timed_out is not UNSET:
            field_dict["timed_out"] = timed_out

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        card = check_turn_up_passed_data_card(d.pop("card"))




        seat = d.pop("seat")

        timed_out = d.pop("timed_out", UNSET)

        turn_up_passed_data = cls(
            card=card,
            seat=seat,
            timed_out=timed_out,
        )


        turn_up_passed_data.additional_properties = d
        return turn_up_passed_data

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
