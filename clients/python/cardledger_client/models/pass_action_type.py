from typing import Literal

PassActionType = Literal['pass']

PASS_ACTION_TYPE_VALUES: set[PassActionType] = { 'pass',  }

def check_pass_action_type(value: str) -> PassActionType:
    if value in PASS_ACTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PASS_ACTION_TYPE_VALUES!r}")
