from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.bonus_paid_data_card import BonusPaidDataCard
from ..models.bonus_paid_data_card import check_bonus_paid_data_card
from ..models.bonus_paid_data_kind import BonusPaidDataKind
from ..models.bonus_paid_data_kind import check_bonus_paid_data_kind
from typing import cast

if TYPE_CHECKING:
  from ..models.transfer_data import TransferData





T = TypeVar("T", bound="BonusPaidData")



@_attrs_define
class BonusPaidData:
    """ 
        Attributes:
            card (BonusPaidDataCard): a Cherki card code (docs/rules.md)
            kind (BonusPaidDataKind):
            seat (int): seat number, from 0
            transfers (list[TransferData]):
     """

    card: BonusPaidDataCard
    kind: BonusPaidDataKind
    seat: int
    transfers: list[TransferData]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.transfer_data import TransferData # noqa: PLC0415
        card: str = self.card

        kind: str = self.kind

        seat = self.seat

        transfers = []
        for transfers_item_data in self.transfers:
            transfers_item = transfers_item_data.to_dict()
            transfers.append(transfers_item)




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "card": card,
            "kind": kind,
            "seat": seat,
            "transfers": transfers,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.transfer_data import TransferData # noqa: PLC0415
        d = dict(src_dict)
        card = check_bonus_paid_data_card(d.pop("card"))




        kind = check_bonus_paid_data_kind(d.pop("kind"))




        seat = d.pop("seat")

        transfers = []
        _transfers = d.pop("transfers")
        for transfers_item_data in (_transfers):
            transfers_item = TransferData.from_dict(transfers_item_data)



            transfers.append(transfers_item)


        bonus_paid_data = cls(
            card=card,
            kind=kind,
            seat=seat,
            transfers=transfers,
        )


        bonus_paid_data.additional_properties = d
        return bonus_paid_data

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
