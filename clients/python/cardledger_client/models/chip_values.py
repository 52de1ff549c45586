from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ChipValues")



@_attrs_define
class ChipValues:
    """ 
        Attributes:
            blue (int):
            red (int):
            white (int):
     """

    blue: int
    red: int
    white: int





    def to_dict(self) -> dict[str, Any]:
        blue = self.blue

        red = self.red

        white = self.white


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "blue": blue,
            "red": red,
            "white": white,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        blue = d.pop("blue")

        red = d.pop("red")

        white = d.pop("white")

        chip_values = cls(
            blue=blue,
            red=red,
            white=white,
        )

        return chip_values

