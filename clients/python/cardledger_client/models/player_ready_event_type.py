from enum import StrEnum

class PlayerReadyEventType(StrEnum):
    PLAYER_READY = "player_ready"

    def __str__(self) -> str:
        return str(self.value)
