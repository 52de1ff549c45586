from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.who_am_i_role import check_who_am_i_role
from ..models.who_am_i_role import WhoAmIRole
from typing import cast
from uuid import UUID






T = TypeVar("T", bound="WhoAmI")



@_attrs_define
class WhoAmI:
    """ 
        Attributes:
            id (None | UUID): the player's id; null for the auditor
            name (str):
            role (WhoAmIRole):
     """

    id: None | UUID
    name: str
    role: WhoAmIRole





    def to_dict(self) -> dict[str, Any]:
        id: None | str
        if isinstance(self.id, UUID):
            id = str(self.id)
        else:
            id = self.id

        name = self.name

        role: str = self.role


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "id": id,
            "name": name,
            "role": role,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                id_type_0 = UUID(data)



                return id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        id = _parse_id(d.pop("id"))


        name = d.pop("name")

        role = check_who_am_i_role(d.pop("role"))




        who_am_i = cls(
            id=id,
            name=name,
            role=role,
        )

        return who_am_i

