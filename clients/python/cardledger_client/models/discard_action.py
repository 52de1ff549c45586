from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.discard_action_capture_type_0_item import check_discard_action_capture_type_0_item
from ..models.discard_action_capture_type_0_item import DiscardActionCaptureType0Item
from ..models.discard_action_card import check_discard_action_card
from ..models.discard_action_card import DiscardActionCard
from ..models.discard_action_type import check_discard_action_type
from ..models.discard_action_type import DiscardActionType
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="DiscardAction")



@_attrs_define
class DiscardAction:
    """ Cholek Tiga: discard a card of your hand, taking with it a pair from the pool (`capture`) or nothing.

        Attributes:
            card (DiscardActionCard): a Cherki card code (docs/rules.md)
            type_ (DiscardActionType):
            capture (list[DiscardActionCaptureType0Item] | None | Unset): the two pool cards taken with the discard; null or
                absent: none
     """

    card: DiscardActionCard
    type_: DiscardActionType
    capture: list[DiscardActionCaptureType0Item] | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        card: str = self.card

        type_: str = self.type_

        capture: list[str] | None | Unset
        if isinstance(self.capture, Unset):
            capture = UNSET
        elif isinstance(self.capture, list):
            capture = []
            for capture_type_0_item_data in self.capture:
                capture_type_0_item: str = capture_type_0_item_data
                capture.append(capture_type_0_item)


        else:
            capture = self.capture


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "card": card,
            "type": type_,
        })
        if capture is not UNSET:
            field_dict["capture"] = capture

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        card = check_discard_action_card(d.pop("card"))




        type_ = check_discard_action_type(d.pop("type"))




        def _parse_capture(data: object) -> list[DiscardActionCaptureType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                capture_type_0 = []
                _capture_type_0 = data
                for capture_type_0_item_data in (_capture_type_0):
                    capture_type_0_item = check_discard_action_capture_type_0_item(capture_type_0_item_data)



                    capture_type_0.append(capture_type_0_item)

                return capture_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[DiscardActionCaptureType0Item] | None | Unset, data)

        capture = _parse_capture(d.pop("capture", UNSET))


        discard_action = cls(
            card=card,
            type_=type_,
            capture=capture,
        )

        return discard_action

