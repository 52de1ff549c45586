from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.private_cards import PrivateCards





T = TypeVar("T", bound="HandDealtData")



@_attrs_define
class HandDealtData:
    """ 
        Attributes:
            count (int):
            deck_indexes (list[int]):
            seat (int): seat number, from 0
            private (PrivateCards | Unset): The hidden part of a dealing event: only for the seat holding the cards until
                the deal ends.
            private_commitment (str | Unset): hash version 2: SHA-256 (hex) of the private block's canonical JSON, salt
                included
     """

    count: int
    deck_indexes: list[int]
    seat: int
    private: PrivateCards | Unset = UNSET
    private_commitment: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.private_cards import PrivateCards # noqa: PLC0415
        count = self.count

        deck_indexes = self.deck_indexes



        seat = self.seat

        private: dict[str, Any] | Unset = UNSET
        if not isinstance(self.private, Unset):
            private = self.private.to_dict()

        private_commitment = self.private_commitment


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "count": count,
            "deck_indexes": deck_indexes,
            "seat": seat,
        })
        if private is not UNSET:
            field_dict["private"] = private
        if private_commitment is not UNSET:
            field_dict["private_commitment"] = private_commitment

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.private_cards import PrivateCards # noqa: PLC0415
        d = dict(src_dict)
        count = d.pop("count")

        deck_indexes = cast(list[int], d.pop("deck_indexes"))


        seat = d.pop("seat")

        _private = d.pop("private", UNSET)
        private: PrivateCards | Unset
        if isinstance(_private,  Unset):
            private = UNSET
        else:
            private = PrivateCards.from_dict(_private)




        private_commitment = d.pop("private_commitment", UNSET)

        hand_dealt_data = cls(
            count=count,
            deck_indexes=deck_indexes,
            seat=seat,
            private=private,
            private_commitment=private_commitment,
        )


        hand_dealt_data.additional_properties = d
        return hand_dealt_data

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
