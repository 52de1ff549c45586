from enum import StrEnum

class SeatViewGame(StrEnum):
    CHA_KAU_TSZ = "cha-kau-tsz"
    CHOLEK_TIGA = "cholek-tiga"

    def __str__(self) -> str:
        return str(self.value)
