"""Every document of k8s/*.yaml validates against the Kubernetes API schemas of a fixed version, offline.

The schemas ship with the kubernetes-validate package (dev extra); no cluster is needed. `make k8s-validate`
runs the same check from the command line. k8s/kustomization.yaml is no Kubernetes object: its structure is
checked here. Every pod meets the Pod Security "restricted" profile (the rules of
https://kubernetes.io/docs/concepts/security/pod-security-standards/ that manifests can break), every workload
has probes and a ServiceAccount of its own, and no image is `latest` or untagged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

kubernetes_validate = pytest.importorskip("kubernetes_validate")

KUBERNETES_VERSION = "1.30.0"
K8S = Path(__file__).resolve().parents[1] / "k8s"
KUSTOMIZATION = K8S / "kustomization.yaml"
MANIFESTS = sorted(path for path in K8S.glob("*.yaml") if path != KUSTOMIZATION)
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob")


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


# Pod Security "restricted" ----------------------------------------------------------------------------------

# The volume types the restricted profile allows.
RESTRICTED_VOLUME_TYPES = {
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
}


def workloads() -> list[tuple[str, dict[str, Any]]]:
    return [(where, document) for where, document in documents() if document["kind"] in WORKLOAD_KINDS]


def pod_spec(document: dict[str, Any]) -> dict[str, Any]:
    template = document["spec"]["template"] if document["kind"] != "CronJob" else None
    if template is None:
        template = document["spec"]["jobTemplate"]["spec"]["template"]
    spec: dict[str, Any] = template["spec"]
    return spec


def restricted_violations(pod: dict[str, Any]) -> list[str]:
    """What in a pod spec the "restricted" Pod Security profile (baseline included) refuses, or asks for and
    is missing; empty when it passes. Settings on the pod count for containers that do not override them."""
    problems: list[str] = []
    for flag in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(flag):
            problems.append(f"pod: {flag}")
    pod_context = pod.get("securityContext") or {}
    if pod_context.get("runAsUser") == 0:
        problems.append("pod: runAsUser 0")
    for volume in pod.get("volumes") or []:
        kinds = set(volume) - {"name"}
        if not kinds <= RESTRICTED_VOLUME_TYPES:
            problems.append(f"volume {volume['name']}: type {sorted(kinds - RESTRICTED_VOLUME_TYPES)}")
    containers = [*(pod.get("initContainers") or []), *pod["containers"]]
    for container in containers:
        name = container["name"]
        context = container.get("securityContext") or {}
        if context.get("privileged"):
            problems.append(f"{name}: privileged")
        if context.get("allowPrivilegeEscalation") is not False:
            problems.append(f"{name}: allowPrivilegeEscalation must be false")
        capabilities = context.get("capabilities") or {}
        if "ALL" not in (capabilities.get("drop") or []):
            problems.append(f"{name}: capabilities must drop ALL")
        if set(capabilities.get("add") or []) - {"NET_BIND_SERVICE"}:
            problems.append(f"{name}: adds capabilities {capabilities['add']}")
        run_as_non_root = context.get("runAsNonRoot", pod_context.get("runAsNonRoot"))
        if run_as_non_root is not True:
            problems.append(f"{name}: runAsNonRoot must be true")
        if context.get("runAsUser", pod_context.get("runAsUser")) in (0, None):
            problems.append(f"{name}: runAsUser must be set, not 0")
        seccomp = context.get("seccompProfile") or pod_context.get("seccompProfile") or {}
        if seccomp.get("type") not in ("RuntimeDefault", "Localhost"):
            problems.append(f"{name}: seccompProfile must be RuntimeDefault or Localhost")
        for port in container.get("ports") or []:
            if port.get("hostPort"):
                problems.append(f"{name}: hostPort")
        # Beyond the profile, ours: nothing writes to the image.
        if context.get("readOnlyRootFilesystem") is not True:
            problems.append(f"{name}: readOnlyRootFilesystem must be true")
    return problems


def test_the_checker_finds_what_the_profile_refuses() -> None:
    pod = {
        "hostNetwork": True,
        "securityContext": {"runAsNonRoot": True},
        "volumes": [{"name": "h", "hostPath": {"path": "/"}}],
        "containers": [{"name": "c", "securityContext": {"capabilities": {"add": ["SYS_ADMIN"]}}}],
    }
    problems = " | ".join(restricted_violations(pod))
    for expected in (
        "hostNetwork",
        "hostPath",
        "allowPrivilegeEscalation",
        "drop ALL",
        "SYS_ADMIN",
        "runAsUser",
        "seccompProfile",
        "readOnlyRootFilesystem",
    ):
        assert expected in problems


def test_there_are_the_four_workloads() -> None:
    names = {document["metadata"]["name"] for _, document in workloads()}
    assert names == {"cardledger-api", "cardledger-relay", "cardledger-worker", "cardledger-migrate"}


@pytest.mark.parametrize(("where", "document"), workloads(), ids=[where for where, _ in workloads()])
def test_every_pod_meets_the_restricted_profile(where: str, document: dict[str, Any]) -> None:
    assert restricted_violations(pod_spec(document)) == [], where


def test_the_namespace_enforces_the_restricted_profile() -> None:
    namespaces = [document for _, document in documents() if document["kind"] == "Namespace"]
    assert len(namespaces) == 1
    labels = namespaces[0]["metadata"].get("labels") or {}
    assert labels.get("pod-security.kubernetes.io/enforce") == "restricted"


@pytest.mark.parametrize(("where", "document"), workloads(), ids=[where for where, _ in workloads()])
def test_every_workload_has_a_writable_tmp_and_nothing_else(where: str, document: dict[str, Any]) -> None:
    """The root filesystem is read-only; gunicorn's worker heartbeat files and the multiprocess metrics folder go
    to tempfile's folder, /tmp: an emptyDir there (size-limited)."""
    pod = pod_spec(document)
    volumes = {volume["name"]: volume for volume in pod.get("volumes") or []}
    for container in pod["containers"]:
        mounts = {mount["mountPath"]: mount for mount in container.get("volumeMounts") or []}
        assert "/tmp" in mounts, where
        assert "sizeLimit" in volumes[mounts["/tmp"]["name"]]["emptyDir"], where


