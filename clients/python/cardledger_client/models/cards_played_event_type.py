from enum import StrEnum

class CardsPlayedEventType(StrEnum):
    CARDS_PLAYED = "cards_played"

    def __str__(self) -> str:
        return str(self.value)
