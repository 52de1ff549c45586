from typing import Literal

PlayerSeatedEventType = Literal['player_seated']

PLAYER_SEATED_EVENT_TYPE_VALUES: set[PlayerSeatedEventType] = { 'player_seated',  }

def check_player_seated_event_type(value: str) -> PlayerSeatedEventType:
    if value in PLAYER_SEATED_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PLAYER_SEATED_EVENT_TYPE_VALUES!r}")
