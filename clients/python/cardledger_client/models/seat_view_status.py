from typing import Literal

SeatViewStatus = Literal['between_deals', 'closed', 'open', 'playing']

SEAT_VIEW_STATUS_VALUES: set[SeatViewStatus] = { 'between_deals', 'closed', 'open', 'playing',  }

def check_seat_view_status(value: str) -> SeatViewStatus:
    if value in SEAT_VIEW_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SEAT_VIEW_STATUS_VALUES!r}")
