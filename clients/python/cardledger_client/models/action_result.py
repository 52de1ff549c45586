from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.bonus_paid_event import BonusPaidEvent
  from ..models.card_discarded_event import CardDiscardedEvent
  from ..models.card_turned_up_event import CardTurnedUpEvent
  from ..models.cards_drawn_event import CardsDrawnEvent
  from ..models.cards_played_event import CardsPlayedEvent
  from ..models.deal_ended_event import DealEndedEvent
  from ..models.deal_started_event import DealStartedEvent
  from ..models.hand_dealt_event import HandDealtEvent
  from ..models.hand_scored_event import HandScoredEvent
  from ..models.hand_started_event import HandStartedEvent
  from ..models.player_left_event import PlayerLeftEvent
  from ..models.player_ready_event import PlayerReadyEvent
  from ..models.player_seated_event import PlayerSeatedEvent
  from ..models.receipt import Receipt
  from ..models.seat_view import SeatView
  from ..models.table_closed_event import TableClosedEvent
  from ..models.table_opened_event import TableOpenedEvent
  from ..models.trick_won_event import TrickWonEvent
  from ..models.turn_up_captured_event import TurnUpCapturedEvent
  from ..models.turn_up_passed_event import TurnUpPassedEvent





T = TypeVar("T", bound="ActionResult")



