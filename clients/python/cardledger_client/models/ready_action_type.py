from typing import Literal

ReadyActionType = Literal['ready']

READY_ACTION_TYPE_VALUES: set[ReadyActionType] = { 'ready',  }

def check_ready_action_type(value: str) -> ReadyActionType:
    if value in READY_ACTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {READY_ACTION_TYPE_VALUES!r}")
