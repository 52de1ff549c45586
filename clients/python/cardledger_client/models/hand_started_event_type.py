from typing import Literal

HandStartedEventType = Literal['hand_started']

HAND_STARTED_EVENT_TYPE_VALUES: set[HandStartedEventType] = { 'hand_started',  }

def check_hand_started_event_type(value: str) -> HandStartedEventType:
    if value in HAND_STARTED_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {HAND_STARTED_EVENT_TYPE_VALUES!r}")
