from typing import Literal

SeatViewLastTrickType0PlaysItemCardsItem = Literal['1D', '1H', '1S', '2D', '2H', '2S', '3D', '3H', '3S', '4D', '4H', '4S', '5D', '5H', '5S', '6D', '6H', '6S', '7D', '7H', '7S', '8D', '8H', '8S', '9D', '9H', '9S', 'JC', 'KC', 'QC']

SEAT_VIEW_LAST_TRICK_TYPE_0_PLAYS_ITEM_CARDS_ITEM_VALUES: set[SeatViewLastTrickType0PlaysItemCardsItem] = { '1D', '1H', '1S', '2D', '2H', '2S', '3D', '3H', '3S', '4D', '4H', '4S', '5D', '5H', '5S', '6D', '6H', '6S', '7D', '7H', '7S', '8D', '8H', '8S', '9D', '9H', '9S', 'JC', 'KC', 'QC',  }

def check_seat_view_last_trick_type_0_plays_item_cards_item(value: str) -> SeatViewLastTrickType0PlaysItemCardsItem:
    if value in SEAT_VIEW_LAST_TRICK_TYPE_0_PLAYS_ITEM_CARDS_ITEM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SEAT_VIEW_LAST_TRICK_TYPE_0_PLAYS_ITEM_CARDS_ITEM_VALUES!r}")
