from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.deal_ended_data_unit import check_deal_ended_data_unit
from ..models.deal_ended_data_unit import DealEndedDataUnit
from typing import cast

if TYPE_CHECKING:
  from ..models.cha_kau_tsz_result import ChaKauTszResult
  from ..models.cholek_tiga_result import CholekTigaResult
  from ..models.deal_ended_data_carry import DealEndedDataCarry
  from ..models.transfer_data import TransferData





T = TypeVar("T", bound="DealEndedData")



@_attrs_define
class DealEndedData:
    """ 
        Attributes:
            carry (DealEndedDataCarry): the game's state carried to the next deal
            client_seeds (list[str]):
            commitment (str):
            deal_no (int):
            next_commitment (str):
            result (ChaKauTszResult | CholekTigaResult): the game's result of the deal
            server_seed (str): hex
            transfers (list[TransferData]):
            unit (DealEndedDataUnit):
     """

    carry: DealEndedDataCarry
    client_seeds: list[str]
    commitment: str
    deal_no: int
    next_commitment: str
    result: ChaKauTszResult | CholekTigaResult
    server_seed: str
    transfers: list[TransferData]
    unit: DealEndedDataUnit
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.cha_kau_tsz_result import ChaKauTszResult # noqa: PLC0415
        from ..models.cholek_tiga_result import CholekTigaResult # noqa: PLC0415
        from ..models.deal_ended_data_carry import DealEndedDataCarry # noqa: PLC0415
        from ..models.transfer_data import TransferData # noqa: PLC0415
        carry = self.carry.to_dict()

        client_seeds = self.client_seeds



        commitment = self.commitment

        deal_no = self.deal_no

        next_commitment = self.next_commitment

        result: dict[str, Any]
        if isinstance(self.result, CholekTigaResult):
            result = self.result.to_dict()
        else:
            result = self.result.to_dict()


        server_seed = self.server_seed

        transfers = []
        for transfers_item_data in self.transfers:
            transfers_item = transfers_item_data.to_dict()
            transfers.append(transfers_item)



        unit: str = self.unit


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "carry": carry,
            "client_seeds": client_seeds,
            "commitment": commitment,
            "deal_no": deal_no,
            "next_commitment": next_commitment,
            "result": result,
            "server_seed": server_seed,
            "transfers": transfers,
            "unit": unit,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cha_kau_tsz_result import ChaKauTszResult # noqa: PLC0415
        from ..models.cholek_tiga_result import CholekTigaResult # noqa: PLC0415
        from ..models.deal_ended_data_carry import DealEndedDataCarry # noqa: PLC0415
        from ..models.transfer_data import TransferData # noqa: PLC0415
        d = dict(src_dict)
        carry = DealEndedDataCarry.from_dict(d.pop("carry"))




        client_seeds = cast(list[str], d.pop("client_seeds"))


        commitment = d.pop("commitment")

        deal_no = d.pop("deal_no")

        next_commitment = d.pop("next_commitment")

        def _parse_result(data: object) -> ChaKauTszResult | CholekTigaResult:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = CholekTigaResult.from_dict(data)



                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            result_type_1 = ChaKauTszResult.from_dict(data)



            return result_type_1

        result = _parse_result(d.pop("result"))


        server_seed = d.pop("server_seed")

        transfers = []
        _transfers = d.pop("transfers")
        for transfers_item_data in (_transfers):
            transfers_item = TransferData.from_dict(transfers_item_data)



            transfers.append(transfers_item)


        unit = check_deal_ended_data_unit(d.pop("unit"))




        deal_ended_data = cls(
            carry=carry,
            client_seeds=client_seeds,
            commitment=commitment,
            deal_no=deal_no,
            next_commitment=next_commitment,
            result=result,
            server_seed=server_seed,
            transfers=transfers,
            unit=unit,
        )


        deal_ended_data.additional_properties = d
        return deal_ended_data

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
