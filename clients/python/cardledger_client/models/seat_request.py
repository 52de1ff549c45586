from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="SeatRequest")



@_attrs_define
class SeatRequest:
    """ 
        Attributes:
            client_seed (None | str | Unset): your contribution to the next deal's shuffle (docs/rules.md); empty by default
            seat (int | None | Unset): the seat to take, from 0; null or absent: the first free one
     """

    client_seed: None | str | Unset = UNSET
    seat: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        client_seed: None | str | Unset
        if isinstance(self.client_seed, Unset):
            client_seed = UNSET
        else:
            client_seed = self.client_seed

        seat: int | None | Unset
        if isinstance(self.seat, Unset):
            seat = UNSET
        else:
            seat = self.seat


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if client_seed is not UNSET:
            field_dict["client_seed"] = client_seed
        if seat is not UNSET:
            field_dict["seat"] = seat

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        def _parse_client_seed(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        client_seed = _parse_client_seed(d.pop("client_seed", UNSET))


        def _parse_seat(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seat = _parse_seat(d.pop("seat", UNSET))


        seat_request = cls(
            client_seed=client_seed,
            seat=seat,
        )

        return seat_request

