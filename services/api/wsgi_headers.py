"""The answers' response class: Werkzeug's `get_wsgi_headers` without its copy of the headers when it would
change none of them.

Werkzeug copies a response's headers before sending them, to fix up what the environment needs: a
`Location` or `Content-Location` made a URI, `Content-Length` dropped for 1xx, 204 and 304 answers (and the
entity headers for 304), or set when it can count the body. An answer with none of those headers and an
ordinary status, that already has its `Content-Length` or whose body is streamed, is sent with its headers
as they are: the same names, values and order, one copy fewer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Response
from werkzeug.datastructures import Headers

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment

_RELOCATING = frozenset({"location", "content-location"})


class AnswerResponse(Response):
    def get_wsgi_headers(self, environ: WSGIEnvironment) -> Headers:
        status = self.status_code
        if status < 200 or status in (204, 304):
            return super().get_wsgi_headers(environ)
        headers = self.headers
        sized = False
        for name, _ in headers:
            lowered = name.lower()
            if lowered in _RELOCATING:
                return super().get_wsgi_headers(environ)
            if lowered == "content-length":
                sized = True
        if not sized and self.automatically_set_content_length and self.is_sequence:
            return super().get_wsgi_headers(environ)  # Werkzeug counts the body and sets it
        return headers
