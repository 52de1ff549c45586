from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.chip_values import ChipValues





T = TypeVar("T", bound="ChaKauTszOptions")



@_attrs_define
class ChaKauTszOptions:
    """ Cha Kau Tsz's options (docs/rules.md); each has a default.

        Attributes:
            chip_value_cents (int | Unset):  Default: 10.
            chip_values (ChipValues | Unset):
            pool_target_tricks (int | Unset): tricks that win the pool: more than half the hand and at most all of it (8 to
                15 with 2 players; 8 to 14 with 3 players; 8 to 14 with 4 players); default 10 with 2, 9 with 3, 8 with 4
            turn_seconds (int | Unset): the turn clock: 0 for none, else 5 to 3600 seconds (docs/house-rules.md) Default:
                60.
     """

    chip_value_cents: int | Unset = 10
    chip_values: ChipValues | Unset = UNSET
    pool_target_tricks: int | Unset = UNSET
    turn_seconds: int | Unset = 60





    def to_dict(self) -> dict[str, Any]:
        from ..models.chip_values import ChipValues # noqa: PLC0415
        chip_value_cents = self.chip_value_cents

        chip_values: dict[str, Any] | Unset = UNSET
        if not isinstance(self.chip_values, Unset):
            chip_values = self.chip_values.to_dict()

        pool_target_tricks = self.pool_target_tricks

        turn_seconds = self.turn_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if chip_value_cents is not UNSET:
            field_dict["chip_value_cents"] = chip_value_cents
        if chip_values is not UNSET:
            field_dict["chip_values"] = chip_values
        if pool_target_tricks is not UNSET:
            field_dict["pool_target_tricks"] = pool_target_tricks
        if turn_seconds is not UNSET:
            field_dict["turn_seconds"] = turn_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chip_values import ChipValues # noqa: PLC0415
        d = dict(src_dict)
        chip_value_cents = d.pop("chip_value_cents", UNSET)

        _chip_values = d.pop("chip_values", UNSET)
        chip_values: ChipValues | Unset
        if isinstance(_chip_values,  Unset):
            chip_values = UNSET
        else:
            chip_values = ChipValues.from_dict(_chip_values)




        pool_target_tricks = d.pop("pool_target_tricks", UNSET)

        turn_seconds = d.pop("turn_seconds", UNSET)

        cha_kau_tsz_options = cls(
            chip_value_cents=chip_value_cents,
            chip_values=chip_values,
            pool_target_tricks=pool_target_tricks,
            turn_seconds=turn_seconds,
        )

        return cha_kau_tsz_options

