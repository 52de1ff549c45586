from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.play_choice_cards_item import check_play_choice_cards_item
from ..models.play_choice_cards_item import PlayChoiceCardsItem
from ..models.play_choice_type import check_play_choice_type
from ..models.play_choice_type import PlayChoiceType
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PlayChoice")



@_attrs_define
class PlayChoice:
    """ Cha Kau Tsz: on lead, a complete body (`cards`); on a follow, how many cards to play (`count`).

        Attributes:
            type_ (PlayChoiceType):
            cards (list[PlayChoiceCardsItem] | Unset): on lead: a legal lead
            count (int | Unset): on a follow: play this many cards of your hand
     """

    type_: PlayChoiceType
    cards: list[PlayChoiceCardsItem] | Unset = UNSET
    count: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        type_: str = self.type_

        cards: list[str] | Unset = UNSET
        if not isinstance(self.cards, Unset):
            cards = []
            for cards_item_data in self.cards:
                cards_item: str = cards_item_data
                cards.append(cards_item)



        count = self.count


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
        })
        if cards is not UNSET:
            field_dict["cards"] = cards
        if count is not UNSET:
            field_dict["count"] = count

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = check_play_choice_type(d.pop("type"))




        _cards = d.pop("cards", UNSET)
        cards: list[PlayChoiceCardsItem] | Unset = UNSET
        if _cards is not UNSET:
            cards = []
            for cards_item_data in _cards:
                cards_item = check_play_choice_cards_item(cards_item_data)



                cards.append(cards_item)


        count = d.pop("count", UNSET)

        play_choice = cls(
            type_=type_,
            cards=cards,
            count=count,
        )

        return play_choice

