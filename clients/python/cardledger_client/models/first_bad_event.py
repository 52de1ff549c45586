from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="FirstBadEvent")



@_attrs_define
class FirstBadEvent:
    """ 
        Attributes:
            reason (str):
            version (int | None):
     """

    reason: str
    version: int | None





    def to_dict(self) -> dict[str, Any]:
        reason = self.reason

        version: int | None
        version = self.version


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "reason": reason,
            "version": version,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        reason = d.pop("reason")

        def _parse_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        version = _parse_version(d.pop("version"))


        first_bad_event = cls(
            reason=reason,
            version=version,
        )

        return first_bad_event

