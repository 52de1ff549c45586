from typing import Literal

CholekTigaTableCreateGame = Literal['cholek-tiga']

CHOLEK_TIGA_TABLE_CREATE_GAME_VALUES: set[CholekTigaTableCreateGame] = { 'cholek-tiga',  }

def check_cholek_tiga_table_create_game(value: str) -> CholekTigaTableCreateGame:
    if value in CHOLEK_TIGA_TABLE_CREATE_GAME_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {CHOLEK_TIGA_TABLE_CREATE_GAME_VALUES!r}")
