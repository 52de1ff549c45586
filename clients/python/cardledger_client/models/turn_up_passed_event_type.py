from typing import Literal

TurnUpPassedEventType = Literal['turn_up_passed']

TURN_UP_PASSED_EVENT_TYPE_VALUES: set[TurnUpPassedEventType] = { 'turn_up_passed',  }

def check_turn_up_passed_event_type(value: str) -> TurnUpPassedEventType:
    if value in TURN_UP_PASSED_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TURN_UP_PASSED_EVENT_TYPE_VALUES!r}")
