from typing import Literal

TableOpenedEventType = Literal['table_opened']

TABLE_OPENED_EVENT_TYPE_VALUES: set[TableOpenedEventType] = { 'table_opened',  }

def check_table_opened_event_type(value: str) -> TableOpenedEventType:
    if value in TABLE_OPENED_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TABLE_OPENED_EVENT_TYPE_VALUES!r}")
