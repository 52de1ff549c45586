"""Per-viewer redaction: the single place that decides who sees hidden cards.

A viewer is a seat number, `AUDITOR`, or `PUBLIC` (anyone: other players,
Redis payloads, logs). An event's "private" part (see `domain.events`) is
shown to the seat that holds it while its deal is on; once the deal has ended
it is shown to every seated player and the auditor, never to the public.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from domain.events import JSON, PRIVATE, Event


class _Viewer:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


AUDITOR: Final = _Viewer("AUDITOR")
PUBLIC: Final = _Viewer("PUBLIC")
Viewer = int | _Viewer


def may_see_private(data: Mapping[str, JSON], viewer: Viewer, deal_ended: bool) -> bool:
    if viewer is PUBLIC:
        return False
    if deal_ended:
        return True
    return isinstance(viewer, int) and data.get("seat") == viewer


def redact_data(data: Mapping[str, JSON], viewer: Viewer, deal_ended: bool) -> dict[str, JSON]:
    if PRIVATE not in data or may_see_private(data, viewer, deal_ended):
        return dict(data)
    return {key: value for key, value in data.items() if key != PRIVATE}


def redact(event: Event, viewer: Viewer, deal_ended: bool) -> Event:
    return Event(event.type, redact_data(event.data, viewer, deal_ended))


def public_form(event: Event) -> Event:
    """What may leave the service to anyone: no private cards, ever."""
    return redact(event, PUBLIC, deal_ended=False)
