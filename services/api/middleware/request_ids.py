"""Request ids: taken from `X-Request-ID` (1 to 128 printable ASCII characters) or generated, sent back; and
the request's start (`g.request_started`), which its log line and the latency metric read.

The id is bound to the request's context (`services.logs.current_request_id`)
so that every log line of the request carries it and the events the request
appends record it in their metadata. A DEBUG line per request gives method,
route, status, duration and the client's address (the proxies' forwarded one
with CARDLEDGER_TRUSTED_PROXIES, `services.api.middleware.proxies`); never headers or bodies.
"""

from __future__ import annotations

import logging
import time

import flask
from flask import Flask, Response

from services.logs import REQUEST_ID_HEADER, new_request_id, reset_request_id, set_request_id, valid_request_id

log = logging.getLogger("cardledger.api.requests")
# X-Request-ID as the WSGI environ holds it: what `request.headers.get(REQUEST_ID_HEADER)` reads (a missing header
# is a KeyError raised and caught there).
REQUEST_ID_ENVIRON = "HTTP_" + REQUEST_ID_HEADER.upper().replace("-", "_")


def install_request_ids(app: Flask) -> None:
    @app.before_request
    def _bind_request_id() -> None:
        request_id = valid_request_id(flask.request.environ.get(REQUEST_ID_ENVIRON)) or new_request_id()
        context = flask.g
        context.request_id = request_id
        context.request_id_token = set_request_id(request_id)
        context.request_started = time.perf_counter()

    @app.after_request
    def _send_request_id(response: Response) -> Response:
        context = flask.g
        request_id = context.get("request_id")
        if request_id is not None:
            response.headers[REQUEST_ID_HEADER] = request_id
            if not log.isEnabledFor(logging.DEBUG):
                return response  # nothing to log: the line's fields are not worth reading off the request
            started = context.get("request_started")
            request = flask.request
            log.debug(
                "request answered",
                extra={
                    "method": request.method,
                    "route": request.url_rule.rule if request.url_rule is not None else "unmatched",
                    "status": response.status_code,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2) if started else None,
                    "remote_addr": request.remote_addr,
                },
            )
        return response

    @app.teardown_request
    def _unbind_request_id(error: BaseException | None) -> None:
        token = flask.g.pop("request_id_token", None)
        if token is not None:
            try:
                reset_request_id(token)
            except ValueError:  # pragma: no cover - torn down in another context (streamed response)
                set_request_id(None)
