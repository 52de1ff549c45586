"""Decorators shared by the blueprints: authentication plus the documented error responses."""

from __future__ import annotations

import functools
import http
import types
from collections.abc import Callable
from typing import Any, TypeVar

import flask_smorest
from flask_smorest.utils import (
    resolve_schema_instance,
    set_status_and_headers_in_response,
    unpack_tuple_response,
)
from marshmallow import RAISE
from webargs import core
from werkzeug import Response

from services.api.auth import SECURITY, authenticated
from services.api.context import current_flask_app, current_g
from services.api.plain_load import PlainParser

F = TypeVar("F", bound=Callable[..., Any])
SMOREST_CONTEXT = "_flask_smorest"  # the key of flask-smorest's section of `g` (`flask_smorest.utils.get_appcontext`)
Decorator = Callable[[F], F]
# The options of `arguments` its one layer knows: flask-smorest's documentation, and those webargs passes to the
# parser as they are (any other, e.g. `as_kwargs`, keeps webargs' layer).
ONE_LAYER_ARGUMENTS = frozenset(
    {"location", "content_type", "required", "description", "example", "examples"}
    | {"unknown", "error_status_code", "error_headers"}
)


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    """flask-smorest's Blueprint with typed decorators (the package ships no type information), reading JSON
    bodies strictly (`services.api.strict_json`), and the schemas that opt in by their plans
    (`services.api.plain_load`)."""

    ARGUMENTS_PARSER = PlainParser()

    def route(self, rule: str, **options: Any) -> Callable[[F], F]:
        decorator: Callable[[F], F] = super().route(rule, **options)
        return decorator

    def arguments(self, schema: Any, **kwargs: Any) -> Callable[[F], F]:
        """flask-smorest's `arguments`, its documentation and its parsing (the parser's `parse`, with the same
        arguments), in one layer around the view instead of webargs' and flask-smorest's two."""
        if kwargs.get("location") == "query":
            kwargs.setdefault("unknown", RAISE)  # webargs would exclude unknown query parameters silently
        document: Callable[[F], F] = super().arguments(schema, **kwargs)
        if not ONE_LAYER_ARGUMENTS.issuperset(kwargs):
            return document
        parser: PlainParser = self.ARGUMENTS_PARSER
        location = kwargs.get("location", "json")
        options = {
            "unknown": kwargs.get("unknown", core._UNKNOWN_DEFAULT_PARAM),
            "validate": None,
            "error_status_code": kwargs.get("error_status_code"),
            "error_headers": kwargs.get("error_headers"),
        }
        parse = functools.partial(
            parser.parse_by, parser.plan_of(schema, location, options), schema, location=location, **options
        )

        def decorator(view: F) -> F:
            layered = document(view)

            @functools.wraps(view)
            def parsed(*args: Any, **kw: Any) -> Any:
                return view(*args, parse(), **kw)

            parsed.__dict__.update(layered.__dict__)  # the documentation
            parsed.__wrapped__ = view
            return parsed  # type: ignore[return-value]

        return decorator

    def response(self, status_code: int, schema: Any = None, **kwargs: Any) -> Callable[[F], F]:
        """flask-smorest's `response`, its documentation and its answer (the same dump, `result_dump` and JSON)
        in a layer that calls the view directly (flask-smorest's calls it through `current_app.ensure_sync`)."""
        document: Callable[[F], F] = super().response(status_code, schema, **kwargs)
        dumped_by = resolve_schema_instance(schema)
        prepared = self._prepare_response_content

        def decorator(view: F) -> F:
            layered = document(view)

            @functools.wraps(view)
            def answered(*args: Any, **kw: Any) -> Any:
                result, status, headers = unpack_tuple_response(view(*args, **kw))
                if isinstance(result, Response):
                    set_status_and_headers_in_response(result, status, headers)
                    return result
                result_dump = result if dumped_by is None else dumped_by.dump(result)
                # flask-smorest's `get_appcontext()` and `jsonify`, without their look-ups through Flask's proxies
                current_g().setdefault(SMOREST_CONTEXT, {})["result_dump"] = result_dump
                answer = current_flask_app().json.response(prepared(result_dump))
                set_status_and_headers_in_response(answer, status, headers)
                if status is None:
                    answer.status_code = status_code
                return answer

            answered.__dict__.update(layered.__dict__)  # the documentation
            answered.__wrapped__ = view
            return answered  # type: ignore[return-value]

        return decorator

    def alt_response(self, status_code: int, response: Any = None, **kwargs: Any) -> Callable[[F], F]:
        return _unlayered(super().alt_response(status_code, response, **kwargs))

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[F], F]:
        return _unlayered(flask_smorest.Blueprint.doc(**kwargs))


def _unlayered(document: Callable[[F], F]) -> Callable[[F], F]:
    """flask-smorest's decorator `document`, which only documents: it wraps the view in a layer that calls it
    through `current_app.ensure_sync` (the identity in `SyncFlask`) and carries the documentation. Here a copy
    of the view carries the documentation instead, so that no request pays for the layer."""

    def decorator(view: F) -> F:
        layer = document(view)
        if type(view) is not types.FunctionType:
            return layer
        copy = types.FunctionType(view.__code__, view.__globals__, view.__name__, view.__defaults__, view.__closure__)
        copy.__kwdefaults__ = view.__kwdefaults__
        functools.update_wrapper(copy, view)
        copy.__dict__.update(layer.__dict__)
        return copy  # type: ignore[return-value]

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
