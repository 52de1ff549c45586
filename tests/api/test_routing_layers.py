"""flask-smorest's documentation-only decorators (`doc`, `alt_response`) leave no layer around a view: the
documentation rides on a copy of the view function, which requests call directly."""

from __future__ import annotations

from typing import Any

from flask import Flask

from services.api.routing import Blueprint


def test_documenting_a_view_adds_no_layer_and_keeps_the_documentation() -> None:
    blp = Blueprint("layers", __name__)

    def view(value: int, *, step: int = 2) -> int:
        return value + step

    documented = blp.alt_response(404, response="NOT_FOUND")(blp.doc(summary="adds")(view))
    assert documented.__code__ is view.__code__
    assert documented(1) == 3 and documented(1, step=5) == 6
    assert documented._apidoc["manual_doc"] == {"summary": "adds"}  # type: ignore[attr-defined]
    assert 404 in documented._apidoc["response"]["responses"]  # type: ignore[attr-defined]
    assert not hasattr(view, "_apidoc"), "the view itself is left as it was"


def test_the_action_route_holds_no_documentation_layer(app: Flask) -> None:
    """Along the route's chain of views: authentication, one layer per parsed argument (no webargs and
    flask-smorest layers apart), the response's dump and the view itself; none of the documentation-only layers."""
    codes = set()
    view: Any = app.view_functions["actions.act"]
    while view is not None:  # a documented copy of a layer shares its code (and calls what it calls)
        codes.add(view.__code__)
        view = getattr(view, "__wrapped__", None)
    where = sorted(f"{code.co_filename.rsplit('/', 1)[-1]}/{code.co_name}" for code in codes)
    assert where == ["actions.py/act", "auth.py/wrapper", "routing.py/answered", "routing.py/parsed"]


def test_one_layer_arguments_parse_as_webargs_did_and_keep_the_documentation() -> None:
    """The layer passes the parsed arguments positionally after the view's own (webargs' order), keeps both
    arguments' documentation, and an option it does not know (`as_kwargs`) keeps webargs' own layers."""
    from marshmallow import Schema, fields

    class Body(Schema):
        name = fields.String(required=True)

    class Query(Schema):
        page = fields.Integer()

    blp = Blueprint("one_layer", __name__)

    def view(body: dict[str, Any], query: dict[str, Any], **path: Any) -> dict[str, Any]:
        return {"body": body, "query": query, "path": path}

    layered = blp.arguments(Body())(blp.arguments(Query(), location="query")(view))
    assert layered.__wrapped__.__wrapped__ is view  # type: ignore[attr-defined]
    documented = layered._apidoc["arguments"]["parameters"]  # type: ignore[attr-defined]
    assert [parameter["in"] for parameter in documented] == ["query", "json"]

    app = Flask("one_layer")
    with app.test_request_context("/?page=3", method="POST", json={"name": "north"}):
        assert layered(table_id=1) == {"body": {"name": "north"}, "query": {"page": 3}, "path": {"table_id": 1}}

    by_webargs = blp.arguments(Body(), as_kwargs=True)(lambda **kw: kw)
    assert "webargs" in by_webargs.__code__.co_filename
