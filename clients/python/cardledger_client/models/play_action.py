from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.play_action_cards_item import PlayActionCardsItem
from ..models.play_action_type import PlayActionType
from typing import cast






T = TypeVar("T", bound="PlayAction")



@_attrs_define
class PlayAction:
    """ Cha Kau Tsz: lead a combination, or follow with as many cards as were led.

        Attributes:
            cards (list[PlayActionCardsItem]):
            type_ (PlayActionType):
     """

    cards: list[PlayActionCardsItem]
    type_: PlayActionType





    def to_dict(self) -> dict[str, Any]:
        cards = []
        for cards_item_data in self.cards:
            cards_item = cards_item_data.value
            cards.append(cards_item)



        type_ = self.type_.value


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
            cards_item = PlayActionCardsItem(cards_item_data)



            cards.append(cards_item)


        type_ = PlayActionType(d.pop("type"))




        play_action = cls(
            cards=cards,
            type_=type_,
        )

        return play_action

