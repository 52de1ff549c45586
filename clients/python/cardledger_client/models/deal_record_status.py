from typing import Literal

DealRecordStatus = Literal['ended', 'playing']

DEAL_RECORD_STATUS_VALUES: set[DealRecordStatus] = { 'ended', 'playing',  }

def check_deal_record_status(value: str) -> DealRecordStatus:
    if value in DEAL_RECORD_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DEAL_RECORD_STATUS_VALUES!r}")
