from enum import StrEnum

class TableStatus(StrEnum):
    BETWEEN_DEALS = "between_deals"
    CLOSED = "closed"
    OPEN = "open"
    PLAYING = "playing"

    def __str__(self) -> str:
        return str(self.value)
