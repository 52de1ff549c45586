"""Decorators shared by the blueprints: authentication plus the documented error responses."""

from __future__ import annotations

import http
from collections.abc import Callable
from typing import Any, TypeVar

import flask_smorest
from marshmallow import RAISE

from services.api.auth import SECURITY, authenticated
from services.api.strict_json import StrictParser

F = TypeVar("F", bound=Callable[..., Any])


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    """flask-smorest's Blueprint with typed decorators (the package ships no type information), reading JSON
    bodies strictly (`services.api.strict_json`) and refusing unknown query parameters."""

    ARGUMENTS_PARSER = StrictParser()

    def route(self, rule: str, **options: Any) -> Callable[[F], F]:
        decorator: Callable[[F], F] = super().route(rule, **options)
        return decorator

    def arguments(self, schema: Any, **kwargs: Any) -> Callable[[F], F]:
        if kwargs.get("location") == "query":
            kwargs.setdefault("unknown", RAISE)  # webargs would exclude unknown query parameters silently
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
