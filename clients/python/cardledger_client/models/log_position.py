from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="LogPosition")



@_attrs_define
class LogPosition:
    """ 
        Attributes:
            global_position (int):
            tx_id (str): the writing transaction's id, as text (xid8)
     """

    global_position: int
    tx_id: str





    def to_dict(self) -> dict[str, Any]:
        global_position = self.global_position

        tx_id = self.tx_id


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "global_position": global_position,
            "tx_id": tx_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        global_position = d.pop("global_position")

        tx_id = d.pop("tx_id")

        log_position = cls(
            global_position=global_position,
            tx_id=tx_id,
        )

        return log_position

