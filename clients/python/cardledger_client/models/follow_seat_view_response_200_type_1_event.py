from enum import StrEnum

class FollowSeatViewResponse200Type1Event(StrEnum):
    ERROR = "error"
    VIEW = "view"

    def __str__(self) -> str:
        return str(self.value)
