from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.private_cards_cards_item import check_private_cards_cards_item
from ..models.private_cards_cards_item import PrivateCardsCardsItem
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PrivateCards")



@_attrs_define
class PrivateCards:
    """ The hidden part of a dealing event: only for the seat holding the cards until the deal ends.

        Attributes:
            cards (list[PrivateCardsCardsItem]):
            salt (str | Unset): hash version 2: 64 hex digits, so the commitment cannot be guessed
     """

    cards: list[PrivateCardsCardsItem]
    salt: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        cards = []
        for cards_item_data in self.cards:
            cards_item: str = cards_item_data
            cards.append(cards_item)



        salt = self.salt


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "cards": cards,
        })
        if salt is not UNSET:
            field_dict["salt"] = salt

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cards = []
        _cards = d.pop("cards")
        for cards_item_data in (_cards):
            cards_item = check_private_cards_cards_item(cards_item_data)



            cards.append(cards_item)


        salt = d.pop("salt", UNSET)

        private_cards = cls(
            cards=cards,
            salt=salt,
        )


        private_cards.additional_properties = d
        return private_cards

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
