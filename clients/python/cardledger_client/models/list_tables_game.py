from typing import Literal

ListTablesGame = Literal['cha-kau-tsz', 'cholek-tiga']

LIST_TABLES_GAME_VALUES: set[ListTablesGame] = { 'cha-kau-tsz', 'cholek-tiga',  }

def check_list_tables_game(value: str) -> ListTablesGame:
    if value in LIST_TABLES_GAME_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {LIST_TABLES_GAME_VALUES!r}")
