from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.card_turned_up_data_card import CardTurnedUpDataCard
from ..models.card_turned_up_data_card import check_card_turned_up_data_card
from ..models.card_turned_up_data_cards_item import CardTurnedUpDataCardsItem
from ..models.card_turned_up_data_cards_item import check_card_turned_up_data_cards_item
from typing import cast






T = TypeVar("T", bound="CardTurnedUpData")



@_attrs_define
class CardTurnedUpData:
    """ 
        Attributes:
            can_capture (bool): true: the seat must capture with it or pass
            card (CardTurnedUpDataCard): a Cherki card code (docs/rules.md)
            cards (list[CardTurnedUpDataCardsItem]):
            deck_indexes (list[int]):
            seat (int): seat number, from 0
     """

    can_capture: bool
    card: CardTurnedUpDataCard
    cards: list[CardTurnedUpDataCardsItem]
    deck_indexes: list[int]
    seat: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        can_capture = self.can_capture

        card: str = self.card

        cards = []
        for cards_item_data in self.cards:
            cards_item: str = cards_item_data
            cards.append(cards_item)



        deck_indexes = self.deck_indexes



        seat = self.seat


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "can_capture": can_capture,
            "card": card,
            "cards": cards,
            "deck_indexes": deck_indexes,
            "seat": seat,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        can_capture = d.pop("can_capture")

        card = check_card_turned_up_data_card(d.pop("card"))




        cards = []
        _cards = d.pop("cards")
        for cards_item_data in (_cards):
            cards_item = check_card_turned_up_data_cards_item(cards_item_data)



            cards.append(cards_item)


        deck_indexes = cast(list[int], d.pop("deck_indexes"))


        seat = d.pop("seat")

        card_turned_up_data = cls(
            can_capture=can_capture,
            card=card,
            cards=cards,
            deck_indexes=deck_indexes,
            seat=seat,
        )


        card_turned_up_data.additional_properties = d
        return card_turned_up_data

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
