from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.cha_kau_tsz_table_create_game import ChaKauTszTableCreateGame
from ..models.cha_kau_tsz_table_create_game import check_cha_kau_tsz_table_create_game
from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.cha_kau_tsz_options import ChaKauTszOptions





T = TypeVar("T", bound="ChaKauTszTableCreate")



@_attrs_define
class ChaKauTszTableCreate:
    """ 
        Attributes:
            game (ChaKauTszTableCreateGame):
            seats (int):
            options (ChaKauTszOptions | Unset): Cha Kau Tsz's options (docs/rules.md); each has a default.
     """

    game: ChaKauTszTableCreateGame
    seats: int
    options: ChaKauTszOptions | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.cha_kau_tsz_options import ChaKauTszOptions # noqa: PLC0415
        game: str = self.game

        seats = self.seats

        options: dict[str, Any] | Unset = UNSET
        if not isinstance(self.options, Unset):
            options = self.options.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "game": game,
            "seats": seats,
        })
        if options is not UNSET:
            field_dict["options"] = options

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cha_kau_tsz_options import ChaKauTszOptions # noqa: PLC0415
        d = dict(src_dict)
        game = check_cha_kau_tsz_table_create_game(d.pop("game"))




        seats = d.pop("seats")

        _options = d.pop("options", UNSET)
        options: ChaKauTszOptions | Unset
        if isinstance(_options,  Unset):
            options = UNSET
        else:
            options = ChaKauTszOptions.from_dict(_options)




        cha_kau_tsz_table_create = cls(
            game=game,
            seats=seats,
            options=options,
        )

        return cha_kau_tsz_table_create

