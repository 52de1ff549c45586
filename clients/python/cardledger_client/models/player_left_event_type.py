from enum import StrEnum

class PlayerLeftEventType(StrEnum):
    PLAYER_LEFT = "player_left"

    def __str__(self) -> str:
        return str(self.value)
