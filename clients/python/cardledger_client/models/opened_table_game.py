from typing import Literal

OpenedTableGame = Literal['cha-kau-tsz', 'cholek-tiga']

OPENED_TABLE_GAME_VALUES: set[OpenedTableGame] = { 'cha-kau-tsz', 'cholek-tiga',  }

def check_opened_table_game(value: str) -> OpenedTableGame:
    if value in OPENED_TABLE_GAME_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {OPENED_TABLE_GAME_VALUES!r}")
