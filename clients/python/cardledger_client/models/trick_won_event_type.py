from typing import Literal

TrickWonEventType = Literal['trick_won']

TRICK_WON_EVENT_TYPE_VALUES: set[TrickWonEventType] = { 'trick_won',  }

def check_trick_won_event_type(value: str) -> TrickWonEventType:
    if value in TRICK_WON_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TRICK_WON_EVENT_TYPE_VALUES!r}")
