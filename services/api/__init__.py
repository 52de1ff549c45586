"""The public REST API (docs/api.md): a Flask app factory with flask-smorest blueprints.

`create_app(settings=None, container=None)` builds the app. Without a
container, the services are wired on the first request (per process, so a
forking server opens its pools in each worker) from `settings`, which default
to `Settings.from_env()`. With CARDLEDGER_TRUSTED_PROXIES > 0 the outermost
WSGI layer believes the proxies' X-Forwarded-For/-Proto (`services.api.middleware.proxies`). With
CARDLEDGER_CORS_ORIGINS the origins it names may call the API from a browser (`services.api.middleware.cors`).
/docs is Swagger UI from a Python package, offline (`services.api.spec.swagger_ui`); /ui/ is the web viewer
(`services.api.ui`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from flask import Flask, Response
from flask_smorest import Api
from werkzeug.exceptions import HTTPException

from infra.config import ServingLimits, Settings
from infra.signing import signing_seed
from services.api import ui
from services.api.deps import EXTENSION, ContainerHolder
from services.api.json_provider import JsonProvider
from services.api.middleware.admission import Admission
from services.api.middleware.cors import CorsPolicy, install_cors
from services.api.middleware.limits import install_limits, limit_config
from services.api.middleware.metrics import install_metrics
from services.api.middleware.problems import PROBLEM_JSON, handle_http_exception, install_error_handlers
from services.api.middleware.proxies import WSGIApp, behind_proxies
from services.api.middleware.request_ids import install_request_ids
from services.api.resources import actions, history, keys, ops, players, reports, seat_stream, stream, tables
from services.api.schemas.answers import ProblemSchema
from services.api.spec import swagger_ui
from services.api.spec.meta import RESPONSE_HEADERS, SharedHeadersPlugin, package_version
from services.api.spec.types import TypedMarshmallowPlugin
from services.bootstrap import Container, bootstrap

API_TITLE = "cardledger"
BLUEPRINTS = (
    players.blp,
    tables.blp,
    actions.blp,
    history.blp,
    reports.blp,
    keys.blp,
    stream.blp,
    seat_stream.blp,
    ops.blp,
)
# flask-smorest tags each operation with its blueprint's name: the rate-limited operations' tags.
LIMITED_TAGS = frozenset(blueprint.name for blueprint in BLUEPRINTS if blueprint.rate_limit is not None)

log = logging.getLogger("cardledger.api")


class CardLedgerApi(Api):  # type: ignore[misc]
    """flask-smorest's Api with problem+json errors, in the answers and in the document."""

    ERROR_SCHEMA = ProblemSchema

    def handle_http_exception(self, error: HTTPException) -> Response:
        return handle_http_exception(error)


def base_config(settings: Settings) -> dict[str, Any]:
    return {
        "API_TITLE": API_TITLE,
        "API_VERSION": package_version(),
        "OPENAPI_VERSION": "3.1.0",
        "OPENAPI_URL_PREFIX": "/",
        "OPENAPI_JSON_PATH": "openapi.json",
        "OPENAPI_SWAGGER_UI_PATH": "docs",
        "OPENAPI_SWAGGER_UI_URL": swagger_ui.ASSETS_URL,  # served by this app, from a package: no CDN
        # No validator badge: Swagger UI would send the document's URL to validator.swagger.io from every page.
        "OPENAPI_SWAGGER_UI_CONFIG": {"validatorUrl": None},
        "API_SPEC_OPTIONS": {
            "info": {
                "description": "Event-sourced referee and ledger for Cholek Tiga and Cha Kau Tsz. "
                "Every error is application/problem+json (RFC 9457) with a stable `code`.",
            },
            "servers": [
                {"url": "/", "description": "the server that serves this document"},
                {"url": "http://127.0.0.1:8000", "description": "`cardledger api` on this machine (default port)"},
            ],
            "components": {
                "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
                "headers": dict(RESPONSE_HEADERS),
            },
        },
        "MAX_CONTENT_LENGTH": 64 * 1024,
        "SSE_MAX_SECONDS": 300,
        "SSE_HEARTBEAT_SECONDS": 15,
        "LONG_POLL_SECONDS": settings.serving.long_poll_seconds,
    }


def create_app(
    settings: Settings | None = None,
    container: Container | None = None,
    config: Mapping[str, Any] | None = None,
    middleware: Sequence[Callable[[WSGIApp], WSGIApp]] = (),
) -> Flask:
    """The API app. `container` (tests) wins over `settings`; `config` overrides Flask settings. `middleware`
    wraps the WSGI app, innermost first; the trusted proxies' ProxyFix goes around them all, so that each sees
    the client's address."""
    if settings is None:
        settings = container.settings if container is not None else Settings.from_env()
    resolved = settings

    app = Flask("cardledger")
    app.config.update(base_config(settings))
    app.config.update(limit_config(settings.rate_limits))
    app.config.update(dict(config or {}))
    app.json = JsonProvider(app)

    app.extensions[EXTENSION] = ContainerHolder(lambda: bootstrap(resolved), container)
    if container is not None:
        container.ledger.commands.require_signing_key()  # an API never signs under a key a verifier cannot find

    plugins = {
        "marshmallow_plugin": TypedMarshmallowPlugin(),
        "extra_plugins": [SharedHeadersPlugin(LIMITED_TAGS, PROBLEM_JSON)],
    }
    api = CardLedgerApi(app, spec_kwargs=plugins)
    for blueprint in BLUEPRINTS:
        api.register_blueprint(blueprint)
    app.register_blueprint(swagger_ui.blp)  # a plain Flask blueprint: not part of the OpenAPI document
    app.register_blueprint(ui.blp)  # the web viewer at /ui/, static files (services/api/ui/)

    install_request_ids(app)  # first: every other hook and every log line of the request sees its id
    install_error_handlers(app)
    install_metrics(app)
    redis_url = container.redis_url if container is not None else settings.redis_url
    install_limits(app, redis_url, BLUEPRINTS)
    install_cors(app, settings.cors_origins)
    wsgi: WSGIApp = app.wsgi_app
    for wrap in middleware:
        wsgi = wrap(wsgi)
    app.wsgi_app = behind_proxies(wsgi, settings.trusted_proxies)  # type: ignore[method-assign,assignment]
    return app


def served_admission(limits: ServingLimits, cors: CorsPolicy | None = None) -> Callable[[WSGIApp], WSGIApp]:
    """The middleware that admits requests and streams apart, sized by `limits`."""

    def admission(wsgi: WSGIApp) -> WSGIApp:
        return Admission(
            wsgi,
            limits.threads,
            limits.streams,
            limits.queue_seconds,
            limits.streams_per_caller,
            limits.requests_per_caller,
            cors=cors,
            streams_per_address=limits.streams_per_address,
            reserved_streams=limits.streams_reserved,
        )

    return admission


def create_served_app() -> Flask:
    """The app as gunicorn serves it (`supervisor.gunicorn_command`): requests and streams admitted apart, as
    many at once as CARDLEDGER_API_THREADS and CARDLEDGER_API_STREAMS say (`services.api.middleware.admission`)."""
    settings = Settings.from_env()
    signing_seed(settings)  # no signing key (or a malformed one): the worker refuses to start, naming the variable

    # Its refusals carry the CORS headers too.
    admission = served_admission(settings.serving, CorsPolicy(settings.cors_origins))
    # Admission inside the proxy fix: it counts streams per caller by the client's address, not the proxy's.
    return create_app(settings, middleware=[admission])


__all__ = ["create_app", "create_served_app", "served_admission"]