@_attrs_define
class ActionResult:
    """ 
        Attributes:
            events (list[BonusPaidEvent | CardDiscardedEvent | CardsDrawnEvent | CardsPlayedEvent | CardTurnedUpEvent |
                DealEndedEvent | DealStartedEvent | HandDealtEvent | HandScoredEvent | HandStartedEvent | PlayerLeftEvent |
                PlayerReadyEvent | PlayerSeatedEvent | TableClosedEvent | TableOpenedEvent | TrickWonEvent | TurnUpCapturedEvent
                | TurnUpPassedEvent]):
            receipt (None | Receipt): the signed receipt of the write; null only while a deal begun before hash version 2
                runs (its hashes are withheld from players until it ends, and a receipt would show them)
            version (int):
            view (SeatView | Unset):
     """

    events: list[BonusPaidEvent | CardDiscardedEvent | CardsDrawnEvent | CardsPlayedEvent | CardTurnedUpEvent | DealEndedEvent | DealStartedEvent | HandDealtEvent | HandScoredEvent | HandStartedEvent | PlayerLeftEvent | PlayerReadyEvent | PlayerSeatedEvent | TableClosedEvent | TableOpenedEvent | TrickWonEvent | TurnUpCapturedEvent | TurnUpPassedEvent]
    receipt: None | Receipt
    version: int
    view: SeatView | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.bonus_paid_event import BonusPaidEvent # noqa: PLC0415
        from ..models.card_discarded_event import CardDiscardedEvent # noqa: PLC0415
        from ..models.card_turned_up_event import CardTurnedUpEvent # noqa: PLC0415
        from ..models.cards_drawn_event import CardsDrawnEvent # noqa: PLC0415
        from ..models.cards_played_event import CardsPlayedEvent # noqa: PLC0415
        from ..models.deal_ended_event import DealEndedEvent # noqa: PLC0415
        from ..models.deal_started_event import DealStartedEvent # noqa: PLC0415
        from ..models.hand_dealt_event import HandDealtEvent # noqa: PLC0415
        from ..models.hand_scored_event import HandScoredEvent # noqa: PLC0415
        from ..models.hand_started_event import HandStartedEvent # noqa: PLC0415
        from ..models.player_left_event import PlayerLeftEvent # noqa: PLC0415
        from ..models.player_ready_event import PlayerReadyEvent # noqa: PLC0415
        from ..models.player_seated_event import PlayerSeatedEvent # noqa: PLC0415
        from ..models.receipt import Receipt # noqa: PLC0415
        from ..models.seat_view import SeatView # noqa: PLC0415
        from ..models.table_closed_event import TableClosedEvent # noqa: PLC0415
        from ..models.table_opened_event import TableOpenedEvent # noqa: PLC0415
        from ..models.trick_won_event import TrickWonEvent # noqa: PLC0415
        from ..models.turn_up_captured_event import TurnUpCapturedEvent # noqa: PLC0415
        from ..models.turn_up_passed_event import TurnUpPassedEvent # noqa: PLC0415
        events = []
        for events_item_data in self.events:
            events_item: dict[str, Any]
            if isinstance(events_item_data, TableOpenedEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, PlayerSeatedEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, DealStartedEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, DealEndedEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, PlayerReadyEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, TableClosedEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, PlayerLeftEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, CardsDrawnEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, CardDiscardedEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, CardTurnedUpEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, TurnUpCapturedEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, TurnUpPassedEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, BonusPaidEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, HandStartedEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, HandDealtEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, CardsPlayedEvent):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, TrickWonEvent):
                events_item = events_item_data.to_dict()
            else:
                events_item = events_item_data.to_dict()

            events.append(events_item)



        receipt: dict[str, Any] | None
        if isinstance(self.receipt, Receipt):
            receipt = self.receipt.to_dict()
        else:
            receipt = self.receipt

        version = self.version

        view: dict[str, Any] | Unset = UNSET
        if not isinstance(self.view, Unset):
            view = self.view.to_dict()


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "events": events,
            "receipt": receipt,
            "version": version,
        })
        if view is not UNSET:
            field_dict["view"] = view

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.bonus_paid_event import BonusPaidEvent # noqa: PLC0415
        from ..models.card_discarded_event import CardDiscardedEvent # noqa: PLC0415
        from ..models.card_turned_up_event import CardTurnedUpEvent # noqa: PLC0415
        from ..models.cards_drawn_event import CardsDrawnEvent # noqa: PLC0415
        from ..models.cards_played_event import CardsPlayedEvent # noqa: PLC0415
        from ..models.deal_ended_event import DealEndedEvent # noqa: PLC0415
        from ..models.deal_started_event import DealStartedEvent # noqa: PLC0415
        from ..models.hand_dealt_event import HandDealtEvent # noqa: PLC0415
        from ..models.hand_scored_event import HandScoredEvent # noqa: PLC0415
        from ..models.hand_started_event import HandStartedEvent # noqa: PLC0415
        from ..models.player_left_event import PlayerLeftEvent # noqa: PLC0415
        from ..models.player_ready_event import PlayerReadyEvent # noqa: PLC0415
        from ..models.player_seated_event import PlayerSeatedEvent # noqa: PLC0415
        from ..models.receipt import Receipt # noqa: PLC0415
        from ..models.seat_view import SeatView # noqa: PLC0415
        from ..models.table_closed_event import TableClosedEvent # noqa: PLC0415
        from ..models.table_opened_event import TableOpenedEvent # noqa: PLC0415
        from ..models.trick_won_event import TrickWonEvent # noqa: PLC0415
        from ..models.turn_up_captured_event import TurnUpCapturedEvent # noqa: PLC0415
        from ..models.turn_up_passed_event import TurnUpPassedEvent # noqa: PLC0415
        d = dict(src_dict)
        events = []
        _events = d.pop("events")
        for events_item_data in (_events):
            def _parse_events_item(data: object) -> BonusPaidEvent | CardDiscardedEvent | CardsDrawnEvent | CardsPlayedEvent | CardTurnedUpEvent | DealEndedEvent | DealStartedEvent | HandDealtEvent | HandScoredEvent | HandStartedEvent | PlayerLeftEvent | PlayerReadyEvent | PlayerSeatedEvent | TableClosedEvent | TableOpenedEvent | TrickWonEvent | TurnUpCapturedEvent | TurnUpPassedEvent:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_0 = TableOpenedEvent.from_dict(data)



                    return componentsschemas_event_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_1 = PlayerSeatedEvent.from_dict(data)



                    return componentsschemas_event_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_2 = DealStartedEvent.from_dict(data)



                    return componentsschemas_event_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_3 = DealEndedEvent.from_dict(data)



                    return componentsschemas_event_type_3
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_4 = PlayerReadyEvent.from_dict(data)



                    return componentsschemas_event_type_4
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_5 = TableClosedEvent.from_dict(data)



                    return componentsschemas_event_type_5
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_6 = PlayerLeftEvent.from_dict(data)



                    return componentsschemas_event_type_6
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_7 = CardsDrawnEvent.from_dict(data)



                    return componentsschemas_event_type_7
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_8 = CardDiscardedEvent.from_dict(data)



                    return componentsschemas_event_type_8
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_9 = CardTurnedUpEvent.from_dict(data)



                    return componentsschemas_event_type_9
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_10 = TurnUpCapturedEvent.from_dict(data)



                    return componentsschemas_event_type_10
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_11 = TurnUpPassedEvent.from_dict(data)



                    return componentsschemas_event_type_11
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_12 = BonusPaidEvent.from_dict(data)



                    return componentsschemas_event_type_12
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_13 = HandStartedEvent.from_dict(data)



                    return componentsschemas_event_type_13
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_14 = HandDealtEvent.from_dict(data)



                    return componentsschemas_event_type_14
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_15 = CardsPlayedEvent.from_dict(data)



                    return componentsschemas_event_type_15
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_event_type_16 = TrickWonEvent.from_dict(data)



                    return componentsschemas_event_type_16
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_event_type_17 = HandScoredEvent.from_dict(data)



                return componentsschemas_event_type_17

            events_item = _parse_events_item(events_item_data)

            events.append(events_item)


        def _parse_receipt(data: object) -> None | Receipt:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                receipt_type_0 = Receipt.from_dict(data)



                return receipt_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Receipt, data)

        receipt = _parse_receipt(d.pop("receipt"))


        version = d.pop("version")

        _view = d.pop("view", UNSET)
        view: SeatView | Unset
        if isinstance(_view,  Unset):
            view = UNSET
        else:
            view = SeatView.from_dict(_view)




        action_result = cls(
            events=events,
            receipt=receipt,
            version=version,
            view=view,
        )

        return action_result

