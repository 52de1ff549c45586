"""Errors raised by the pure domain; each carries a stable machine code."""

from __future__ import annotations


class DomainError(Exception):
    """Base of every rule or option error. `code` is stable for clients."""

    code = "domain_error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class RuleError(DomainError):
    """An action that the rules do not allow in the current state."""

    code = "illegal_action"


class NotYourTurn(RuleError):
    code = "not_your_turn"


class OptionError(DomainError):
    """A table option that is unknown or out of range."""

    code = "invalid_option"


class ConflictError(DomainError):
    """The action conflicts with the table's state (seat taken, table full...)."""

    code = "conflict"
