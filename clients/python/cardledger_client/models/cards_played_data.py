from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.cards_played_data_cards_item import CardsPlayedDataCardsItem
from ..models.cards_played_data_cards_item import check_cards_played_data_cards_item
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CardsPlayedData")



@_attrs_define
class CardsPlayedData:
    """ 
        Attributes:
            cards (list[CardsPlayedDataCardsItem]):
            lead (bool):
            seat (int): seat number, from 0
            trick_no (int):
            timed_out (bool | Unset): the turn clock acted for the seat (docs/house-rules.md)
     """

    cards: list[CardsPlayedDataCardsItem]
    lead: bool
    seat: int
    trick_no: int
    timed_out: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        cards = []
        for cards_item_data in self.cards:
            cards_item: str = cards_item_data
            cards.append(cards_item)



        lead = self.lead

        seat = self.seat

        trick_no = self.trick_no

        timed_out = self.timed_out


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "cards": cards,
            "lead": lead,
            "seat": seat,
            "trick_no": trick_no,
        })
        if timed_out is not UNSET:
            field_dict["timed_out"] = timed_out

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cards = []
        _cards = d.pop("cards")
        for cards_item_data in (_cards):
            cards_item = check_cards_played_data_cards_item(cards_item_data)



            cards.append(cards_item)


        lead = d.pop("lead")

        seat = d.pop("seat")

        trick_no = d.pop("trick_no")

        timed_out = d.pop("timed_out", UNSET)

        cards_played_data = cls(
            cards=cards,
            lead=lead,
            seat=seat,
            trick_no=trick_no,
            timed_out=timed_out,
        )


        cards_played_data.additional_properties = d
        return cards_played_data

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
