from typing import Literal

SeatViewGame = Literal['cha-kau-tsz', 'cholek-tiga']

SEAT_VIEW_GAME_VALUES: set[SeatViewGame] = { 'cha-kau-tsz', 'cholek-tiga',  }

def check_seat_view_game(value: str) -> SeatViewGame:
    if value in SEAT_VIEW_GAME_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {SEAT_VIEW_GAME_VALUES!r}")
