from enum import StrEnum

class PlayChoiceType(StrEnum):
    PLAY = "play"

    def __str__(self) -> str:
        return str(self.value)
