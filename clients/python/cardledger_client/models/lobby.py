from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.table import Table





T = TypeVar("T", bound="Lobby")



@_attrs_define
class Lobby:
    """ 
        Attributes:
            next_after (int | None): cursor for the next page, null on the last
            tables (list[Table]):
     """

    next_after: int | None
    tables: list[Table]





    def to_dict(self) -> dict[str, Any]:
        from ..models.table import Table # noqa: PLC0415
        next_after: int | None
        next_after = self.next_after

        tables = []
        for tables_item_data in self.tables:
            tables_item = tables_item_data.to_dict()
            tables.append(tables_item)




        field_dict: dict[str, Any] = {}

        field_dict.update({
            "next_after": next_after,
            "tables": tables,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.table import Table # noqa: PLC0415
        d = dict(src_dict)
        def _parse_next_after(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        next_after = _parse_next_after(d.pop("next_after"))


        tables = []
        _tables = d.pop("tables")
        for tables_item_data in (_tables):
            tables_item = Table.from_dict(tables_item_data)



            tables.append(tables_item)


        lobby = cls(
            next_after=next_after,
            tables=tables,
        )

        return lobby

