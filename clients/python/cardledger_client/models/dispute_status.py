from enum import StrEnum

class DisputeStatus(StrEnum):
    ENDED = "ended"
    PLAYING = "playing"

    def __str__(self) -> str:
        return str(self.value)
