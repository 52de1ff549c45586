from typing import Literal

CardDiscardedEventType = Literal['card_discarded']

CARD_DISCARDED_EVENT_TYPE_VALUES: set[CardDiscardedEventType] = { 'card_discarded',  }

def check_card_discarded_event_type(value: str) -> CardDiscardedEventType:
    if value in CARD_DISCARDED_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CARD_DISCARDED_EVENT_TYPE_VALUES!r}")
