from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.transfer_data import TransferData





T = TypeVar("T", bound="TableClosedData")



@_attrs_define
class TableClosedData:
    """ 
        Attributes:
            deal_no (int):
            reason (str | Unset): `abandoned` when the service closed it
            seat (int | Unset): the seat that closed it
            transfers (list[TransferData] | Unset): the pool paid back
            unit (str | Unset):
     """

    deal_no: int
    reason: str | Unset = UNSET
    seat: int | Unset = UNSET
    transfers: list[TransferData] | Unset = UNSET
    unit: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.transfer_data import TransferData # noqa: PLC0415
        deal_no = self.deal_no

        reason = self.reason

        seat = self.seat

        transfers: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.transfers, Unset):
            transfers = []
            for transfers_item_data in self.transfers:
                transfers_item = transfers_item_data.to_dict()
                transfers.append(transfers_item)



        unit = self.unit


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "deal_no": deal_no,
        })
        if reason is not UNSET:
            field_dict["reason"] = reason
        if seat is not UNSET:
            field_dict["seat"] = seat
        if transfers is not UNSET:
            field_dict["transfers"] = transfers
        if unit is not UNSET:
            field_dict["unit"] = unit

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.transfer_data import TransferData # noqa: PLC0415
        d = dict(src_dict)
        deal_no = d.pop("deal_no")

        reason = d.pop("reason", UNSET)

        seat = d.pop("seat", UNSET)

        _transfers = d.pop("transfers", UNSET)
        transfers: list[TransferData] | Unset = UNSET
        if _transfers is not UNSET:
            transfers = []
            for transfers_item_data in _transfers:
                transfers_item = TransferData.from_dict(transfers_item_data)



                transfers.append(transfers_item)


        unit = d.pop("unit", UNSET)

        table_closed_data = cls(
            deal_no=deal_no,
            reason=reason,
            seat=seat,
            transfers=transfers,
            unit=unit,
        )


        table_closed_data.additional_properties = d
        return table_closed_data

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
