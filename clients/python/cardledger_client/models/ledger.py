from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.ledger_line import LedgerLine
  from ..models.ledger_total import LedgerTotal





T = TypeVar("T", bound="Ledger")



@_attrs_define
class Ledger:
    """ A page of the table's ledger lines, with the totals of the whole table (every line, not just the page's).

        Attributes:
            balanced (bool): the whole table's lines sum to zero
            game (str):
            line_count (int): lines of the whole table
            lines (list[LedgerLine]): in log order
            next_after (None | str): cursor of the next page (pass it as `after`), null on the last
            sum_amount (int): the whole table
            sum_cents (int): the whole table
            table_id (UUID):
            totals (list[LedgerTotal]): by account, the whole table
            unit (str):
     """

    balanced: bool
    game: str
    line_count: int
    lines: list[LedgerLine]
    next_after: None | str
    sum_amount: int
    sum_cents: int
    table_id: UUID
    totals: list[LedgerTotal]
    unit: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.ledger_line import LedgerLine # noqa: PLC0415
        from ..models.ledger_total import LedgerTotal # noqa: PLC0415
        balanced = self.balanced

        game = self.game

        line_count = self.line_count

        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)



        next_after: None | str
        next_after = self.next_after

        sum_amount = self.sum_amount

        sum_cents = self.sum_cents

        table_id = str(self.table_id)

        totals = []
        for totals_item_data in self.totals:
            totals_item = totals_item_data.to_dict()
            totals.append(totals_item)



        unit = self.unit


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "balanced": balanced,
            "game": game,
            "line_count": line_count,
            "lines": lines,
            "next_after": next_after,
            "sum_amount": sum_amount,
            "sum_cents": sum_cents,
            "table_id": table_id,
            "totals": totals,
            "unit": unit,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ledger_line import LedgerLine # noqa: PLC0415
        from ..models.ledger_total import LedgerTotal # noqa: PLC0415
        d = dict(src_dict)
        balanced = d.pop("balanced")

        game = d.pop("game")

        line_count = d.pop("line_count")

        lines = []
        _lines = d.pop("lines")
        for lines_item_data in (_lines):
            lines_item = LedgerLine.from_dict(lines_item_data)



            lines.append(lines_item)


        def _parse_next_after(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_after = _parse_next_after(d.pop("next_after"))


        sum_amount = d.pop("sum_amount")

        sum_cents = d.pop("sum_cents")

        table_id = UUID(d.pop("table_id"))




        totals = []
        _totals = d.pop("totals")
        for totals_item_data in (_totals):
            totals_item = LedgerTotal.from_dict(totals_item_data)



            totals.append(totals_item)


        unit = d.pop("unit")

        ledger = cls(
            balanced=balanced,
            game=game,
            line_count=line_count,
            lines=lines,
            next_after=next_after,
            sum_amount=sum_amount,
            sum_cents=sum_cents,
            table_id=table_id,
            totals=totals,
            unit=unit,
        )


        ledger.additional_properties = d
        return ledger

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
