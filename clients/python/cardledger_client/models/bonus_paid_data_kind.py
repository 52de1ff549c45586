from typing import Literal

BonusPaidDataKind = Literal['ayam', 'kandang']

BONUS_PAID_DATA_KIND_VALUES: set[BonusPaidDataKind] = { 'ayam', 'kandang',  }

def check_bonus_paid_data_kind(value: str) -> BonusPaidDataKind:
    if value in BONUS_PAID_DATA_KIND_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {BONUS_PAID_DATA_KIND_VALUES!r}")
