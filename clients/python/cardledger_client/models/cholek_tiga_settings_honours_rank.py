from enum import StrEnum

class CholekTigaSettingsHonoursRank(StrEnum):
    ACE = "ace"
    OWN = "own"

    def __str__(self) -> str:
        return str(self.value)
