from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.receipt import Receipt





T = TypeVar("T", bound="Seat")



@_attrs_define
class Seat:
    """ 
        Attributes:
            receipt (Receipt): The service's signed word that a write appended the event `hash` at `version` of the table.
            seat (int):
            version (int | Unset):
     """

    receipt: Receipt
    seat: int
    version: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.receipt import Receipt # noqa: PLC0415
        receipt = self.receipt.to_dict()

        seat = self.seat

        version = self.version


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "receipt": receipt,
            "seat": seat,
        })
        if version is not UNSET:
            field_dict["version"] = version

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.receipt import Receipt # noqa: PLC0415
        d = dict(src_dict)
        receipt = Receipt.from_dict(d.pop("receipt"))




        seat = d.pop("seat")

        version = d.pop("version", UNSET)

        seat = cls(
            receipt=receipt,
            seat=seat,
            version=version,
        )

        return seat

