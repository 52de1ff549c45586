from enum import StrEnum

class PlayerSeatedEventType(StrEnum):
    PLAYER_SEATED = "player_seated"

    def __str__(self) -> str:
        return str(self.value)