@pytest.mark.parametrize(("where", "document"), workloads(), ids=[where for where, _ in workloads()])
def test_every_workload_has_a_service_account_of_its_own_without_a_token(where: str, document: dict[str, Any]) -> None:
    accounts = {
        document["metadata"]["name"]: document for _, document in documents() if document["kind"] == "ServiceAccount"
    }
    pod = pod_spec(document)
    account = pod.get("serviceAccountName")
    assert account == document["metadata"]["name"], where
    assert account in accounts, f"{where}: no ServiceAccount {account}"
    assert accounts[account].get("automountServiceAccountToken") is False
    assert pod.get("automountServiceAccountToken") is False, where


@pytest.mark.parametrize(("where", "document"), workloads(), ids=[where for where, _ in workloads()])
def test_every_long_running_workload_has_probes(where: str, document: dict[str, Any]) -> None:
    if document["kind"] in ("Job", "CronJob"):
        return
    for container in pod_spec(document)["containers"]:
        assert "livenessProbe" in container, where
        assert "readinessProbe" in container, where
        ports = {port["name"] for port in container.get("ports") or []}
        for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
            handler = container.get(probe)
            if handler is None:
                continue
            target = handler.get("httpGet") or handler.get("tcpSocket")
            assert target is not None, f"{where}: {probe}"
            assert target["port"] in ports, f"{where}: {probe} names port {target['port']}"


