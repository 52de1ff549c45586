from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.turn_up_captured_data_capture_item import check_turn_up_captured_data_capture_item
from ..models.turn_up_captured_data_capture_item import TurnUpCapturedDataCaptureItem
from ..models.turn_up_captured_data_card import check_turn_up_captured_data_card
from ..models.turn_up_captured_data_card import TurnUpCapturedDataCard
from typing import cast






T = TypeVar("T", bound="TurnUpCapturedData")



@_attrs_define
class TurnUpCapturedData:
    """ 
        Attributes:
            capture (list[TurnUpCapturedDataCaptureItem]):
            card (TurnUpCapturedDataCard): a Cherki card code (docs/rules.md)
            seat (int): seat number, from 0
     """

    capture: list[TurnUpCapturedDataCaptureItem]
    card: TurnUpCapturedDataCard
    seat: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        capture = []
        for capture_item_data in self.capture:
            capture_item: str = capture_item_data
            capture.append(capture_item)



        card: str = self.card

        seat = self.seat


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "capture": capture,
            "card": card,
            "seat": seat,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        capture = []
        _capture = d.pop("capture")
        for capture_item_data in (_capture):
            capture_item = check_turn_up_captured_data_capture_item(capture_item_data)



            capture.append(capture_item)


        card = check_turn_up_captured_data_card(d.pop("card"))




        seat = d.pop("seat")

        turn_up_captured_data = cls(
            capture=capture,
            card=card,
            seat=seat,
        )


        turn_up_captured_data.additional_properties = d
        return turn_up_captured_data

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
