from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.receipt_check import ReceiptCheck





T = TypeVar("T", bound="ReceiptsSection")



@_attrs_define
class ReceiptsSection:
    """ 
        Attributes:
            checked (int):
            failed (int):
            ignored_other_tables (int): receipts of other tables
            ok (bool):
            results (list[ReceiptCheck]):
            rewritten_history (bool):
     """

    checked: int
    failed: int
    ignored_other_tables: int
    ok: bool
    results: list[ReceiptCheck]
    rewritten_history: bool





    def to_dict(self) -> dict[str, Any]:
        from ..models.receipt_check import ReceiptCheck # noqa: PLC0415
        checked = self.checked

        failed = self.failed

        ignored_other_tables = self.ignored_other_tables

        ok = self.ok

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)



        rewritten_history = self.rewritten_history


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "checked": checked,
            "failed": failed,
            "ignored_other_tables": ignored_other_tables,
            "ok": ok,
            "results": results,
            "rewritten_history": rewritten_history,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.receipt_check import ReceiptCheck # noqa: PLC0415
        d = dict(src_dict)
        checked = d.pop("checked")

        failed = d.pop("failed")

        ignored_other_tables = d.pop("ignored_other_tables")

        ok = d.pop("ok")

        results = []
        _results = d.pop("results")
        for results_item_data in (_results):
            results_item = ReceiptCheck.from_dict(results_item_data)



            results.append(results_item)


        rewritten_history = d.pop("rewritten_history")

        receipts_section = cls(
            checked=checked,
            failed=failed,
            ignored_other_tables=ignored_other_tables,
            ok=ok,
            results=results,
            rewritten_history=rewritten_history,
        )

        return receipts_section

