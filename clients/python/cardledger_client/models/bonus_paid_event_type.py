from enum import StrEnum

class BonusPaidEventType(StrEnum):
    BONUS_PAID = "bonus_paid"

    def __str__(self) -> str:
        return str(self.value)
