from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.table_opened_data_game import check_table_opened_data_game
from ..models.table_opened_data_game import TableOpenedDataGame
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.cha_kau_tsz_settings import ChaKauTszSettings
  from ..models.cholek_tiga_settings import CholekTigaSettings





T = TypeVar("T", bound="TableOpenedData")



@_attrs_define
class TableOpenedData:
    """ 
        Attributes:
            commitment (str): SHA-256 of the first deal's server seed
            game (TableOpenedDataGame):
            options (ChaKauTszSettings | CholekTigaSettings):
            seats (int):
            table_id (UUID):
     """

    commitment: str
    game: TableOpenedDataGame
    options: ChaKauTszSettings | CholekTigaSettings
    seats: int
    table_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.cha_kau_tsz_settings import ChaKauTszSettings # noqa: PLC0415
        from ..models.cholek_tiga_settings import CholekTigaSettings # noqa: PLC0415
        commitment = self.commitment

        game: str = self.game

        options: dict[str, Any]
        if isinstance(self.options, CholekTigaSettings):
            options = self.options.to_dict()
        else:
            options = self.options.to_dict()


        seats = self.seats

        table_id = str(self.table_id)


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "commitment": commitment,
            "game": game,
            "options": options,
            "seats": seats,
            "table_id": table_id,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cha_kau_tsz_settings import ChaKauTszSettings # noqa: PLC0415
        from ..models.cholek_tiga_settings import CholekTigaSettings # noqa: PLC0415
        d = dict(src_dict)
        commitment = d.pop("commitment")

        game = check_table_opened_data_game(d.pop("game"))




        def _parse_options(data: object) -> ChaKauTszSettings | CholekTigaSettings:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                options_type_0 = CholekTigaSettings.from_dict(data)



                return options_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            options_type_1 = ChaKauTszSettings.from_dict(data)



            return options_type_1

        options = _parse_options(d.pop("options"))


        seats = d.pop("seats")

        table_id = UUID(d.pop("table_id"))




        table_opened_data = cls(
            commitment=commitment,
            game=game,
            options=options,
            seats=seats,
            table_id=table_id,
        )


        table_opened_data.additional_properties = d
        return table_opened_data

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
