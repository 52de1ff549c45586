from typing import Literal

ListTablesStatus = Literal['between_deals', 'closed', 'open', 'playing']

LIST_TABLES_STATUS_VALUES: set[ListTablesStatus] = { 'between_deals', 'closed', 'open', 'playing',  }

def check_list_tables_status(value: str) -> ListTablesStatus:
    if value in LIST_TABLES_STATUS_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LIST_TABLES_STATUS_VALUES!r}")
