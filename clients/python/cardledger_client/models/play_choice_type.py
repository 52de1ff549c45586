from typing import Literal

PlayChoiceType = Literal['play']

PLAY_CHOICE_TYPE_VALUES: set[PlayChoiceType] = { 'play',  }

def check_play_choice_type(value: str) -> PlayChoiceType:
    if value in PLAY_CHOICE_TYPE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {PLAY_CHOICE_TYPE_VALUES!r}")
