"""Reverse proxies in front of the API: whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed.

CARDLEDGER_TRUSTED_PROXIES (0..5, default 0) is the number of proxies between the clients and gunicorn that
each append the address they received the request from to X-Forwarded-For (an ingress controller, a load
balancer that speaks HTTP). With N > 0 the app is wrapped in werkzeug's ProxyFix(x_for=N, x_proto=N): the
client address becomes the Nth value of X-Forwarded-For counted from the right (the one the outermost trusted
proxy wrote; anything a client sent itself lies further left and is ignored), and the scheme the Nth value of
X-Forwarded-Proto. `REMOTE_ADDR` itself is rewritten, so everything that keys on the client address uses the
real one: the registration rate limit and the address fallback of the per-token limits (`request.remote_addr`),
the per-caller stream count of `services.api.middleware.admission` (ProxyFix wraps it), the `remote_addr` of the request
and access log lines (gunicorn reads the rewritten environ). A request with fewer values than N keeps the
address it came from.

With 0 (no proxy, or one that does not set the headers) the headers are ignored: a client cannot claim
another address to get a fresh registration budget. Set N to exactly the number of proxies: one more lets a
client choose its address, one fewer makes every client the proxy (one shared budget).

X-Forwarded-Host, -Port and -Prefix are not believed: the API builds no absolute URL (its Location headers
are paths), and a proxy that does not overwrite them would let a client choose them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from werkzeug.middleware.proxy_fix import ProxyFix

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def behind_proxies(app: WSGIApp, hops: int) -> WSGIApp:
    """`app` believing the forwarded address and scheme of `hops` proxies; `app` itself when `hops` is 0.

    Wrap it around every other middleware, so that each one sees the client's address."""
    if hops < 0:
        raise ValueError(f"the number of trusted proxies cannot be negative, got {hops}")
    if hops == 0:
        return app
    return ProxyFix(app, x_for=hops, x_proto=hops, x_host=0, x_port=0, x_prefix=0)
