from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.capture_action import CaptureAction
  from ..models.close_action import CloseAction
  from ..models.discard_action import DiscardAction
  from ..models.dispute_event import DisputeEvent
  from ..models.leave_action import LeaveAction
  from ..models.pass_action import PassAction
  from ..models.play_choice import PlayChoice
  from ..models.ready_action import ReadyAction
  from ..models.replay_error import ReplayError





T = TypeVar("T", bound="DisputeStep")



@_attrs_define
class DisputeStep:
    """ One write transaction (an action and what it caused), replayed.

        Attributes:
            actor (None | str): the player (or `clock`) who wrote it
            events (list[DisputeEvent]):
            legal_alternatives (list[CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayChoice |
                ReadyAction] | None | ReplayError): the legal choices of the acting seat, once the deal has ended (null before)
            seat (int | None):
            step (int):
            timed_out (bool):
            to_act_before (int | None | ReplayError): the seat to act before the step; null when nobody was
     """

    actor: None | str
    events: list[DisputeEvent]
    legal_alternatives: list[CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayChoice | ReadyAction] | None | ReplayError
    seat: int | None
    step: int
    timed_out: bool
    to_act_before: int | None | ReplayError
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.capture_action import CaptureAction # noqa: PLC0415
        from ..models.close_action import CloseAction # noqa: PLC0415
        from ..models.discard_action import DiscardAction # noqa: PLC0415
        from ..models.dispute_event import DisputeEvent # noqa: PLC0415
        from ..models.leave_action import LeaveAction # noqa: PLC0415
        from ..models.pass_action import PassAction # noqa: PLC0415
        from ..models.play_choice import PlayChoice # noqa: PLC0415
        from ..models.ready_action import ReadyAction # noqa: PLC0415
        from ..models.replay_error import ReplayError # noqa: PLC0415
        actor: None | str
        actor = self.actor

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.to_dict()
            events.append(events_item)



        legal_alternatives: dict[str, Any] | list[dict[str, Any]] | None
        if isinstance(self.legal_alternatives, list):
            legal_alternatives = []
            for legal_alternatives_type_0_type_0_item_data in self.legal_alternatives:
                legal_alternatives_type_0_type_0_item: dict[str, Any]
                if isinstance(legal_alternatives_type_0_type_0_item_data, DiscardAction):
                    legal_alternatives_type_0_type_0_item = legal_alternatives_type_0_type_0_item_data.to_dict()
                elif isinstance(legal_alternatives_type_0_type_0_item_data, CaptureAction):
                    legal_alternatives_type_0_type_0_item = legal_alternatives_type_0_type_0_item_data.to_dict()
                elif isinstance(legal_alternatives_type_0_type_0_item_data, PassAction):
                    legal_alternatives_type_0_type_0_item = legal_alternatives_type_0_type_0_item_data.to_dict()
                elif isinstance(legal_alternatives_type_0_type_0_item_data, PlayChoice):
                    legal_alternatives_type_0_type_0_item = legal_alternatives_type_0_type_0_item_data.to_dict()
                elif isinstance(legal_alternatives_type_0_type_0_item_data, ReadyAction):
                    legal_alternatives_type_0_type_0_item = legal_alternatives_type_0_type_0_item_data.to_dict()
                elif isinstance(legal_alternatives_type_0_type_0_item_data, CloseAction):
                    legal_alternatives_type_0_type_0_item = legal_alternatives_type_0_type_0_item_data.to_dict()
                else:
                    legal_alternatives_type_0_type_0_item = legal_alternatives_type_0_type_0_item_data.to_dict()

                legal_alternatives.append(legal_alternatives_type_0_type_0_item)


        elif isinstance(self.legal_alternatives, ReplayError):
            legal_alternatives = self.legal_alternatives.to_dict()
        else:
            legal_alternatives = self.legal_alternatives

        seat: int | None
        seat = self.seat

        step = self.step

        timed_out = self.timed_out

        to_act_before: dict[str, Any] | int | None
        if isinstance(self.to_act_before, ReplayError):
            to_act_before = self.to_act_before.to_dict()
        else:
            to_act_before = self.to_act_before


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "actor": actor,
            "events": events,
            "legal_alternatives": legal_alternatives,
            "seat": seat,
            "step": step,
            "timed_out": timed_out,
            "to_act_before": to_act_before,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.capture_action import CaptureAction # noqa: PLC0415
        from ..models.close_action import CloseAction # noqa: PLC0415
        from ..models.discard_action import DiscardAction # noqa: PLC0415
        from ..models.dispute_event import DisputeEvent # noqa: PLC0415
        from ..models.leave_action import LeaveAction # noqa: PLC0415
        from ..models.pass_action import PassAction # noqa: PLC0415
        from ..models.play_choice import PlayChoice # noqa: PLC0415
        from ..models.ready_action import ReadyAction # noqa: PLC0415
        from ..models.replay_error import ReplayError # noqa: PLC0415
        d = dict(src_dict)
        def _parse_actor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        actor = _parse_actor(d.pop("actor"))


        events = []
        _events = d.pop("events")
        for events_item_data in (_events):
            events_item = DisputeEvent.from_dict(events_item_data)



            events.append(events_item)


        def _parse_legal_alternatives(data: object) -> list[CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayChoice | ReadyAction] | None | ReplayError:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                legal_alternatives_type_0_type_0 = []
                _legal_alternatives_type_0_type_0 = data
                for legal_alternatives_type_0_type_0_item_data in (_legal_alternatives_type_0_type_0):
                    def _parse_legal_alternatives_type_0_type_0_item(data: object) -> CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayChoice | ReadyAction:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_legal_action_type_0 = DiscardAction.from_dict(data)



                            return componentsschemas_legal_action_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_legal_action_type_1 = CaptureAction.from_dict(data)



                            return componentsschemas_legal_action_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_legal_action_type_2 = PassAction.from_dict(data)



                            return componentsschemas_legal_action_type_2
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_legal_action_type_3 = PlayChoice.from_dict(data)



                            return componentsschemas_legal_action_type_3
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_legal_action_type_4 = ReadyAction.from_dict(data)



                            return componentsschemas_legal_action_type_4
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_legal_action_type_5 = CloseAction.from_dict(data)



                            return componentsschemas_legal_action_type_5
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        componentsschemas_legal_action_type_6 = LeaveAction.from_dict(data)



                        return componentsschemas_legal_action_type_6

                    legal_alternatives_type_0_type_0_item = _parse_legal_alternatives_type_0_type_0_item(legal_alternatives_type_0_type_0_item_data)

                    legal_alternatives_type_0_type_0.append(legal_alternatives_type_0_type_0_item)

                return legal_alternatives_type_0_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                legal_alternatives_type_0_type_1 = ReplayError.from_dict(data)



                return legal_alternatives_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[CaptureAction | CloseAction | DiscardAction | LeaveAction | PassAction | PlayChoice | ReadyAction] | None | ReplayError, data)

        legal_alternatives = _parse_legal_alternatives(d.pop("legal_alternatives"))


        def _parse_seat(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        seat = _parse_seat(d.pop("seat"))


        step = d.pop("step")

        timed_out = d.pop("timed_out")

        def _parse_to_act_before(data: object) -> int | None | ReplayError:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                to_act_before_type_0_type_1 = ReplayError.from_dict(data)



                return to_act_before_type_0_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(int | None | ReplayError, data)

        to_act_before = _parse_to_act_before(d.pop("to_act_before"))


        dispute_step = cls(
            actor=actor,
            events=events,
            legal_alternatives=legal_alternatives,
            seat=seat,
            step=step,
            timed_out=timed_out,
            to_act_before=to_act_before,
        )


        dispute_step.additional_properties = d
        return dispute_step

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
