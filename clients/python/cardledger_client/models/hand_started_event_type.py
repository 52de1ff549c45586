from enum import StrEnum

class HandStartedEventType(StrEnum):
    HAND_STARTED = "hand_started"

    def __str__(self) -> str:
        return str(self.value)
