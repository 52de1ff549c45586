from typing import Literal

TableClosedEventType = Literal['table_closed']

TABLE_CLOSED_EVENT_TYPE_VALUES: set[TableClosedEventType] = { 'table_closed',  }

def check_table_closed_event_type(value: str) -> TableClosedEventType:
    if value in TABLE_CLOSED_EVENT_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TABLE_CLOSED_EVENT_TYPE_VALUES!r}")
