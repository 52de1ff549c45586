"""HTTP from the end-to-end tests to a running stack (started by `services.cli.simulate.stack.embedded_stack`)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any


def http(
    method: str, url: str, body: Any = None, token: str | None = None, headers: Mapping[str, str] | None = None
) -> tuple[int, dict[str, str], Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            status, response_headers = response.status, dict(response.headers)
    except urllib.error.HTTPError as error:
        raw = error.read()
        status, response_headers = error.code, dict(error.headers)
    text = raw.decode()
    try:
        payload = json.loads(text) if text else None
    except json.JSONDecodeError:
        payload = text
    return status, response_headers, payload
