from typing import Literal

CloseActionType = Literal['close']

CLOSE_ACTION_TYPE_VALUES: set[CloseActionType] = { 'close',  }

def check_close_action_type(value: str) -> CloseActionType:
    if value in CLOSE_ACTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CLOSE_ACTION_TYPE_VALUES!r}")
