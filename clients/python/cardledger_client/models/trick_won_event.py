from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.trick_won_event_type import check_trick_won_event_type
from ..models.trick_won_event_type import TrickWonEventType
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.trick_won_data import TrickWonData
  from ..models.trick_won_event_metadata import TrickWonEventMetadata





T = TypeVar("T", bound="TrickWonEvent")



@_attrs_define
class TrickWonEvent:
    """ A `trick_won` event.

        Attributes:
            data (TrickWonData):
            deal_no (int): 0 before the first deal
            global_position (int):
            hash_ (None | str): null for a hash-version-1 event whose private block the caller may not see (that hash covers
                the block whole, so it would give the cards away)
            occurred_at (datetime.datetime): the exact text the hash covers (UTC, microseconds, Z)
            position (int): version in the table stream
            prev_hash (None | str): null where `hash` of the event before is withheld
            type_ (TrickWonEventType):
            hash_version (int | Unset): 1: the hash covers the whole data; 2: the private block only through its commitment
            metadata (TrickWonEventMetadata | Unset): actor (a player id, `clock` or `auditor`) and request id
            schema_version (int | Unset):
     """

    data: TrickWonData
    deal_no: int
    global_position: int
    hash_: None | str
    occurred_at: datetime.datetime
    position: int
    prev_hash: None | str
    type_: TrickWonEventType
    hash_version: int | Unset = UNSET
    metadata: TrickWonEventMetadata | Unset = UNSET
    schema_version: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.trick_won_data import TrickWonData # noqa: PLC0415
        from ..models.trick_won_event_metadata import TrickWonEventMetadata # noqa: PLC0415
        data = self.data.to_dict()

        deal_no = self.deal_no

        global_position = self.global_position

        hash_: None | str
        hash_ = self.hash_

        occurred_at = self.occurred_at.isoformat()

        position = self.position

        prev_hash: None | str
        prev_hash = self.prev_hash

        type_: str = self.type_

        hash_version = self.hash_version

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        schema_version = self.schema_version


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "data": data,
            "deal_no": deal_no,
            "global_position": global_position,
            "hash": hash_,
            "occurred_at": occurred_at,
            "position": position,
            "prev_hash": prev_hash,
            "type": type_,
        })
        if hash_version is not UNSET:
            field_dict["hash_version"] = hash_version
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if schema_version is not UNSET:
            field_dict["schema_version"] = schema_version

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.trick_won_data import TrickWonData # noqa: PLC0415
        from ..models.trick_won_event_metadata import TrickWonEventMetadata # noqa: PLC0415
        d = dict(src_dict)
        data = TrickWonData.from_dict(d.pop("data"))




        deal_no = d.pop("deal_no")

        global_position = d.pop("global_position")

        def _parse_hash_(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        hash_ = _parse_hash_(d.pop("hash"))


        occurred_at = datetime.datetime.fromisoformat(d.pop("occurred_at"))




        position = d.pop("position")

        def _parse_prev_hash(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        prev_hash = _parse_prev_hash(d.pop("prev_hash"))


        type_ = check_trick_won_event_type(d.pop("type"))




        hash_version = d.pop("hash_version", UNSET)

        _metadata = d.pop("metadata", UNSET)
        metadata: TrickWonEventMetadata | Unset
        if isinstance(_metadata,  Unset):
            metadata = UNSET
        else:
            metadata = TrickWonEventMetadata.from_dict(_metadata)




        schema_version = d.pop("schema_version", UNSET)

        trick_won_event = cls(
            data=data,
            deal_no=deal_no,
            global_position=global_position,
            hash_=hash_,
            occurred_at=occurred_at,
            position=position,
            prev_hash=prev_hash,
            type_=type_,
            hash_version=hash_version,
            metadata=metadata,
            schema_version=schema_version,
        )


        trick_won_event.additional_properties = d
        return trick_won_event

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
