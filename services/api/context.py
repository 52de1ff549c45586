"""The current request, its `g` and its app, read from Flask's context variables directly.

`flask.request`, `flask.g` and `flask.current_app` are `LocalProxy` objects: every attribute read through one
goes through three Python calls to find the object. The hooks and helpers that run on every request read the
context variable once instead (one C call). Outside a context they raise the same `RuntimeError` as the proxies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flask.globals import _cv_app, _cv_request

if TYPE_CHECKING:
    from flask import Flask, Request

_NO_REQUEST = "Working outside of request context."
_NO_APP = "Working outside of application context."


def current_request() -> Request:
    context = _cv_request.get(None)
    if context is None:
        raise RuntimeError(_NO_REQUEST)
    return context.request


def current_g() -> Any:
    """The app context's `g` (flask's `_AppCtxGlobals`)."""
    context = _cv_app.get(None)
    if context is None:
        raise RuntimeError(_NO_APP)
    return context.g


def current_flask_app() -> Flask:
    context = _cv_app.get(None)
    if context is None:
        raise RuntimeError(_NO_APP)
    return context.app
