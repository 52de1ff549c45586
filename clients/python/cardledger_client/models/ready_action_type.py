from enum import StrEnum

class ReadyActionType(StrEnum):
    READY = "ready"

    def __str__(self) -> str:
        return str(self.value)
