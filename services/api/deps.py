"""Access to the process's `Container` from inside a request (built lazily, once per process)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import flask
from flask import Flask

from services.bootstrap import Container

EXTENSION = "cardledger"


class ContainerHolder:
    """Builds the container on first use, so that forking servers (gunicorn) open pools per worker."""

    def __init__(self, factory: Callable[[], Container] | None, built: Container | None = None) -> None:
        self._factory = factory
        self._container = built
        self._lock = threading.Lock()

    def get(self) -> Container:
        if self._container is None:
            with self._lock:
                if self._container is None:
                    if self._factory is None:
                        raise RuntimeError("this app was created without a container or settings")
                    self._container = self._factory()
        return self._container

    @property
    def built(self) -> Container | None:
        return self._container


def holder(app: Flask) -> ContainerHolder:
    found: ContainerHolder = app.extensions[EXTENSION]
    return found


def container() -> Container:
    return holder(flask.current_app).get()
