from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

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
            key_id (str): "ed25519:" + 16 hex digits of SHA-256(public key)
            public_key (str): base64url (no padding) of the raw 32 bytes
     """

    algorithm: KeyAlgorithm
    created_at: datetime.datetime
    key_id: str
    public_key: str





    def to_dict(self) -> dict[str, Any]:
        algorithm = self.algorithm.value

        created_at = self.created_at.isoformat()

        key_id = self.key_id

        public_key = self.public_key


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "algorithm": algorithm,
            "created_at": created_at,
            "key_id": key_id,
            "public_key": public_key,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        algorithm = KeyAlgorithm(d.pop("algorithm"))




        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))




        key_id = d.pop("key_id")

        public_key = d.pop("public_key")

        key = cls(
            algorithm=algorithm,
            created_at=created_at,
            key_id=key_id,
            public_key=public_key,
        )

        return key

