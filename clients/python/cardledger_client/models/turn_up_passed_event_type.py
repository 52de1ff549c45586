from enum import StrEnum

class TurnUpPassedEventType(StrEnum):
    TURN_UP_PASSED = "turn_up_passed"

    def __str__(self) -> str:
        return str(self.value)
