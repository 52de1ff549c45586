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
    """Along the route's chain of views: authentication, webargs' and flask-smorest's layers of the parsed
    arguments, the response's dump and the view itself; none of the documentation-only layers."""
    codes = set()
    view: Any = app.view_functions["actions.act"]
    while view is not None:
        codes.add(view.__code__)
        view = getattr(view, "__wrapped__", None)
    where = sorted(f"{code.co_filename.rsplit('/', 2)[-2]}/{code.co_name}" for code in codes)
    assert where == ["api/act", "api/wrapper", "flask_smorest/wrapper", "flask_smorest/wrapper", "webargs/wrapper"]
