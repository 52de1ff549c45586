from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.ready_action_type import check_ready_action_type
from ..models.ready_action_type import ReadyActionType
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ReadyAction")



@_attrs_define
class ReadyAction:
    """ Between deals: ready for the next one (the deal starts when every seat is ready).

        Attributes:
            type_ (ReadyActionType):
            client_seed (None | str | Unset): your contribution to the next deal's shuffle (docs/rules.md); empty by default
     """

    type_: ReadyActionType
    client_seed: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        type_: str = self.type_

        client_seed: None | str | Unset
        if isinstance(self.client_seed, Unset):
            client_seed = UNSET
        else:
            client_seed = self.client_seed


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "type": type_,
        })
        if client_seed is not UNSET:
            field_dict["client_seed"] = client_seed

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = check_ready_action_type(d.pop("type"))




        def _parse_client_seed(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        client_seed = _parse_client_seed(d.pop("client_seed", UNSET))


        ready_action = cls(
            type_=type_,
            client_seed=client_seed,
        )

        return ready_action

