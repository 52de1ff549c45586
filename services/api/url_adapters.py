"""The URL adapter of a request, with what it takes from the request's host kept per host.

Flask's `create_url_adapter` makes a `MapAdapter` per request through Werkzeug's `bind_to_environ`: it reads
and validates the host (`get_host`, twice: once for `request.host`), checks for a WebSocket upgrade, and
IDNA-encodes the server name. All of that depends only on a few environ keys (`HOST_KEYS`), the same on
nearly every request a worker serves. `KeptUrlAdapters` keeps, per value of those keys, what Flask's own call
gave (the request's host and the adapter's server name, script name, subdomain and scheme), and for the next
request with the same values makes the adapter from them with the request's own path, method and query, as
`bind_to_environ` would. Only the app configuration Flask's call reads at its defaults (no `SERVER_NAME`, no
`TRUSTED_HOSTS`, no host or subdomain matching) is served this way; otherwise, and for a host not kept yet,
Flask's own call answers (and raises as it does for a host it refuses).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from werkzeug.routing import MapAdapter

if TYPE_CHECKING:
    from flask import Flask, Request

# The environ keys `bind_to_environ` and `get_host` read, but the path, method and query.
HOST_KEYS = ("HTTP_HOST", "SERVER_NAME", "SERVER_PORT", "wsgi.url_scheme", "HTTP_CONNECTION", "HTTP_UPGRADE")
MAX_KEPT = 64  # distinct hosts kept per process; the Host header is the client's, so the count is bounded

Bound = tuple[str, str, str, str | None, str]  # request.host, server name, script name, subdomain, scheme


def _wsgi_text(value: str) -> str:
    """A WSGI environ string as Werkzeug decodes it for routing (latin-1 bytes read as UTF-8)."""
    return value.encode("latin1").decode(errors="replace")


class KeptUrlAdapters:
    def __init__(self, limit: int = MAX_KEPT) -> None:
        self.limit = limit
        self.kept: dict[tuple[Any, ...], Bound] = {}

    def adapter(
        self, app: Flask, request: Request, flask_adapter: Callable[[Request], MapAdapter | None]
    ) -> MapAdapter | None:
        """The request's adapter; `flask_adapter` is Flask's own `create_url_adapter`."""
        config = app.config
        if (
            config["SERVER_NAME"] is not None
            or config["TRUSTED_HOSTS"] is not None
            or app.url_map.host_matching
            or app.subdomain_matching
        ):
            return flask_adapter(request)
        environ = request.environ
        get = environ.get
        key = (  # HOST_KEYS and SCRIPT_NAME, spelt out: no loop's frame per request
            get("HTTP_HOST"),
            get("SERVER_NAME"),
            get("SERVER_PORT"),
            get("wsgi.url_scheme"),
            get("HTTP_CONNECTION"),
            get("HTTP_UPGRADE"),
            get("SCRIPT_NAME"),
        )
        bound = self.kept.get(key)
        if bound is None:
            made = flask_adapter(request)
            if made is not None and len(self.kept) < self.limit:
                self.kept[key] = (request.host, made.server_name, made.script_name, made.subdomain, made.url_scheme)
            return made
        host, server_name, script_name, subdomain, scheme = bound
        request.host = host  # as Flask's own call sets it (a cached property)
        path_info = environ.get("PATH_INFO")
        query = environ.get("QUERY_STRING")
        return MapAdapter(
            app.url_map,
            server_name,
            script_name,
            subdomain,
            scheme,
            "/" if path_info is None else _wsgi_text(path_info),
            environ["REQUEST_METHOD"],
            None if query is None else _wsgi_text(query),
        )
