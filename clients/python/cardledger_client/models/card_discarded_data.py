from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.card_discarded_data_capture_type_0_item import CardDiscardedDataCaptureType0Item
from ..models.card_discarded_data_capture_type_0_item import check_card_discarded_data_capture_type_0_item
from ..models.card_discarded_data_card import CardDiscardedDataCard
from ..models.card_discarded_data_card import check_card_discarded_data_card
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CardDiscardedData")



@_attrs_define
class CardDiscardedData:
    """ 
        Attributes:
            capture (list[CardDiscardedDataCaptureType0Item] | None):
            card (CardDiscardedDataCard): a Cherki card code (docs/rules.md)
            seat (int): seat number, from 0
            timed_out (bool | Unset): the turn clock acted for the seat (docs/house-rules.md)
     """

    capture: list[CardDiscardedDataCaptureType0Item] | None
    card: CardDiscardedDataCard
    seat: int
    timed_out: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        capture: list[str] | None
        if isinstance(self.capture, list):
            capture = []
            for capture_type_0_item_data in self.capture:
                capture_type_0_item: str = capture_type_0_item_data
                capture.append(capture_type_0_item)


        else:
            capture = self.capture

        card: str = self.card

        seat = self.seat

        timed_out = self.timed_out


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "capture": capture,
            "card": card,
            "seat": seat,
        })
        if timed_out is not UNSET:
            field_dict["timed_out"] = timed_out

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_capture(data: object) -> list[CardDiscardedDataCaptureType0Item] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                capture_type_0 = []
                _capture_type_0 = data
                for capture_type_0_item_data in (_capture_type_0):
                    capture_type_0_item = check_card_discarded_data_capture_type_0_item(capture_type_0_item_data)



                    capture_type_0.append(capture_type_0_item)

                return capture_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[CardDiscardedDataCaptureType0Item] | None, data)

        capture = _parse_capture(d.pop("capture"))


        card = check_card_discarded_data_card(d.pop("card"))




        seat = d.pop("seat")

        timed_out = d.pop("timed_out", UNSET)

        card_discarded_data = cls(
            capture=capture,
            card=card,
            seat=seat,
            timed_out=timed_out,
        )


        card_discarded_data.additional_properties = d
        return card_discarded_data

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
