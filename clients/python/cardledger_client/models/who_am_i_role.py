from enum import StrEnum

class WhoAmIRole(StrEnum):
    AUDITOR = "auditor"
    PLAYER = "player"

    def __str__(self) -> str:
        return str(self.value)
