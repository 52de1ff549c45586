from typing import Literal

BonusPaidEventType = Literal['bonus_paid']

BONUS_PAID_EVENT_TYPE_VALUES: set[BonusPaidEventType] = { 'bonus_paid',  }

def check_bonus_paid_event_type(value: str) -> BonusPaidEventType:
    if value in BONUS_PAID_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {BONUS_PAID_EVENT_TYPE_VALUES!r}")
