from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.cholek_tiga_options_honours_rank import check_cholek_tiga_options_honours_rank
from ..models.cholek_tiga_options_honours_rank import CholekTigaOptionsHonoursRank
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CholekTigaOptions")



@_attrs_define
class CholekTigaOptions:
    """ Cholek Tiga's options (docs/rules.md); each has a default.

        Attributes:
            currency (str | Unset):  Default: 'SGD'.
            honours_rank (CholekTigaOptionsHonoursRank | Unset): `ace`: honours capture as aces Default: 'own'.
            in_play_bonuses (bool | Unset):  Default: False.
            point_value_cents (int | Unset):  Default: 10.
            turn_seconds (int | Unset): the turn clock: 0 for none, else 5 to 3600 seconds (docs/house-rules.md) Default:
                60.
     """

    currency: str | Unset = 'SGD'
    honours_rank: CholekTigaOptionsHonoursRank | Unset = 'own'
    in_play_bonuses: bool | Unset = False
    point_value_cents: int | Unset = 10
    turn_seconds: int | Unset = 60





    def to_dict(self) -> dict[str, Any]:
        currency = self.currency

        honours_rank: str | Unset = UNSET
        if not isinstance(self.honours_rank, Unset):
            honours_rank = self.honours_rank


        in_play_bonuses = self.in_play_bonuses

        point_value_cents = self.point_value_cents

        turn_seconds = self.turn_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if currency is not UNSET:
            field_dict["currency"] = currency
        if honours_rank is not UNSET:
            field_dict["honours_rank"] = honours_rank
        if in_play_bonuses is not UNSET:
            field_dict["in_play_bonuses"] = in_play_bonuses
        if point_value_cents is not UNSET:
            field_dict["point_value_cents"] = point_value_cents
        if turn_seconds is not UNSET:
            field_dict["turn_seconds"] = turn_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        currency = d.pop("currency", UNSET)

        _honours_rank = d.pop("honours_rank", UNSET)
        honours_rank: CholekTigaOptionsHonoursRank | Unset
        if isinstance(_honours_rank,  Unset):
            honours_rank = UNSET
        else:
            honours_rank = check_cholek_tiga_options_honours_rank(_honours_rank)




        in_play_bonuses = d.pop("in_play_bonuses", UNSET)

        point_value_cents = d.pop("point_value_cents", UNSET)

        turn_seconds = d.pop("turn_seconds", UNSET)

        cholek_tiga_options = cls(
            currency=currency,
            honours_rank=honours_rank,
            in_play_bonuses=in_play_bonuses,
            point_value_cents=point_value_cents,
            turn_seconds=turn_seconds,
        )

        return cholek_tiga_options

