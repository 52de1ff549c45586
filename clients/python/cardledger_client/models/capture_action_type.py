from typing import Literal

CaptureActionType = Literal['capture']

CAPTURE_ACTION_TYPE_VALUES: set[CaptureActionType] = { 'capture',  }

def check_capture_action_type(value: str) -> CaptureActionType:
    if value in CAPTURE_ACTION_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CAPTURE_ACTION_TYPE_VALUES!r}")
