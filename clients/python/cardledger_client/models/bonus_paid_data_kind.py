from enum import StrEnum

class BonusPaidDataKind(StrEnum):
    AYAM = "ayam"
    KANDANG = "kandang"

    def __str__(self) -> str:
        return str(self.value)
