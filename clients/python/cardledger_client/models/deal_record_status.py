from enum import StrEnum

class DealRecordStatus(StrEnum):
    ENDED = "ended"
    PLAYING = "playing"

    def __str__(self) -> str:
        return str(self.value)
