from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="HandScoredData")



@_attrs_define
class HandScoredData:
    """ 
        Attributes:
            hand_no (int):
            most (int):
            payments (list[int]): points each seat pays into the pool
            pool_winner (int | None):
            pool_won (int):
            tricks (list[int]): by seat
     """

    hand_no: int
    most: int
    payments: list[int]
    pool_winner: int | None
    pool_won: int
    tricks: list[int]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        hand_no = self.hand_no

        most = self.most

        payments = self.payments



        pool_winner: int | None
        pool_winner = self.pool_winner

        pool_won = self.pool_won

        tricks = self.tricks




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "hand_no": hand_no,
            "most": most,
            "payments": payments,
            "pool_winner": pool_winner,
            "pool_won": pool_won,
            "tricks": tricks,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        hand_no = d.pop("hand_no")

        most = d.pop("most")

        payments = cast(list[int], d.pop("payments"))


        def _parse_pool_winner(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        pool_winner = _parse_pool_winner(d.pop("pool_winner"))


        pool_won = d.pop("pool_won")

        tricks = cast(list[int], d.pop("tricks"))


        hand_scored_data = cls(
            hand_no=hand_no,
            most=most,
            payments=payments,
            pool_winner=pool_winner,
            pool_won=pool_won,
            tricks=tricks,
        )


        hand_scored_data.additional_properties = d
        return hand_scored_data

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
