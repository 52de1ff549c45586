"""Swagger UI at /docs, served from a Python package (swagger-ui-bundle-v2), never from a CDN: it works offline.

flask-smorest renders /docs with `OPENAPI_SWAGGER_UI_URL` as the base of its stylesheet and scripts; that base
is `ASSETS_URL`, a route of ours that serves the package's files. Its path holds the Swagger UI version, so a
browser may keep the files as long as it likes: an upgrade changes the URL. Only the files the page loads
(and their source maps and icons) are served; the package's sample page, which points at a demo API, is not.
Swagger UI 5 or later is needed to show an OpenAPI 3.1 document. The page's validator badge is off
(`OPENAPI_SWAGGER_UI_CONFIG`): it would be fetched from validator.swagger.io.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, abort, send_from_directory
from swagger_ui_bundle import swagger_ui_path

ASSETS_DIRECTORY = Path(str(swagger_ui_path))
VERSION = ASSETS_DIRECTORY.name  # "swagger-ui-5.31.0"
ASSETS_URL = f"/docs/assets/{VERSION}/"
PAGE_FILES = ("swagger-ui.css", "swagger-ui-standalone-preset.js", "swagger-ui-bundle.js")
ASSETS = frozenset({*PAGE_FILES, *(f"{name}.map" for name in PAGE_FILES), "favicon-16x16.png", "favicon-32x32.png"})
MAX_AGE_SECONDS = 365 * 24 * 3600

blp = Blueprint("swagger_ui_assets", __name__)


@blp.route("/docs/assets/<version>/<name>", methods=["GET"])
def asset(version: str, name: str) -> Response:
    if version != VERSION or name not in ASSETS:
        abort(404)
    return send_from_directory(ASSETS_DIRECTORY, name, max_age=MAX_AGE_SECONDS)
