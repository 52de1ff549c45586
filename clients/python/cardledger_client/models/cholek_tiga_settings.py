from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.cholek_tiga_settings_honours_rank import check_cholek_tiga_settings_honours_rank
from ..models.cholek_tiga_settings_honours_rank import CholekTigaSettingsHonoursRank
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CholekTigaSettings")



@_attrs_define
class CholekTigaSettings:
    """ Cholek Tiga's options as the table has them: every one, defaults filled in.

        Attributes:
            currency (str):  Default: 'SGD'.
            honours_rank (CholekTigaSettingsHonoursRank): `ace`: honours capture as aces Default: 'own'.
            in_play_bonuses (bool):  Default: False.
            point_value_cents (int):  Default: 10.
            turn_seconds (int | Unset): the turn clock: 0 for none, else 5 to 3600 seconds (docs/house-rules.md) Default:
                60.
     """

    currency: str = 'SGD'
    honours_rank: CholekTigaSettingsHonoursRank = 'own'
    in_play_bonuses: bool = False
    point_value_cents: int = 10
    turn_seconds: int | Unset = 60





    def to_dict(self) -> dict[str, Any]:
        currency = self.currency

        honours_rank: str = self.honours_rank

        in_play_bonuses = self.in_play_bonuses

        point_value_cents = self.point_value_cents

        turn_seconds = self.turn_seconds


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "currency": currency,
            "honours_rank": honours_rank,
            "in_play_bonuses": in_play_bonuses,
            "point_value_cents": point_value_cents,
        })
        if turn_seconds is not UNSET:
            field_dict["turn_seconds"] = turn_seconds

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        currency = d.pop("currency")

        honours_rank = check_cholek_tiga_settings_honours_rank(d.pop("honours_rank"))




        in_play_bonuses = d.pop("in_play_bonuses")

        point_value_cents = d.pop("point_value_cents")

        turn_seconds = d.pop("turn_seconds", UNSET)

        cholek_tiga_settings = cls(
            currency=currency,
            honours_rank=honours_rank,
            in_play_bonuses=in_play_bonuses,
            point_value_cents=point_value_cents,
            turn_seconds=turn_seconds,
        )

        return cholek_tiga_settings

