from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.ready_status import check_ready_status
from ..models.ready_status import ReadyStatus
from typing import cast

if TYPE_CHECKING:
  from ..models.ready_checks import ReadyChecks





T = TypeVar("T", bound="Ready")



@_attrs_define
class Ready:
    """ 
        Attributes:
            checks (ReadyChecks):
            status (ReadyStatus):
     """

    checks: ReadyChecks
    status: ReadyStatus





    def to_dict(self) -> dict[str, Any]:
        from ..models.ready_checks import ReadyChecks # noqa: PLC0415
        checks = self.checks.to_dict()

        status: str = self.status


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "checks": checks,
            "status": status,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.ready_checks import ReadyChecks # noqa: PLC0415
        d = dict(src_dict)
        checks = ReadyChecks.from_dict(d.pop("checks"))




        status = check_ready_status(d.pop("status"))




        ready = cls(
            checks=checks,
            status=status,
        )

        return ready

