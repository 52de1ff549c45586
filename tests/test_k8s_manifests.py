"""Every document of k8s/*.yaml validates against the Kubernetes API schemas of a fixed version, offline.

The schemas ship with the kubernetes-validate package (dev extra); no cluster is needed. `make k8s-validate`
runs the same check from the command line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

kubernetes_validate = pytest.importorskip("kubernetes_validate")

KUBERNETES_VERSION = "1.30.0"
MANIFESTS = sorted((Path(__file__).resolve().parents[1] / "k8s").glob("*.yaml"))


def documents() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in MANIFESTS:
        for index, document in enumerate(yaml.safe_load_all(path.read_text())):
            if document is not None:
                found.append((f"{path.name}#{index}", document))
    return found


def test_there_are_manifests() -> None:
    assert {p.name for p in MANIFESTS} >= {"api.yaml", "relay.yaml", "worker.yaml", "configmap.yaml"}


@pytest.mark.parametrize(("where", "document"), documents(), ids=[where for where, _ in documents()])
def test_manifest_is_valid(where: str, document: dict[str, Any]) -> None:
    try:
        kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
    except kubernetes_validate.ValidationError as error:
        pytest.fail(f"{where}: {error.message} at {'/'.join(str(p) for p in error.path)}")


def test_every_workload_reads_the_config_and_the_secret() -> None:
    for where, document in documents():
        if document["kind"] not in ("Deployment", "Job"):
            continue
        for container in document["spec"]["template"]["spec"]["containers"]:
            refs = {next(iter(ref)) + ":" + next(iter(ref.values()))["name"] for ref in container["envFrom"]}
            assert refs == {"configMapRef:cardledger", "secretRef:cardledger"}, where


def test_every_workload_mounts_the_optional_redis_ca() -> None:
    """REDIS_URL may name a CA file (`ssl_ca_certs=/etc/cardledger/redis-ca/ca.crt`), and every process checks that
    it exists at start (a configuration error otherwise): each workload that reads the Secret mounts it."""
    for where, document in documents():
        if document["kind"] not in ("Deployment", "Job"):
            continue
        pod = document["spec"]["template"]["spec"]
        volumes = {volume["name"]: volume for volume in pod.get("volumes", [])}
        assert volumes.get("redis-ca", {}).get("secret") == {"secretName": "cardledger-redis-ca", "optional": True}, (
            where
        )
        for container in pod["containers"]:
            mounts = {mount["name"]: mount for mount in container.get("volumeMounts", [])}
            assert mounts.get("redis-ca") == {
                "name": "redis-ca",
                "mountPath": "/etc/cardledger/redis-ca",
                "readOnly": True,
            }, where
