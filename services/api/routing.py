"""The blueprints' base class (with the rate limit each declares) and the decorators they share: authentication
plus the documented error responses."""

from __future__ import annotations

import http
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

import flask_smorest
from marshmallow import RAISE

from services.api.middleware.auth import SECURITY, authenticated
from services.api.schemas.plain import PlainParser

F = TypeVar("F", bound=Callable[..., Any])


class RateLimit(NamedTuple):
    """A blueprint's rate limit: which of the settings' limits (`infra.config.RateLimits`: "reads", ...) and
    whom it counts ("token", or "address" for a caller who has none yet)."""

    limit: str
    per: str = "token"


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    """flask-smorest's Blueprint with typed decorators (the package ships no type information), reading JSON
    bodies strictly (`services.api.middleware.strict_json`), the opted-in schemas by their plans
    (`services.api.schemas.plain`), and refusing unknown query parameters; `rate_limit` is the limit on every
    route of the blueprint (`services.api.middleware.limits`), None for none."""

    ARGUMENTS_PARSER = PlainParser()

    def __init__(self, *args: Any, rate_limit: RateLimit | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rate_limit = rate_limit

    def route(self, rule: str, **options: Any) -> Callable[[F], F]:
        decorator: Callable[[F], F] = super().route(rule, **options)
        return decorator

    def arguments(self, schema: Any, **kwargs: Any) -> Callable[[F], F]:
        location = kwargs.get("location", self.ARGUMENTS_PARSER.location)
        # Said for every location, so that the plans load as webargs does; webargs would exclude unknown query
        # parameters silently.
        kwargs.setdefault(
            "unknown", RAISE if location == "query" else PlainParser.DEFAULT_UNKNOWN_BY_LOCATION[location]
        )
        decorator: Callable[[F], F] = super().arguments(schema, **kwargs)
        return decorator

    def response(self, status_code: int, schema: Any = None, **kwargs: Any) -> Callable[[F], F]:
        decorator: Callable[[F], F] = super().response(status_code, schema, **kwargs)
        return decorator

    def alt_response(self, status_code: int, response: Any = None, **kwargs: Any) -> Callable[[F], F]:
        decorator: Callable[[F], F] = super().alt_response(status_code, response, **kwargs)
        return decorator

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[F], F]:
        decorator: Callable[[F], F] = flask_smorest.Blueprint.doc(**kwargs)
        return decorator


def response_name(status: int) -> str:
    return http.HTTPStatus(status).name


def error_responses(*codes: int) -> dict[int, str]:
    """The operation's `responses` documenting `codes` as problem+json error responses (references to the
    components flask-smorest's Api registers under each status's name)."""
    return {code: response_name(code) for code in sorted(set(codes), reverse=True)}


def errors(blp: Blueprint, *codes: int, **doc: Any) -> Callable[[F], F]:
    """Document `codes` as problem+json error responses of the operation, with the rest of `doc`. One `doc`
    layer, not an `alt_response` per code: each of flask-smorest's decorators wraps the view once more."""
    responses = {**error_responses(*codes), **doc.pop("responses", {})}
    return blp.doc(responses=responses, **doc)


def secured(blp: Blueprint, *codes: int, **doc: Any) -> Callable[[F], F]:
    """Bearer authentication (checked first) and its documentation, plus the error responses `codes` and the
    rest of `doc`, in one documentation layer."""

    def decorator(view: F) -> F:
        return authenticated(errors(blp, 401, 429, *codes, security=SECURITY, **doc)(view))

    return decorator
