from typing import Literal

LeaveActionType = Literal['leave']

LEAVE_ACTION_TYPE_VALUES: set[LeaveActionType] = { 'leave',  }

def check_leave_action_type(value: str) -> LeaveActionType:
    if value in LEAVE_ACTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LEAVE_ACTION_TYPE_VALUES!r}")
