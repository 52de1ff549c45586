from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.opened_table_trick_item_cards_item import check_opened_table_trick_item_cards_item
from ..models.opened_table_trick_item_cards_item import OpenedTableTrickItemCardsItem
from typing import cast






T = TypeVar("T", bound="OpenedTableTrickItem")



@_attrs_define
class OpenedTableTrickItem:
    """ 
        Attributes:
            cards (list[OpenedTableTrickItemCardsItem]):
            seat (int):
     """

    cards: list[OpenedTableTrickItemCardsItem]
    seat: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        cards = []
        for cards_item_data in self.cards:
            cards_item: str = cards_item_data
            cards.append(cards_item)



        seat = self.seat


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "cards": cards,
            "seat": seat,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cards = []
        _cards = d.pop("cards")
        for cards_item_data in (_cards):
            cards_item = check_opened_table_trick_item_cards_item(cards_item_data)



            cards.append(cards_item)


        seat = d.pop("seat")

        opened_table_trick_item = cls(
            cards=cards,
            seat=seat,
        )


        opened_table_trick_item.additional_properties = d
        return opened_table_trick_item

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
