from enum import StrEnum

class TableOpenedEventType(StrEnum):
    TABLE_OPENED = "table_opened"

    def __str__(self) -> str:
        return str(self.value)
