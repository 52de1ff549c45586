from typing import Literal

DealStartedEventType = Literal['deal_started']

DEAL_STARTED_EVENT_TYPE_VALUES: set[DealStartedEventType] = { 'deal_started',  }

def check_deal_started_event_type(value: str) -> DealStartedEventType:
    if value in DEAL_STARTED_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DEAL_STARTED_EVENT_TYPE_VALUES!r}")
