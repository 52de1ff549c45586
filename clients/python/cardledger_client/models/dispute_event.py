from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.dispute_event_type import check_dispute_event_type
from ..models.dispute_event_type import DisputeEventType
from ..types import UNSET, Unset
from typing import cast
import datetime

if TYPE_CHECKING:
  from ..models.dispute_event_data import DisputeEventData
  from ..models.dispute_event_metadata import DisputeEventMetadata
  from ..models.dispute_event_public_state_after_type_0 import DisputeEventPublicStateAfterType0





T = TypeVar("T", bound="DisputeEvent")



@_attrs_define
class DisputeEvent:
    """ An event of a step, as GET /v1/tables/{table_id}/events shows it to the caller, plus the replay.

        Attributes:
            actor (None | str):
            data (DisputeEventData): the payload; its shape depends on `type`
            deal_no (int): 0 before the first deal
            global_position (int):
            hash_ (None | str): null for a hash-version-1 event whose private block the caller may not see (that hash covers
                the block whole, so it would give the cards away)
            occurred_at (datetime.datetime): the exact text the hash covers (UTC, microseconds, Z)
            position (int): version in the table stream
            prev_hash (None | str): null where `hash` of the event before is withheld
            public_state_after (DisputeEventPublicStateAfterType0 | None): the public table view after the event (varies by
                game), null once the replay stopped
            seat (int | None):
            timed_out (bool):
            type_ (DisputeEventType):
            hash_version (int | Unset): 1: the hash covers the whole data; 2: the private block only through its commitment
            metadata (DisputeEventMetadata | Unset): actor (a player id, `clock` or `auditor`) and request id
            replay_error (str | Unset): where the replay stopped (tampered data)
            schema_version (int | Unset):
     """

    actor: None | str
    data: DisputeEventData
    deal_no: int
    global_position: int
    hash_: None | str
    occurred_at: datetime.datetime
    position: int
    prev_hash: None | str
    public_state_after: DisputeEventPublicStateAfterType0 | None
    seat: int | None
    timed_out: bool
    type_: DisputeEventType
    hash_version: int | Unset = UNSET
    metadata: DisputeEventMetadata | Unset = UNSET
    replay_error: str | Unset = UNSET
    schema_version: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.dispute_event_data import DisputeEventData # noqa: PLC0415
        from ..models.dispute_event_metadata import DisputeEventMetadata # noqa: PLC0415
        from ..models.dispute_event_public_state_after_type_0 import DisputeEventPublicStateAfterType0 # noqa: PLC0415
        actor: None | str
        actor = self.actor

        data = self.data.to_dict()

        deal_no = self.deal_no

        global_position = self.global_position

        hash_: None | str
        hash_ = self.hash_

        occurred_at = self.occurred_at.isoformat()

        position = self.position

        prev_hash: None | str
        prev_hash = self.prev_hash

        public_state_after: dict[str, Any] | None
        if isinstance(self.public_state_after, DisputeEventPublicStateAfterType0):
            public_state_after = self.public_state_after.to_dict()
        else:
            public_state_after = self.public_state_after

        seat: int | None
        seat = self.seat

        timed_out = self.timed_out

        type_: str = self.type_

        hash_version = self.hash_version

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        replay_error = self.replay_error

        schema_version = self.schema_version


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "actor": actor,
            "data": data,
            "deal_no": deal_no,
            "global_position": global_position,
            "hash": hash_,
            "occurred_at": occurred_at,
            "position": position,
            "prev_hash": prev_hash,
            "public_state_after": public_state_after,
            "seat": seat,
            "timed_out": timed_out,
            "type": type_,
        })
        if hash_version is not UNSET:
            field_dict["hash_version"] = hash_version
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if replay_error is not UNSET:
            field_dict["replay_error"] = replay_error
        if schema_version is not UNSET:
            field_dict["schema_version"] = schema_version

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.dispute_event_data import DisputeEventData # noqa: PLC0415
        from ..models.dispute_event_metadata import DisputeEventMetadata # noqa: PLC0415
        from ..models.dispute_event_public_state_after_type_0 import DisputeEventPublicStateAfterType0 # noqa: PLC0415
        d = dict(src_dict)
        def _parse_actor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        actor = _parse_actor(d.pop("actor"))


        data = DisputeEventData.from_dict(d.pop("data"))




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


        def _parse_public_state_after(data: object) -> DisputeEventPublicStateAfterType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                public_state_after_type_0 = DisputeEventPublicStateAfterType0.from_dict(data)



                return public_state_after_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DisputeEventPublicStateAfterType0 | None, data)

        public_state_after = _parse_public_state_after(d.pop("public_state_after"))


        def _parse_seat(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        seat = _parse_seat(d.pop("seat"))


        timed_out = d.pop("timed_out")

        type_ = check_dispute_event_type(d.pop("type"))




        hash_version = d.pop("hash_version", UNSET)

        _metadata = d.pop("metadata", UNSET)
        metadata: DisputeEventMetadata | Unset
        if isinstance(_metadata,  Unset):
            metadata = UNSET
        else:
            metadata = DisputeEventMetadata.from_dict(_metadata)




        replay_error = d.pop("replay_error", UNSET)

        schema_version = d.pop("schema_version", UNSET)

        dispute_event = cls(
            actor=actor,
            data=data,
            deal_no=deal_no,
            global_position=global_position,
            hash_=hash_,
            occurred_at=occurred_at,
            position=position,
            prev_hash=prev_hash,
            public_state_after=public_state_after,
            seat=seat,
            timed_out=timed_out,
            type_=type_,
            hash_version=hash_version,
            metadata=metadata,
            replay_error=replay_error,
            schema_version=schema_version,
        )


        dispute_event.additional_properties = d
        return dispute_event

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
