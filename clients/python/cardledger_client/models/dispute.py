from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.dispute_status import check_dispute_status
from ..models.dispute_status import DisputeStatus
from typing import cast
from uuid import UUID

if TYPE_CHECKING:
  from ..models.cha_kau_tsz_result import ChaKauTszResult
  from ..models.cha_kau_tsz_settings import ChaKauTszSettings
  from ..models.cholek_tiga_result import CholekTigaResult
  from ..models.cholek_tiga_settings import CholekTigaSettings
  from ..models.dispute_player import DisputePlayer
  from ..models.dispute_step import DisputeStep
  from ..models.transfer import Transfer
  from ..models.verification import Verification





T = TypeVar("T", bound="Dispute")



@_attrs_define
class Dispute:
    """ 
        Attributes:
            alternatives_note (None | str):
            client_seeds (list[str]):
            commitment (str): SHA-256 (hex) of the server seed
            deal_no (int):
            ended_version (int | None):
            game (str):
            net (list[int] | None): by seat, in the table's unit (the result's `net`)
            next_commitment (None | str): the next deal's commitment
            options (ChaKauTszSettings | CholekTigaSettings): the table's options (docs/rules.md)
            players (list[DisputePlayer | None]): by seat, null for an empty seat
            result (ChaKauTszResult | CholekTigaResult | None): the game's result of the deal, once it ended
            seats (int):
            server_seed (None | str): hex, once the deal ended
            started_version (int):
            status (DisputeStatus):
            steps (list[DisputeStep]):
            table_id (UUID):
            transfers (list[Transfer] | None):
            unit (None | str): the table's unit of account
            verification (Verification): The verdict on one deal; a check not run (the deal still running) is null.
            viewer (str): `auditor` or `seat N`
     """

    alternatives_note: None | str
    client_seeds: list[str]
    commitment: str
    deal_no: int
    ended_version: int | None
    game: str
    net: list[int] | None
    next_commitment: None | str
    options: ChaKauTszSettings | CholekTigaSettings
    players: list[DisputePlayer | None]
    result: ChaKauTszResult | CholekTigaResult | None
    seats: int
    server_seed: None | str
    started_version: int
    status: DisputeStatus
    steps: list[DisputeStep]
    table_id: UUID
    transfers: list[Transfer] | None
    unit: None | str
    verification: Verification
    viewer: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.cha_kau_tsz_result import ChaKauTszResult # noqa: PLC0415
        from ..models.cha_kau_tsz_settings import ChaKauTszSettings # noqa: PLC0415
        from ..models.cholek_tiga_result import CholekTigaResult # noqa: PLC0415
        from ..models.cholek_tiga_settings import CholekTigaSettings # noqa: PLC0415
        from ..models.dispute_player import DisputePlayer # noqa: PLC0415
        from ..models.dispute_step import DisputeStep # noqa: PLC0415
        from ..models.transfer import Transfer # noqa: PLC0415
        from ..models.verification import Verification # noqa: PLC0415
        alternatives_note: None | str
        alternatives_note = self.alternatives_note

        client_seeds = self.client_seeds



        commitment = self.commitment

        deal_no = self.deal_no

        ended_version: int | None
        ended_version = self.ended_version

        game = self.game

        net: list[int] | None
        if isinstance(self.net, list):
            net = self.net


        else:
            net = self.net

        next_commitment: None | str
        next_commitment = self.next_commitment

        options: dict[str, Any]
        if isinstance(self.options, CholekTigaSettings):
            options = self.options.to_dict()
        else:
            options = self.options.to_dict()


        players = []
        for players_item_data in self.players:
            players_item: dict[str, Any] | None
            if isinstance(players_item_data, DisputePlayer):
                players_item = players_item_data.to_dict()
            else:
                players_item = players_item_data
            players.append(players_item)



        result: dict[str, Any] | None
        if isinstance(self.result, CholekTigaResult):
            result = self.result.to_dict()
        elif isinstance(self.result, ChaKauTszResult):
            result = self.result.to_dict()
        else:
            result = self.result

        seats = self.seats

        server_seed: None | str
        server_seed = self.server_seed

        started_version = self.started_version

        status: str = self.status

        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data.to_dict()
            steps.append(steps_item)



        table_id = str(self.table_id)

        transfers: list[dict[str, Any]] | None
        if isinstance(self.transfers, list):
            transfers = []
            for transfers_type_0_item_data in self.transfers:
                transfers_type_0_item = transfers_type_0_item_data.to_dict()
                transfers.append(transfers_type_0_item)


        else:
            transfers = self.transfers

        unit: None | str
        unit = self.unit

        verification = self.verification.to_dict()

        viewer = self.viewer


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "alternatives_note": alternatives_note,
            "client_seeds": client_seeds,
            "commitment": commitment,
            "deal_no": deal_no,
            "ended_version": ended_version,
            "game": game,
            "net": net,
            "next_commitment": next_commitment,
            "options": options,
            "players": players,
            "result": result,
            "seats": seats,
            "server_seed": server_seed,
            "started_version": started_version,
            "status": status,
            "steps": steps,
            "table_id": table_id,
            "transfers": transfers,
            "unit": unit,
            "verification": verification,
            "viewer": viewer,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cha_kau_tsz_result import ChaKauTszResult # noqa: PLC0415
        from ..models.cha_kau_tsz_settings import ChaKauTszSettings # noqa: PLC0415
        from ..models.cholek_tiga_result import CholekTigaResult # noqa: PLC0415
        from ..models.cholek_tiga_settings import CholekTigaSettings # noqa: PLC0415
        from ..models.dispute_player import DisputePlayer # noqa: PLC0415
        from ..models.dispute_step import DisputeStep # noqa: PLC0415
        from ..models.transfer import Transfer # noqa: PLC0415
        from ..models.verification import Verification # noqa: PLC0415
        d = dict(src_dict)
        def _parse_alternatives_note(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        alternatives_note = _parse_alternatives_note(d.pop("alternatives_note"))


        client_seeds = cast(list[str], d.pop("client_seeds"))


        commitment = d.pop("commitment")

        deal_no = d.pop("deal_no")

        def _parse_ended_version(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        ended_version = _parse_ended_version(d.pop("ended_version"))


        game = d.pop("game")

        def _parse_net(data: object) -> list[int] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                net_type_0 = cast(list[int], data)

                return net_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[int] | None, data)

        net = _parse_net(d.pop("net"))


        def _parse_next_commitment(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        next_commitment = _parse_next_commitment(d.pop("next_commitment"))


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


        players = []
        _players = d.pop("players")
        for players_item_data in (_players):
            def _parse_players_item(data: object) -> DisputePlayer | None:
                if data is None:
                    return data
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    players_item_type_0 = DisputePlayer.from_dict(data)



                    return players_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                return cast(DisputePlayer | None, data)

            players_item = _parse_players_item(players_item_data)

            players.append(players_item)


        def _parse_result(data: object) -> ChaKauTszResult | CholekTigaResult | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0_type_0 = CholekTigaResult.from_dict(data)



                return result_type_0_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0_type_1 = ChaKauTszResult.from_dict(data)



                return result_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChaKauTszResult | CholekTigaResult | None, data)

        result = _parse_result(d.pop("result"))


        seats = d.pop("seats")

        def _parse_server_seed(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        server_seed = _parse_server_seed(d.pop("server_seed"))


        started_version = d.pop("started_version")

        status = check_dispute_status(d.pop("status"))




        steps = []
        _steps = d.pop("steps")
        for steps_item_data in (_steps):
            steps_item = DisputeStep.from_dict(steps_item_data)



            steps.append(steps_item)


        table_id = UUID(d.pop("table_id"))




        def _parse_transfers(data: object) -> list[Transfer] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                transfers_type_0 = []
                _transfers_type_0 = data
                for transfers_type_0_item_data in (_transfers_type_0):
                    transfers_type_0_item = Transfer.from_dict(transfers_type_0_item_data)



                    transfers_type_0.append(transfers_type_0_item)

                return transfers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Transfer] | None, data)

        transfers = _parse_transfers(d.pop("transfers"))


        def _parse_unit(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        unit = _parse_unit(d.pop("unit"))


        verification = Verification.from_dict(d.pop("verification"))




        viewer = d.pop("viewer")

        dispute = cls(
            alternatives_note=alternatives_note,
            client_seeds=client_seeds,
            commitment=commitment,
            deal_no=deal_no,
            ended_version=ended_version,
            game=game,
            net=net,
            next_commitment=next_commitment,
            options=options,
            players=players,
            result=result,
            seats=seats,
            server_seed=server_seed,
            started_version=started_version,
            status=status,
            steps=steps,
            table_id=table_id,
            transfers=transfers,
            unit=unit,
            verification=verification,
            viewer=viewer,
        )


        dispute.additional_properties = d
        return dispute

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
