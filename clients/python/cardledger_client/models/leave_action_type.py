from enum import StrEnum

class LeaveActionType(StrEnum):
    LEAVE = "leave"

    def __str__(self) -> str:
        return str(self.value)
