from enum import StrEnum

class CaptureActionType(StrEnum):
    CAPTURE = "capture"

    def __str__(self) -> str:
        return str(self.value)
