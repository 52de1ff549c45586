"""Base images are pinned to exact versions (docs/operations.md, "Pinned versions"), and the Docker build
context leaves local state and secrets out (.dockerignore)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
# name:MAJOR.MINOR.PATCH[-variant], optionally @sha256:...; PostgreSQL 10 and later: MAJOR.MINOR is exact.
EXACT = re.compile(
    r"^(?:[\w./-]+:v?\d+\.\d+\.\d+|(?:[\w./-]+/)?postgres:\d{2,}\.\d+)(-[\w.-]+)?(@sha256:[0-9a-f]{64})?$"
)


def test_exact_means_exact() -> None:
    for floating in (
        "python:3.11-slim",
        "postgres:16",
        "redis:7",
        "redis:7.4",
        "python:latest",
        "postgres:16-bookworm",
    ):
        assert not EXACT.match(floating), floating
    for pinned in ("python:3.11.14-slim-bookworm", "postgres:16.11-bookworm", "redis:7.4.6"):
        assert EXACT.match(pinned), pinned


def test_the_dockerfile_pins_its_base_image() -> None:
    text = (ROOT / "Dockerfile").read_text()
    args = dict(re.findall(r"^ARG (\w+)=(\S+)$", text, flags=re.MULTILINE))
    sources = re.findall(r"^FROM (\S+)", text, flags=re.MULTILINE)
    assert sources
    for source in sources:
        image = re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], source)
        assert EXACT.match(image), image


def test_compose_pins_every_pulled_image() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    for name, service in services.items():
        image = service.get("image")
        if "build" in service:  # built here, never pulled
            assert image != "cardledger:latest" and not str(image).endswith(":latest"), name
            continue
        assert image and EXACT.match(image), f"{name}: {image}"


def test_the_dockerignore_leaves_out_local_state_and_secrets() -> None:
    entries = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    assert entries >= {".venv", ".cardledger", ".git", ".env", "**/*.pyc", "*.key", "*.pem", "tests"}


def test_the_image_installs_the_locked_runtime_without_the_embedded_servers() -> None:
    """Every pip install of the Dockerfile is hash-checked from requirements/ or installs the project's own
    wheel without dependencies; runtime.txt has no embedded server (tests/test_locks.py)."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    installs = re.findall(r"pip (?:--python \S+ )?install ([^&\n]+)", text)
    assert installs
    for arguments in installs:
        locked = "--require-hashes" in arguments and re.search(r"-r requirements/(runtime|build)\.txt", arguments)
        own_wheel = "--no-deps" in arguments and "/tmp/wheels/" in arguments
        assert locked or own_wheel, arguments
        assert "embedded" not in arguments, arguments
    assert "requirements/runtime.txt" in text
