from enum import StrEnum

class CholekTigaOptionsHonoursRank(StrEnum):
    ACE = "ace"
    OWN = "own"

    def __str__(self) -> str:
        return str(self.value)
