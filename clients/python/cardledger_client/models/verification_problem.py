from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.verification_problem_check import check_verification_problem_check
from ..models.verification_problem_check import VerificationProblemCheck
from typing import cast






T = TypeVar("T", bound="VerificationProblem")



@_attrs_define
class VerificationProblem:
    """ 
        Attributes:
            check (VerificationProblemCheck):
            reason (str):
            version (int | None): the event at fault, where one can be named
     """

    check: VerificationProblemCheck
    reason: str
    version: int | None





    def to_dict(self) -> dict[str, Any]:
        check: str = self.check

        reason = self.reason

        version: int | None
        version = self.version


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "check": check,
            "reason": reason,
            "version": version,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        check = check_verification_problem_check(d.pop("check"))




        reason = d.pop("reason")

        def _parse_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        version = _parse_version(d.pop("version"))


        verification_problem = cls(
            check=check,
            reason=reason,
            version=version,
        )

        return verification_problem

