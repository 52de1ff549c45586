from typing import Literal

VerificationProblemCheck = Literal['commitment', 'deck', 'hash_chain', 'replay']

VERIFICATION_PROBLEM_CHECK_VALUES: set[VerificationProblemCheck] = { 'commitment', 'deck', 'hash_chain', 'replay',  }

def check_verification_problem_check(value: str) -> VerificationProblemCheck:
    if value in VERIFICATION_PROBLEM_CHECK_VALUES:
        return value
    raise TypeError(f"Unexpected value {value!r}. Expected one of {VERIFICATION_PROBLEM_CHECK_VALUES!r}")
