"""The web viewer at /ui/: a table viewer, deal replayer and ledger pages, as static files of this package.

Plain HTML, CSS and JavaScript modules, no build step: the browser loads the files as they are in
`static/`. The page talks to this API alone, with the token the user typed (kept in session storage). Every
answer of /ui/ carries a Content-Security-Policy that allows scripts, styles, images and connections to this
origin only (no inline script, nothing from the internet) and `X-Content-Type-Options: nosniff`.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, abort, redirect, send_from_directory

STATIC_DIRECTORY = Path(__file__).resolve().parent / "static"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SERVED_SUFFIXES = frozenset({".html", ".css", ".js", ".svg"})

blp = Blueprint("web_ui", __name__)


@blp.after_request
def _strict_headers(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-cache"  # revalidated each load: an upgrade is seen at once
    return response


@blp.route("/ui", methods=["GET"])
def ui_root() -> Response:
    return redirect("/ui/", code=308)  # type: ignore[return-value]


@blp.route("/ui/", methods=["GET"])
def index() -> Response:
    return send_from_directory(STATIC_DIRECTORY, "index.html")


@blp.route("/ui/<path:name>", methods=["GET"])
def static_file(name: str) -> Response:
    if Path(name).suffix not in SERVED_SUFFIXES:
        abort(404)
    return send_from_directory(STATIC_DIRECTORY, name)  # refuses paths that leave the folder (404)
