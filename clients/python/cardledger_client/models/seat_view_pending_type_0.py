from typing import Literal

SeatViewPendingType0 = Literal['1C', '1M', '1S', '2C', '2M', '2S', '3C', '3M', '3S', '4C', '4M', '4S', '5C', '5M', '5S', '6C', '6M', '6S', '7C', '7M', '7S', '8C', '8M', '8S', '9C', '9M', '9S', 'OT', 'RF', 'WF']

SEAT_VIEW_PENDING_TYPE_0_VALUES: set[SeatViewPendingType0] = { '1C', '1M', '1S', '2C', '2M', '2S', '3C', '3M', '3S', '4C', '4M', '4S', '5C', '5M', '5S', '6C', '6M', '6S', '7C', '7M', '7S', '8C', '8M', '8S', '9C', '9M', '9S', 'OT', 'RF', 'WF',  }

def check_seat_view_pending_type_0(value: str) -> SeatViewPendingType0:
    if value in SEAT_VIEW_PENDING_TYPE_0_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SEAT_VIEW_PENDING_TYPE_0_VALUES!r}")
