"""Errors the application service raises for the edges to shape (HTTP status and stable code)."""

from __future__ import annotations


class ServiceError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class Forbidden(ServiceError):
    status = 403
    code = "forbidden"


class NotFound(ServiceError):
    status = 404
    code = "not_found"


class Conflict(ServiceError):
    status = 409
    code = "conflict"


class PreconditionFailed(ServiceError):
    status = 412
    code = "version_mismatch"


class Unprocessable(ServiceError):
    status = 422
    code = "unprocessable"
