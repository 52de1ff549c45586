from enum import StrEnum

class TurnUpCapturedEventType(StrEnum):
    TURN_UP_CAPTURED = "turn_up_captured"

    def __str__(self) -> str:
        return str(self.value)
