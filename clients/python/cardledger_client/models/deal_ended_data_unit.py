from enum import StrEnum

class DealEndedDataUnit(StrEnum):
    CENTS = "cents"
    POINTS = "points"

    def __str__(self) -> str:
        return str(self.value)
