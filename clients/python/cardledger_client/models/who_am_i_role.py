from typing import Literal

WhoAmIRole = Literal['auditor', 'player']

WHO_AM_I_ROLE_VALUES: set[WhoAmIRole] = { 'auditor', 'player',  }

def check_who_am_i_role(value: str) -> WhoAmIRole:
    if value in WHO_AM_I_ROLE_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {WHO_AM_I_ROLE_VALUES!r}")
