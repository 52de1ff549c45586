from enum import StrEnum

class ReadyStatus(StrEnum):
    READY = "ready"
    UNAVAILABLE = "unavailable"

    def __str__(self) -> str:
        return str(self.value)
