from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID






T = TypeVar("T", bound="SettlementDiscrepancy")



@_attrs_define
class SettlementDiscrepancy:
    """ 
        Attributes:
            deal_no (int):
            result_net (list[int]):
            table_id (UUID):
            transfers_net (list[int]):
     """

    deal_no: int
    result_net: list[int]
    table_id: UUID
    transfers_net: list[int]





    def to_dict(self) -> dict[str, Any]:
        deal_no = self.deal_no

        result_net = self.result_net



        table_id = str(self.table_id)

        transfers_net = self.transfers_net




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "deal_no": deal_no,
            "result_net": result_net,
            "table_id": table_id,
            "transfers_net": transfers_net,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        deal_no = d.pop("deal_no")

        result_net = cast(list[int], d.pop("result_net"))


        table_id = UUID(d.pop("table_id"))




        transfers_net = cast(list[int], d.pop("transfers_net"))


        settlement_discrepancy = cls(
            deal_no=deal_no,
            result_net=result_net,
            table_id=table_id,
            transfers_net=transfers_net,
        )

        return settlement_discrepancy

