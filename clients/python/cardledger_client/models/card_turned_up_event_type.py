from enum import StrEnum

class CardTurnedUpEventType(StrEnum):
    CARD_TURNED_UP = "card_turned_up"

    def __str__(self) -> str:
        return str(self.value)
