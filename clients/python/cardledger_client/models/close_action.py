from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.close_action_type import check_close_action_type
from ..models.close_action_type import CloseActionType
from typing import cast






T = TypeVar("T", bound="CloseAction")



@_attrs_define
class CloseAction:
    """ Between deals: close the table.

        Attributes:
            type_ (CloseActionType):
     """

    type_: CloseActionType





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
        type_ = check_close_action_type(d.pop("type"))




        close_action = cls(
            type_=type_,
        )

        return close_action

