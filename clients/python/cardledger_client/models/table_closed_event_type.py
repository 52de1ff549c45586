from enum import StrEnum

class TableClosedEventType(StrEnum):
    TABLE_CLOSED = "table_closed"

    def __str__(self) -> str:
        return str(self.value)
