from typing import Literal

DisputeStatus = Literal['ended', 'playing']

DISPUTE_STATUS_VALUES: set[DisputeStatus] = { 'ended', 'playing',  }

def check_dispute_status(value: str) -> DisputeStatus:
    if value in DISPUTE_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DISPUTE_STATUS_VALUES!r}")
