from typing import Literal

PlayActionType = Literal['play']

PLAY_ACTION_TYPE_VALUES: set[PlayActionType] = { 'play',  }

def check_play_action_type(value: str) -> PlayActionType:
    if value in PLAY_ACTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PLAY_ACTION_TYPE_VALUES!r}")
