from typing import Literal

SeatViewHandItem = Literal['1C', '1D', '1H', '1M', '1S', '2C', '2D', '2H', '2M', '2S', '3C', '3D', '3H', '3M', '3S', '4C', '4D', '4H', '4M', '4S', '5C', '5D', '5H', '5M', '5S', '6C', '6D', '6H', '6M', '6S', '7C', '7D', '7H', '7M', '7S', '8C', '8D', '8H', '8M', '8S', '9C', '9D', '9H', '9M', '9S', 'JC', 'KC', 'OT', 'QC', 'RF', 'WF']

SEAT_VIEW_HAND_ITEM_VALUES: set[SeatViewHandItem] = { '1C', '1D', '1H', '1M', '1S', '2C', '2D', '2H', '2M', '2S', '3C', '3D', '3H', '3M', '3S', '4C', '4D', '4H', '4M', '4S', '5C', '5D', '5H', '5M', '5S', '6C', '6D', '6H', '6M', '6S', '7C', '7D', '7H', '7M', '7S', '8C', '8D', '8H', '8M', '8S', '9C', '9D', '9H', '9M', '9S', 'JC', 'KC', 'OT', 'QC', 'RF', 'WF',  }

def check_seat_view_hand_item(value: str) -> SeatViewHandItem:
    if value in SEAT_VIEW_HAND_ITEM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SEAT_VIEW_HAND_ITEM_VALUES!r}")
