from typing import Literal

TableStatus = Literal['between_deals', 'closed', 'open', 'playing']

TABLE_STATUS_VALUES: set[TableStatus] = { 'between_deals', 'closed', 'open', 'playing',  }

def check_table_status(value: str) -> TableStatus:
    if value in TABLE_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TABLE_STATUS_VALUES!r}")
