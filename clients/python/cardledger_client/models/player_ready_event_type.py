from typing import Literal

PlayerReadyEventType = Literal['player_ready']

PLAYER_READY_EVENT_TYPE_VALUES: set[PlayerReadyEventType] = { 'player_ready',  }

def check_player_ready_event_type(value: str) -> PlayerReadyEventType:
    if value in PLAYER_READY_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PLAYER_READY_EVENT_TYPE_VALUES!r}")
