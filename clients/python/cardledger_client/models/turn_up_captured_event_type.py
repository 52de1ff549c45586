from typing import Literal

TurnUpCapturedEventType = Literal['turn_up_captured']

TURN_UP_CAPTURED_EVENT_TYPE_VALUES: set[TurnUpCapturedEventType] = { 'turn_up_captured',  }

def check_turn_up_captured_event_type(value: str) -> TurnUpCapturedEventType:
    if value in TURN_UP_CAPTURED_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TURN_UP_CAPTURED_EVENT_TYPE_VALUES!r}")
