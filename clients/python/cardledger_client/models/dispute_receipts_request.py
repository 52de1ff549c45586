from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.receipt import Receipt





T = TypeVar("T", bound="DisputeReceiptsRequest")



@_attrs_define
class DisputeReceiptsRequest:
    """ 
        Attributes:
            deal_no (int):
            receipts (list[Receipt]): receipts kept by the caller (at most 1000)
            table_id (UUID):
     """

    deal_no: int
    receipts: list[Receipt]
    table_id: UUID





    def to_dict(self) -> dict[str, Any]:
        from ..models.receipt import Receipt # noqa: PLC0415
        deal_no = self.deal_no

        receipts = []
        for receipts_item_data in self.receipts:
            receipts_item = receipts_item_data.to_dict()
            receipts.append(receipts_item)



        table_id = str(self.table_id)


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "deal_no": deal_no,
            "receipts": receipts,
            "table_id": table_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.receipt import Receipt # noqa: PLC0415
        d = dict(src_dict)
        deal_no = d.pop("deal_no")

        receipts = []
        _receipts = d.pop("receipts")
        for receipts_item_data in (_receipts):
            receipts_item = Receipt.from_dict(receipts_item_data)



            receipts.append(receipts_item)


        table_id = UUID(d.pop("table_id"))




        dispute_receipts_request = cls(
            deal_no=deal_no,
            receipts=receipts,
            table_id=table_id,
        )

        return dispute_receipts_request

