from enum import StrEnum

class CloseActionType(StrEnum):
    CLOSE = "close"

    def __str__(self) -> str:
        return str(self.value)