def test_the_relay_and_worker_probes_use_their_metrics_ports() -> None:
    config = next(document for _, document in documents() if document["kind"] == "ConfigMap")["data"]
    expected = {
        "cardledger-relay": int(config["CARDLEDGER_RELAY_METRICS_PORT"]),
        "cardledger-worker": int(config["CARDLEDGER_WORKER_METRICS_PORT"]),
    }
    for _, document in workloads():
        name = document["metadata"]["name"]
        if name not in expected:
            continue
        (container,) = pod_spec(document)["containers"]
        assert {port["name"]: port["containerPort"] for port in container["ports"]} == {"metrics": expected[name]}
        assert container["livenessProbe"]["httpGet"] == {"path": "/metrics", "port": "metrics"}


def test_the_migrate_job_cleans_up_and_gives_up() -> None:
    (job,) = [document for _, document in workloads() if document["kind"] == "Job"]
    assert "generateName" not in job["metadata"]  # kubectl apply refuses it
    assert job["spec"]["ttlSecondsAfterFinished"] > 0
    assert 0 < job["spec"]["backoffLimit"] <= 6


def images() -> list[tuple[str, str]]:
    found = []
    for where, document in workloads():
        pod = pod_spec(document)
        for container in [*(pod.get("initContainers") or []), *pod["containers"]]:
            found.append((f"{where}/{container['name']}", container["image"]))
    return found


def test_no_image_is_latest_or_untagged() -> None:
    assert images()
    for where, image in images():
        name = image.partition("@")[0]
        repository, colon, tag = name.rpartition(":")
        assert colon and "/" not in tag, f"{where}: {image} has no tag"
        assert tag != "latest", f"{where}: {image}"
        assert repository == "cardledger" and tag == "set-by-kustomize", f"{where}: {image}"


# The kustomization --------------------------------------------------------------------------------------------


def kustomization() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(KUSTOMIZATION.read_text())
    return loaded


def test_the_kustomization_lists_every_manifest_but_the_secret_template() -> None:
    data = kustomization()
    assert data["apiVersion"] == "kustomize.config.k8s.io/v1beta1"
    assert data["kind"] == "Kustomization"
    assert data["namespace"] == "cardledger"
    resources = data["resources"]
    assert len(resources) == len(set(resources))
    assert all((K8S / resource).is_file() for resource in resources), resources
    expected = {path.name for path in MANIFESTS if not path.name.endswith(".template.yaml")}
    assert set(resources) == expected


def test_the_kustomization_sets_a_real_tag_on_the_image() -> None:
    (image,) = kustomization()["images"]
    assert image["name"] == "cardledger"  # the name in every manifest (test_no_image_is_latest_or_untagged)
    assert image["newName"]
    tag = str(image["newTag"])
    assert tag and tag != "latest" and tag != "set-by-kustomize"


def test_every_object_is_in_the_namespace() -> None:
    for where, document in documents():
        if document["kind"] == "Namespace":
            continue
        assert document["metadata"].get("namespace") == "cardledger", where


def test_the_network_policies_deny_by_default_and_let_out_only_postgres_redis_and_dns() -> None:
    policies = {
        document["metadata"]["name"]: document["spec"]
        for _, document in documents()
        if document["kind"] == "NetworkPolicy"
    }
    deny = policies["default-deny"]
    assert deny["podSelector"] == {} and set(deny["policyTypes"]) == {"Ingress", "Egress"}
    assert "ingress" not in deny and "egress" not in deny
    egress_ports = {
        (port.get("protocol", "TCP"), port["port"])
        for spec in policies.values()
        for rule in spec.get("egress") or []
        for port in rule.get("ports") or []
    }
    assert egress_ports == {("TCP", 5432), ("TCP", 6379), ("TCP", 6380), ("UDP", 53), ("TCP", 53)}
    for spec in policies.values():
        for rule in spec.get("egress") or []:
            assert rule.get("ports"), "an egress rule without ports lets everything out"
    api_ports = {
        port["port"]
        for spec in policies.values()
        if spec["podSelector"].get("matchLabels", {}).get("component") == "api"
        for rule in spec.get("ingress") or []
        for port in rule.get("ports") or []
    }
    assert api_ports == {8000}
