from typing import Literal

DiscardActionType = Literal['discard']

DISCARD_ACTION_TYPE_VALUES: set[DiscardActionType] = { 'discard',  }

def check_discard_action_type(value: str) -> DiscardActionType:
    if value in DISCARD_ACTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DISCARD_ACTION_TYPE_VALUES!r}")
