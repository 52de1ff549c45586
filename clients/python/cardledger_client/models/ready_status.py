from typing import Literal

ReadyStatus = Literal['ready', 'unavailable']

READY_STATUS_VALUES: set[ReadyStatus] = { 'ready', 'unavailable',  }

def check_ready_status(value: str) -> ReadyStatus:
    if value in READY_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {READY_STATUS_VALUES!r}")
