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


def errors(blp: Blueprint, *codes: int) -> Callable[[F], F]:
    """Document `codes` as problem+json error responses of the operation."""

    def decorator(view: F) -> F:
        for code in sorted(set(codes), reverse=True):
            view = blp.alt_response(code, response=response_name(code))(view)
        return view

    return decorator


def secured(blp: Blueprint, *codes: int) -> Callable[[F], F]:
    """Bearer authentication (checked first) and its documentation, plus the error responses `codes`."""

    def decorator(view: F) -> F:
        view = errors(blp, 401, 429, *codes)(view)
        view = blp.doc(security=SECURITY)(view)
        return authenticated(view)

    return decorator
