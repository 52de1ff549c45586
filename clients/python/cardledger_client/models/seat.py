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
  from ..models.seat_view import SeatView





T = TypeVar("T", bound="Seat")



@_attrs_define
class Seat:
    """ 
        Attributes:
            receipt (Receipt): The service's signed word that a write appended the event `hash` at `version` of the table.
            seat (int):
            version (int | Unset):
            view (SeatView | Unset):
     """

    receipt: Receipt
    seat: int
    version: int | Unset = UNSET
    view: SeatView | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.receipt import Receipt # noqa: PLC0415
        from ..models.seat_view import SeatView # noqa: PLC0415
        receipt = self.receipt.to_dict()

        seat = self.seat

        version = self.version

        view: dict[str, Any] | Unset = UNSET
        if not isinstance(self.view, Unset):
            view = self.view.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "receipt": receipt,
            "seat": seat,
        })
        if version is not UNSET:
            field_dict["version"] = version
        if view is not UNSET:
            field_dict["view"] = view

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.receipt import Receipt # noqa: PLC0415
        from ..models.seat_view import SeatView # noqa: PLC0415
        d = dict(src_dict)
        receipt = Receipt.from_dict(d.pop("receipt"))




        seat = d.pop("seat")

        version = d.pop("version", UNSET)

        _view = d.pop("view", UNSET)
        view: SeatView | Unset
        if isinstance(_view,  Unset):
            view = UNSET
        else:
            view = SeatView.from_dict(_view)




        seat = cls(
            receipt=receipt,
            seat=seat,
            version=version,
            view=view,
        )

        return seat

