from typing import Literal

TableGame = Literal['cha-kau-tsz', 'cholek-tiga']

TABLE_GAME_VALUES: set[TableGame] = { 'cha-kau-tsz', 'cholek-tiga',  }

def check_table_game(value: str) -> TableGame:
    if value in TABLE_GAME_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {TABLE_GAME_VALUES!r}")
