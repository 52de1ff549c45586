from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.capture_action_cards_item import CaptureActionCardsItem
from ..models.capture_action_cards_item import check_capture_action_cards_item
from ..models.capture_action_type import CaptureActionType
from ..models.capture_action_type import check_capture_action_type
from typing import cast






T = TypeVar("T", bound="CaptureAction")



@_attrs_define
class CaptureAction:
    """ Cholek Tiga: take the pending turned-up card with two pool cards.

        Attributes:
            cards (list[CaptureActionCardsItem]):
            type_ (CaptureActionType):
     """

    cards: list[CaptureActionCardsItem]
    type_: CaptureActionType





    def to_dict(self) -> dict[str, Any]:
        cards = []
        for cards_item_data in self.cards:
            cards_item: str = cards_item_data
            cards.append(cards_item)



        type_: str = self.type_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "cards": cards,
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cards = []
        _cards = d.pop("cards")
        for cards_item_data in (_cards):
            cards_item = check_capture_action_cards_item(cards_item_data)



            cards.append(cards_item)


        type_ = check_capture_action_type(d.pop("type"))




        capture_action = cls(
            cards=cards,
            type_=type_,
        )

        return capture_action

