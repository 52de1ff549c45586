"""The Prefer request header (RFC 7240): `return=representation` on a write asks for the caller's new seat view
in the answer; `wait=<seconds>` on a long-poll (`wait_for_version`) shortens its wait. A preference the server
does not know, or cannot parse, is ignored, as the RFC asks: never an error."""

from __future__ import annotations

PREFERENCE_APPLIED = "Preference-Applied"
RETURN_REPRESENTATION = "return=representation"
PREFER_DESCRIPTION = (
    "RFC 7240 preferences: `return=representation` on a write adds `view`, the caller's seat view after it "
    "(answered with `Preference-Applied: return=representation`); `wait=<seconds>` shortens a long-poll "
    "(`wait_for_version`). Others are ignored"
)
PREFERENCE_APPLIED_HEADER = {
    PREFERENCE_APPLIED: {
        "description": "`return=representation` when the answer carries `view` (Prefer asked for it)",
        "schema": {"type": "string"},
    }
}


def preferences(raw: str | None) -> dict[str, str]:
    """The preferences of a Prefer header by lowercase name (the first of a name wins; parameters dropped)."""
    found: dict[str, str] = {}
    if not raw:
        return found
    for item in raw.split(","):
        token = item.split(";", 1)[0].strip()
        name, _, value = token.partition("=")
        name = name.strip().lower()
        if name:
            found.setdefault(name, value.strip().strip('"'))
    return found


def wants_representation(raw: str | None) -> bool:
    return preferences(raw).get("return", "").lower() == "representation"


def preferred_wait(raw: str | None) -> int | None:
    """The `wait` preference in whole seconds (RFC 7240: delta-seconds), or None when absent or malformed."""
    value = preferences(raw).get("wait", "")
    return int(value) if value.isdigit() and len(value) <= 9 else None
