from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from uuid import UUID






T = TypeVar("T", bound="Player")



@_attrs_define
class Player:
    """ 
        Attributes:
            id (UUID):
            name (str):
            token (str): bearer token; shown once, stored as a hash
     """

    id: UUID
    name: str
    token: str





    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        name = self.name

        token = self.token


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "name": name,
            "token": token,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = UUID(d.pop("id"))




        name = d.pop("name")

        token = d.pop("token")

        player = cls(
            id=id,
            name=name,
            token=token,
        )

        return player

