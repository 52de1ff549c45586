from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast
import datetime






T = TypeVar("T", bound="Receipt")



@_attrs_define
class Receipt:
    """ The service's signed word that a write appended the event `hash` at `version` of the table.

        Attributes:
            hash_ (str): that event's hash
            key_id (str): a key of GET /v1/keys
            signature (str): base64url (no padding) Ed25519 signature over the UTF-8 bytes of "cardledger-receipt-v1\\n" +
                table_id + "\\n" + version + "\\n" + hash + "\\n" + signed_at
            signed_at (datetime.datetime): RFC 3339 UTC, e.g. 2026-12-01T13:27:02.123456Z
            table_id (str):
            version (int): version of the last event the write appended
     """

    hash_: str
    key_id: str
    signature: str
    signed_at: datetime.datetime
    table_id: str
    version: int
    additional_properties: dict[str, bool | float | None | str] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        hash_ = self.hash_

        key_id = self.key_id

        signature = self.signature

        signed_at = self.signed_at.isoformat()

        table_id = self.table_id

        version = self.version


        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            
            field_dict[prop_name] = prop

        field_dict.update({
            "hash": hash_,
            "key_id": key_id,
            "signature": signature,
            "signed_at": signed_at,
            "table_id": table_id,
            "version": version,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        hash_ = d.pop("hash")

        key_id = d.pop("key_id")

        signature = d.pop("signature")

        signed_at = datetime.datetime.fromisoformat(d.pop("signed_at"))




        table_id = d.pop("table_id")

        version = d.pop("version")

        receipt = cls(
            hash_=hash_,
            key_id=key_id,
            signature=signature,
            signed_at=signed_at,
            table_id=table_id,
            version=version,
        )


        additional_properties = {}
        for prop_name, prop_dict in d.items():
            def _parse_additional_property(data: object) -> bool | float | None | str:
                if data is None:
                    return data
                return cast(bool | float | None | str, data)

            additional_property = _parse_additional_property(prop_dict)

            additional_properties[prop_name] = additional_property

        receipt.additional_properties = additional_properties
        return receipt

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> bool | float | None | str:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: bool | float | None | str) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
