from typing import Literal

OpenedTableStatus = Literal['between_deals', 'closed', 'open', 'playing']

OPENED_TABLE_STATUS_VALUES: set[OpenedTableStatus] = { 'between_deals', 'closed', 'open', 'playing',  }

def check_opened_table_status(value: str) -> OpenedTableStatus:
    if value in OPENED_TABLE_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {OPENED_TABLE_STATUS_VALUES!r}")
