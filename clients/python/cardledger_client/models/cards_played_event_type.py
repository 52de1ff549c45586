from typing import Literal

CardsPlayedEventType = Literal['cards_played']

CARDS_PLAYED_EVENT_TYPE_VALUES: set[CardsPlayedEventType] = { 'cards_played',  }

def check_cards_played_event_type(value: str) -> CardsPlayedEventType:
    if value in CARDS_PLAYED_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CARDS_PLAYED_EVENT_TYPE_VALUES!r}")
