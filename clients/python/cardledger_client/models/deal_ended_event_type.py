from typing import Literal

DealEndedEventType = Literal['deal_ended']

DEAL_ENDED_EVENT_TYPE_VALUES: set[DealEndedEventType] = { 'deal_ended',  }

def check_deal_ended_event_type(value: str) -> DealEndedEventType:
    if value in DEAL_ENDED_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DEAL_ENDED_EVENT_TYPE_VALUES!r}")
