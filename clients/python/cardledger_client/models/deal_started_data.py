from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="DealStartedData")



@_attrs_define
class DealStartedData:
    """ 
        Attributes:
            client_seeds (list[str]): by seat
            commitment (str): SHA-256 of this deal's server seed
            deal_no (int):
            players (list[None | str] | Unset): the deal's players by seat
     """

    client_seeds: list[str]
    commitment: str
    deal_no: int
    players: list[None | str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        client_seeds = self.client_seeds



        commitment = self.commitment

        deal_no = self.deal_no

        players: list[None | str] | Unset = UNSET
        if not isinstance(self.players, Unset):
            players = []
            for players_item_data in self.players:
                players_item: None | str
                players_item = players_item_data
                players.append(players_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "client_seeds": client_seeds,
            "commitment": commitment,
            "deal_no": deal_no,
        })
        if players is not UNSET:
            field_dict["players"] = players

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        client_seeds = cast(list[str], d.pop("client_seeds"))


        commitment = d.pop("commitment")

        deal_no = d.pop("deal_no")

        _players = d.pop("players", UNSET)
        players: list[None | str] | Unset = UNSET
        if _players is not UNSET:
            players = []
            for players_item_data in _players:
                def _parse_players_item(data: object) -> None | str:
                    if data is None:
                        return data
                    return cast(None | str, data)

                players_item = _parse_players_item(players_item_data)

                players.append(players_item)


        deal_started_data = cls(
            client_seeds=client_seeds,
            commitment=commitment,
            deal_no=deal_no,
            players=players,
        )


        deal_started_data.additional_properties = d
        return deal_started_data

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
