from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.leave_action_type import check_leave_action_type
from ..models.leave_action_type import LeaveActionType
from typing import cast






T = TypeVar("T", bound="LeaveAction")



@_attrs_define
class LeaveAction:
    """ Before the first deal or between deals: give up your seat.

        Attributes:
            type_ (LeaveActionType):
     """

    type_: LeaveActionType





    def to_dict(self) -> dict[str, Any]:
        type_: str = self.type_


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = check_leave_action_type(d.pop("type"))




        leave_action = cls(
            type_=type_,
        )

        return leave_action

