from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.pass_action_type import check_pass_action_type
from ..models.pass_action_type import PassActionType
from typing import cast






T = TypeVar("T", bound="PassAction")



@_attrs_define
class PassAction:
    """ Cholek Tiga: leave the pending turned-up card in the pool.

        Attributes:
            type_ (PassActionType):
     """

    type_: PassActionType





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
        type_ = check_pass_action_type(d.pop("type"))




        pass_action = cls(
            type_=type_,
        )

        return pass_action

