"""docker-compose.yml, checked without a Docker engine: by `docker-compose config` (Debian's docker-compose
1.29, which validates the file against the Compose schema it ships) when installed, and structurally here:
resource limits on every service, a healthcheck on every long-running one, Redis's data on a volume."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.test_images_pinned import EXACT

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"
RUNS_ONCE = {"migrate"}
REQUIRED_VARIABLES = {
    "CARDLEDGER_REDIS_PASSWORD": "test-redis-password",
    "CARDLEDGER_AUDITOR_TOKEN": "test-auditor-token-0123456789abcdef0123",
    "CARDLEDGER_SIGNING_KEY": "test-signing-key",
}


def services() -> dict[str, dict[str, Any]]:
    loaded: dict[str, dict[str, Any]] = yaml.safe_load(COMPOSE.read_text())["services"]
    return loaded


def docker_compose(folder: Path, arguments: list[str], environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`docker-compose ARGUMENTS` in `folder` with only `environment` (skips without docker-compose)."""
    executable = shutil.which("docker-compose")
    if executable is None:
        pytest.skip("docker-compose not found: `apt-get install docker-compose` (Debian/Ubuntu)")
    return subprocess.run(
        [executable, *arguments],
        cwd=folder,
        env={"PATH": "/usr/bin:/bin", **environment},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def run_config(folder: Path, text: str, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    (folder / "docker-compose.yml").write_text(text)
    return docker_compose(folder, ["-f", "docker-compose.yml", "config", "--quiet"], environment)


def without_project_name(text: str) -> str:
    """docker-compose 1.29's schema predates the top-level `name` of the Compose Specification."""
    lines = text.splitlines(keepends=True)
    assert sum(line.startswith("name: ") for line in lines) == 1
    return "".join(line for line in lines if not line.startswith("name: "))


def test_docker_compose_config_accepts_the_file(tmp_path: Path) -> None:
    result = run_config(tmp_path, without_project_name(COMPOSE.read_text()), REQUIRED_VARIABLES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_docker_compose_config_refuses_a_misspelt_key_and_a_missing_secret(tmp_path: Path) -> None:
    text = without_project_name(COMPOSE.read_text())
    misspelt = run_config(tmp_path, text.replace("memory: 1g", "memroy: 1g", 1), REQUIRED_VARIABLES)
    assert misspelt.returncode != 0 and "memroy" in misspelt.stdout + misspelt.stderr
    missing = {k: v for k, v in REQUIRED_VARIABLES.items() if k != "CARDLEDGER_SIGNING_KEY"}
    refused = run_config(tmp_path, text, missing)
    assert refused.returncode != 0 and "set CARDLEDGER_SIGNING_KEY" in refused.stdout + refused.stderr


@pytest.mark.parametrize("name", sorted(services()))
def test_every_service_has_cpu_and_memory_limits(name: str) -> None:
    limits = services()[name].get("deploy", {}).get("resources", {}).get("limits", {})
    assert {"cpus", "memory"} <= set(limits), f"{name}: {limits}"


@pytest.mark.parametrize("name", sorted(set(services()) - RUNS_ONCE))
def test_every_long_running_service_has_a_healthcheck(name: str) -> None:
    check = services()[name].get("healthcheck", {})
    assert not check.get("disable"), name
    assert check.get("test"), name


def test_the_relay_and_workers_are_checked_on_their_readyz() -> None:
    for name, port in (("relay", 9101), ("worker", 9102), ("api", 8000)):
        (command,) = [part for part in services()[name]["healthcheck"]["test"] if "urlopen" in part]
        assert f"http://127.0.0.1:{port}/readyz" in command, name


def test_redis_keeps_its_data_on_a_volume() -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    (mount,) = [volume for volume in services()["redis"]["volumes"] if volume.endswith(":/data")]
    assert mount.partition(":")[0] in compose["volumes"]
    assert "--appendonly yes" in " ".join(services()["redis"]["command"])


def test_only_the_api_gets_the_auditor_token_and_the_signing_key() -> None:
    """The relay and the workers get no secret they do not use; the migrate service registers the key's public half."""
    for name, service in services().items():
        environment = set(service.get("environment") or {})
        expected = {
            "api": {"CARDLEDGER_SIGNING_KEY", "CARDLEDGER_AUDITOR_TOKEN"},
            "migrate": {"CARDLEDGER_SIGNING_KEY"},
        }
        assert environment & {"CARDLEDGER_SIGNING_KEY", "CARDLEDGER_AUDITOR_TOKEN"} == expected.get(name, set()), name


HA_COMPOSE = ROOT / "docker-compose.ha.yml"
CARDLEDGER_SERVICES = ("migrate", "api", "relay", "worker")


def merged_ha_config(folder: Path) -> dict[str, Any]:
    """`docker-compose -f docker-compose.yml -f docker-compose.ha.yml config`: the merged HA shape."""
    (folder / "docker-compose.yml").write_text(without_project_name(COMPOSE.read_text()))
    (folder / "docker-compose.ha.yml").write_text(HA_COMPOSE.read_text())
    shutil.copytree(ROOT / "deploy" / "patroni", folder / "deploy" / "patroni")
    arguments = ["-f", "docker-compose.yml", "-f", "docker-compose.ha.yml", "config"]
    result = docker_compose(folder, arguments, REQUIRED_VARIABLES)
    assert result.returncode == 0, result.stdout + result.stderr
    merged: dict[str, Any] = yaml.safe_load(result.stdout)
    return merged


def test_the_ha_shape_points_every_cardledger_service_at_patroni_and_the_sentinels(tmp_path: Path) -> None:
    merged = merged_ha_config(tmp_path)["services"]
    assert {
        "etcd",
        "postgres",
        "postgres-2",
        "redis",
        "redis-replica",
        "sentinel-1",
        "sentinel-2",
        "sentinel-3",
    } <= set(merged)
    for name in CARDLEDGER_SERVICES:
        environment = merged[name]["environment"]
        assert environment["DATABASE_URL"].endswith(
            "@postgres:5432,postgres-2:5432/cardledger?target_session_attrs=read-write"
        ), name
        assert environment["REDIS_URL"].startswith("redis+sentinel://:"), name
        assert environment["REDIS_URL"].endswith("@sentinel-1:26379,sentinel-2:26379,sentinel-3:26379/cardledger")
    owner = merged["migrate"]["environment"]["CARDLEDGER_MIGRATE_DATABASE_URL"]
    assert owner.endswith("@postgres:5432,postgres-2:5432/cardledger?target_session_attrs=read-write")
    assert "CARDLEDGER_SIGNING_KEY" in merged["api"]["environment"]  # the base file's secrets stay where they were
    assert "CARDLEDGER_SIGNING_KEY" not in merged["relay"]["environment"]


def test_the_ha_shape_limits_checks_and_pins_its_services(tmp_path: Path) -> None:
    merged = merged_ha_config(tmp_path)["services"]
    for name, service in merged.items():
        limits = service.get("deploy", {}).get("resources", {}).get("limits", {})
        assert {"cpus", "memory"} <= set(limits), name
        if name != "migrate":
            assert service.get("healthcheck", {}).get("test"), name
        if "build" not in service:
            assert EXACT.match(service["image"]), f"{name}: {service['image']}"


def test_patroni_runs_synchronous_with_pg_rewind() -> None:
    config = yaml.safe_load((ROOT / "deploy" / "patroni" / "patroni.yml").read_text())
    dcs = config["bootstrap"]["dcs"]
    assert dcs["synchronous_mode"] is True and dcs["postgresql"]["use_pg_rewind"] is True
    assert dcs["postgresql"]["parameters"]["wal_log_hints"] == "on"  # pg_rewind needs it without checksums
