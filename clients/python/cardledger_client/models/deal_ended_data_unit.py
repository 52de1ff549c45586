from typing import Literal

DealEndedDataUnit = Literal['cents', 'points']

DEAL_ENDED_DATA_UNIT_VALUES: set[DealEndedDataUnit] = { 'cents', 'points',  }

def check_deal_ended_data_unit(value: str) -> DealEndedDataUnit:
    if value in DEAL_ENDED_DATA_UNIT_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {DEAL_ENDED_DATA_UNIT_VALUES!r}")
