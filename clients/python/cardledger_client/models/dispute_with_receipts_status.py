from typing import Literal

DisputeWithReceiptsStatus = Literal['ended', 'playing']

DISPUTE_WITH_RECEIPTS_STATUS_VALUES: set[DisputeWithReceiptsStatus] = { 'ended', 'playing',  }

def check_dispute_with_receipts_status(value: str) -> DisputeWithReceiptsStatus:
    if value in DISPUTE_WITH_RECEIPTS_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DISPUTE_WITH_RECEIPTS_STATUS_VALUES!r}")
