from typing import Literal

KeyAlgorithm = Literal['Ed25519']

KEY_ALGORITHM_VALUES: set[KeyAlgorithm] = { 'Ed25519',  }

def check_key_algorithm(value: str) -> KeyAlgorithm:
    if value in KEY_ALGORITHM_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {KEY_ALGORITHM_VALUES!r}")
