from typing import Literal

CardTurnedUpEventType = Literal['card_turned_up']

CARD_TURNED_UP_EVENT_TYPE_VALUES: set[CardTurnedUpEventType] = { 'card_turned_up',  }

def check_card_turned_up_event_type(value: str) -> CardTurnedUpEventType:
    if value in CARD_TURNED_UP_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CARD_TURNED_UP_EVENT_TYPE_VALUES!r}")
