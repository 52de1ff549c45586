from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="NextDeal")



@_attrs_define
class NextDeal:
    """ 
        Attributes:
            commitment (str): SHA-256 hex of the deal's server seed
            deal_no (int):
     """

    commitment: str
    deal_no: int





    def to_dict(self) -> dict[str, Any]:
        commitment = self.commitment

        deal_no = self.deal_no


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "commitment": commitment,
            "deal_no": deal_no,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        commitment = d.pop("commitment")

        deal_no = d.pop("deal_no")

        next_deal = cls(
            commitment=commitment,
            deal_no=deal_no,
        )

        return next_deal

