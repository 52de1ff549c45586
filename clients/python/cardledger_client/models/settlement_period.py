from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="SettlementPeriod")



@_attrs_define
class SettlementPeriod:
    """ 
        Attributes:
            bounds (str):
            from_ (datetime.datetime | None): inclusive
            to (datetime.datetime | None): exclusive
     """

    bounds: str
    from_: datetime.datetime | None
    to: datetime.datetime | None





    def to_dict(self) -> dict[str, Any]:
        bounds = self.bounds

        from_: None | str
        if isinstance(self.from_, datetime.datetime):
            from_ = self.from_.isoformat()
        else:
            from_ = self.from_

        to: None | str
        if isinstance(self.to, datetime.datetime):
            to = self.to.isoformat()
        else:
            to = self.to


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "bounds": bounds,
            "from": from_,
            "to": to,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bounds = d.pop("bounds")

        def _parse_from_(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                from_type_0 = datetime.datetime.fromisoformat(data)



                return from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        from_ = _parse_from_(d.pop("from"))


        def _parse_to(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                to_type_0 = datetime.datetime.fromisoformat(data)



                return to_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        to = _parse_to(d.pop("to"))


        settlement_period = cls(
            bounds=bounds,
            from_=from_,
            to=to,
        )

        return settlement_period

