from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
from uuid import UUID
import datetime






T = TypeVar("T", bound="LedgerLine")



@_attrs_define
class LedgerLine:
    """ 
        Attributes:
            account (str): "seat:N" or "pool"
            amount (int): negative for the payer, positive for the payee
            amount_cents (int):
            deal_no (int):
            event_type (str):
            global_position (int): of the event the line comes from
            line_no (int): the line's place in its event, from 1
            occurred_at (datetime.datetime):
            player_id (None | UUID):
            reason (str):
            unit (str):
            version (int): the event's position in the table stream
     """

    account: str
    amount: int
    amount_cents: int
    deal_no: int
    event_type: str
    global_position: int
    line_no: int
    occurred_at: datetime.datetime
    player_id: None | UUID
    reason: str
    unit: str
    version: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        account = self.account

        amount = self.amount

        amount_cents = self.amount_cents

        deal_no = self.deal_no

        event_type = self.event_type

        global_position = self.global_position

        line_no = self.line_no

        occurred_at = self.occurred_at.isoformat()

        player_id: None | str
        if isinstance(self.player_id, UUID):
            player_id = str(self.player_id)
        else:
            player_id = self.player_id

        reason = self.reason

        unit = self.unit

        version = self.version


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "account": account,
            "amount": amount,
            "amount_cents": amount_cents,
            "deal_no": deal_no,
            "event_type": event_type,
            "global_position": global_position,
            "line_no": line_no,
            "occurred_at": occurred_at,
            "player_id": player_id,
            "reason": reason,
            "unit": unit,
            "version": version,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        account = d.pop("account")

        amount = d.pop("amount")

        amount_cents = d.pop("amount_cents")

        deal_no = d.pop("deal_no")

        event_type = d.pop("event_type")

        global_position = d.pop("global_position")

        line_no = d.pop("line_no")

        occurred_at = datetime.datetime.fromisoformat(d.pop("occurred_at"))




        def _parse_player_id(data: object) -> None | UUID:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                player_id_type_0 = UUID(data)



                return player_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | UUID, data)

        player_id = _parse_player_id(d.pop("player_id"))


        reason = d.pop("reason")

        unit = d.pop("unit")

        version = d.pop("version")

        ledger_line = cls(
            account=account,
            amount=amount,
            amount_cents=amount_cents,
            deal_no=deal_no,
            event_type=event_type,
            global_position=global_position,
            line_no=line_no,
            occurred_at=occurred_at,
            player_id=player_id,
            reason=reason,
            unit=unit,
            version=version,
        )


        ledger_line.additional_properties = d
        return ledger_line

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
