from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.key_algorithm import check_key_algorithm
from ..models.key_algorithm import KeyAlgorithm
from typing import cast
import datetime






T = TypeVar("T", bound="Key")



@_attrs_define
class Key:
    """ 
        Attributes:
            algorithm (KeyAlgorithm):
            created_at (datetime.datetime): RFC 3339 UTC
            endorsed_by (None | str): the key_id of the key before this one in the chain; null for the first key
            endorsement (None | str): base64url (no padding) Ed25519 signature by `endorsed_by` over the UTF-8 bytes of
                "cardledger-key-v1\\n" + key_id + "\\n" + public_key + "\\n" + created_at; null for the first key
            key_id (str): "ed25519:" + 16 hex digits of SHA-256(public key)
            public_key (str): base64url (no padding) of the raw 32 bytes
     """

    algorithm: KeyAlgorithm
    created_at: datetime.datetime
    endorsed_by: None | str
    endorsement: None | str
    key_id: str
    public_key: str





    def to_dict(self) -> dict[str, Any]:
        algorithm: str = self.algorithm

        created_at = self.created_at.isoformat()

        endorsed_by: None | str
        endorsed_by = self.endorsed_by

        endorsement: None | str
        endorsement = self.endorsement

        key_id = self.key_id

        public_key = self.public_key


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "algorithm": algorithm,
            "created_at": created_at,
            "endorsed_by": endorsed_by,
            "endorsement": endorsement,
            "key_id": key_id,
            "public_key": public_key,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        algorithm = check_key_algorithm(d.pop("algorithm"))




        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        def _parse_endorsed_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        endorsed_by = _parse_endorsed_by(d.pop("endorsed_by"))


        def _parse_endorsement(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        endorsement = _parse_endorsement(d.pop("endorsement"))


        key_id = d.pop("key_id")

        public_key = d.pop("public_key")

        key = cls(
            algorithm=algorithm,
            created_at=created_at,
            endorsed_by=endorsed_by,
            endorsement=endorsement,
            key_id=key_id,
            public_key=public_key,
        )

        return key

