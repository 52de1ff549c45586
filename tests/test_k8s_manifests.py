"""The Kubernetes manifests as each overlay renders them (`kubectl kustomize k8s/overlays/<overlay>`).

Every rendered document validates against the Kubernetes API schemas of a fixed version, offline (the schemas
ship with the kubernetes-validate package of the dev extra; `make k8s-validate` runs the same check from the
command line). Every pod meets the Pod Security "restricted" profile (the rules of
https://kubernetes.io/docs/concepts/security/pod-security-standards/ that manifests can break), every workload
has probes and a ServiceAccount of its own without a token, the migrate Job is named after the release, the
NetworkPolicies let through only what is needed, no image is `latest` or untagged, and no Secret of the
production overlay is in the repository.
"""

from __future__ import annotations

import base64
import re
from typing import Any

import pytest
import yaml

from tests.k8s_render import K8S, OVERLAYS, rendered
from tests.test_images_pinned import EXACT

kubernetes_validate = pytest.importorskip("kubernetes_validate")

KUBERNETES_VERSION = "1.30.0"
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob")
CARDLEDGER_WORKLOADS = {"cardledger-api", "cardledger-relay", "cardledger-worker", "cardledger-migrate"}
SECRETS_TEMPLATE = K8S / "overlays" / "production" / "secrets.template.yaml"

overlays = pytest.mark.parametrize("overlay", OVERLAYS)


def where(document: dict[str, Any]) -> str:
    return f"{document['kind']}/{document['metadata']['name']}"


def of_kind(overlay: str, *kinds: str) -> list[dict[str, Any]]:
    return [document for document in rendered(overlay) if document["kind"] in kinds]


def cardledger_config(overlay: str) -> dict[str, Any]:
    (config,) = [document for document in of_kind(overlay, "ConfigMap") if document["metadata"]["name"] == "cardledger"]
    return config


def workloads(overlay: str) -> list[dict[str, Any]]:
    return of_kind(overlay, *WORKLOAD_KINDS)


def is_cardledger(document: dict[str, Any]) -> bool:
    """The service's own workloads (the local overlay adds a PostgreSQL and a Redis)."""
    return bool(document["metadata"].get("labels", {}).get("app") == "cardledger")


def pod_spec(document: dict[str, Any]) -> dict[str, Any]:
    if document["kind"] == "CronJob":
        template = document["spec"]["jobTemplate"]["spec"]["template"]
    else:
        template = document["spec"]["template"]
    spec: dict[str, Any] = template["spec"]
    return spec


def containers(document: dict[str, Any]) -> list[dict[str, Any]]:
    pod = pod_spec(document)
    return [*(pod.get("initContainers") or []), *pod["containers"]]


# Kinds of operators whose schemas kubernetes-validate does not ship: checked by the tests of their overlay.
OPERATOR_API_GROUPS = ("postgresql.cnpg.io/",)


def of_an_operator(document: dict[str, Any]) -> bool:
    return str(document.get("apiVersion", "")).startswith(OPERATOR_API_GROUPS)


@overlays
def test_every_rendered_document_is_valid(overlay: str) -> None:
    documents = rendered(overlay)
    assert documents
    for document in documents:
        if of_an_operator(document):
            continue
        try:
            kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            pytest.fail(f"{overlay}: {where(document)}: {error.message} at {'/'.join(str(p) for p in error.path)}")


def test_the_ha_overlay_runs_postgresql_synchronous_under_cloudnativepg() -> None:
    """The operator's Cluster has no schema offline: what the promise rests on is checked here."""
    (cluster,) = [document for document in rendered("ha") if document["kind"] == "Cluster"]
    assert cluster["apiVersion"] == "postgresql.cnpg.io/v1" and cluster["metadata"]["namespace"] == "cardledger"
    spec = cluster["spec"]
    assert (
        spec["instances"] >= 3 and spec["minSyncReplicas"] >= 1 and spec["maxSyncReplicas"] >= spec["minSyncReplicas"]
    )
    assert spec["affinity"]["podAntiAffinityType"] == "required"
    assert EXACT.match(spec["imageName"].rpartition("/")[2].replace("postgresql:", "postgres:")), spec["imageName"]
    template = list(yaml.safe_load_all((K8S / "overlays" / "ha" / "secrets.template.yaml").read_text()))
    urls = {key: value for document in template for key, value in document.get("stringData", {}).items()}
    assert "@cardledger-pg-rw.cardledger.svc:5432/cardledger" in urls["DATABASE_URL"]
    assert urls["REDIS_URL"].startswith("redis+sentinel://") and urls["REDIS_URL"].endswith(":26379/cardledger")


def test_the_validator_refuses_an_unknown_field() -> None:
    (document,) = [d for d in rendered("production") if d["kind"] == "ConfigMap"]
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate({**document, "dataa": {}}, KUBERNETES_VERSION, strict=True)


@overlays
def test_the_workloads_are_cardledgers_and_the_local_servers(overlay: str) -> None:
    names = {document["metadata"]["name"] for document in workloads(overlay)}
    expected = {"cardledger-api", "cardledger-relay", "cardledger-worker", f"cardledger-migrate-{release(overlay)}"}
    if overlay == "local":
        expected |= {"cardledger-postgres", "cardledger-redis"}
    if overlay == "ha":
        expected |= {"cardledger-redis"}  # Redis and its Sentinels; PostgreSQL is the operator's Cluster
    assert names == expected


@overlays
def test_every_object_is_in_the_namespace(overlay: str) -> None:
    for document in rendered(overlay):
        if document["kind"] != "Namespace":
            assert document["metadata"].get("namespace") == "cardledger", where(document)


@overlays
def test_every_workload_reads_the_config_and_the_secret(overlay: str) -> None:
    for document in workloads(overlay):
        if not is_cardledger(document):
            continue
        for container in pod_spec(document)["containers"]:
            refs = {next(iter(ref)) + ":" + next(iter(ref.values()))["name"] for ref in container["envFrom"]}
            assert refs == {"configMapRef:cardledger", "secretRef:cardledger"}, where(document)


@overlays
def test_every_workload_mounts_the_optional_redis_ca(overlay: str) -> None:
    """REDIS_URL may name a CA file (`ssl_ca_certs=/etc/cardledger/redis-ca/ca.crt`), and every process checks that
    it exists at start (a configuration error otherwise): each workload that reads the Secret mounts it."""
    for document in workloads(overlay):
        if not is_cardledger(document):
            continue
        pod = pod_spec(document)
        volumes = {volume["name"]: volume for volume in pod.get("volumes", [])}
        assert volumes.get("redis-ca", {}).get("secret") == {"secretName": "cardledger-redis-ca", "optional": True}
        for container in pod["containers"]:
            mounts = {mount["name"]: mount for mount in container.get("volumeMounts", [])}
            assert mounts.get("redis-ca") == {
                "name": "redis-ca",
                "mountPath": "/etc/cardledger/redis-ca",
                "readOnly": True,
            }, where(document)


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
    for container in [*(pod.get("initContainers") or []), *pod["containers"]]:
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


@overlays
def test_every_rendered_pod_meets_the_restricted_profile(overlay: str) -> None:
    for document in workloads(overlay):
        assert restricted_violations(pod_spec(document)) == [], f"{overlay}: {where(document)}"


@overlays
def test_the_namespace_enforces_the_restricted_profile(overlay: str) -> None:
    (namespace,) = of_kind(overlay, "Namespace")
    labels = namespace["metadata"].get("labels") or {}
    assert labels.get("pod-security.kubernetes.io/enforce") == "restricted"


@overlays
def test_every_workload_has_a_writable_tmp_and_nothing_else(overlay: str) -> None:
    """The root filesystem is read-only; gunicorn's worker heartbeat files and the multiprocess metrics folder go
    to tempfile's folder, /tmp: an emptyDir there (size-limited)."""
    for document in workloads(overlay):
        if not is_cardledger(document):
            continue
        pod = pod_spec(document)
        volumes = {volume["name"]: volume for volume in pod.get("volumes") or []}
        for container in pod["containers"]:
            mounts = {mount["mountPath"]: mount for mount in container.get("volumeMounts") or []}
            assert "/tmp" in mounts, where(document)
            assert "sizeLimit" in volumes[mounts["/tmp"]["name"]]["emptyDir"], where(document)


@overlays
def test_every_workload_has_a_service_account_of_its_own_without_a_token(overlay: str) -> None:
    accounts = {document["metadata"]["name"]: document for document in of_kind(overlay, "ServiceAccount")}
    for document in workloads(overlay):
        pod = pod_spec(document)
        account = pod.get("serviceAccountName")
        assert account == re.sub(r"^cardledger-migrate-.*", "cardledger-migrate", document["metadata"]["name"])
        assert account in accounts, f"{where(document)}: no ServiceAccount {account}"
        assert accounts[account].get("automountServiceAccountToken") is False
        assert pod.get("automountServiceAccountToken") is False, where(document)


@overlays
def test_every_long_running_workload_has_probes_on_its_own_ports(overlay: str) -> None:
    for document in workloads(overlay):
        if document["kind"] in ("Job", "CronJob"):
            continue
        for container in pod_spec(document)["containers"]:
            assert "livenessProbe" in container, where(document)
            assert "readinessProbe" in container, where(document)
            ports = {port["name"] for port in container.get("ports") or []}
            for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                handler = container.get(probe)
                if handler is None:
                    continue
                target = handler.get("httpGet") or handler.get("tcpSocket")
                if target is None:
                    assert "exec" in handler, f"{where(document)}: {probe}"
                    continue
                assert target["port"] in ports, f"{where(document)}: {probe} names port {target['port']}"


@overlays
def test_the_relay_and_worker_probes_ask_their_readyz_and_livez(overlay: str) -> None:
    """infra.probes: /readyz checks the relay's lock session or the worker's PostgreSQL and Redis; /livez
    reads nothing, so an outage of either never restarts them."""
    config = cardledger_config(overlay)
    expected = {
        "cardledger-relay": int(config["data"]["CARDLEDGER_RELAY_METRICS_PORT"]),
        "cardledger-worker": int(config["data"]["CARDLEDGER_WORKER_METRICS_PORT"]),
    }
    for document in workloads(overlay):
        name = document["metadata"]["name"]
        if name not in expected:
            continue
        (container,) = pod_spec(document)["containers"]
        assert {port["name"]: port["containerPort"] for port in container["ports"]} == {"metrics": expected[name]}
        assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "metrics"}
        assert container["livenessProbe"]["httpGet"] == {"path": "/livez", "port": "metrics"}
        assert container["startupProbe"]["httpGet"] == {"path": "/livez", "port": "metrics"}


def release(overlay: str) -> str:
    """The image tag the overlay sets on cardledger's workloads."""
    (api,) = [d for d in workloads(overlay) if d["metadata"]["name"] == "cardledger-api"]
    image: str = pod_spec(api)["containers"][0]["image"]
    return image.rpartition(":")[2]


@overlays
def test_the_migrate_job_is_named_after_the_release_and_cleans_up(overlay: str) -> None:
    """A Job's pod template cannot change: a new release must be a new Job, and the same release applied again
    must leave its Job alone. `generateName` would do the first, but kubectl apply refuses it."""
    (job,) = of_kind(overlay, "Job")
    assert "generateName" not in job["metadata"]
    assert job["metadata"]["name"] == f"cardledger-migrate-{release(overlay)}"
    assert pod_spec(job)["containers"][0]["image"].endswith(f":{release(overlay)}")
    assert job["spec"]["ttlSecondsAfterFinished"] > 0
    assert 0 < job["spec"]["backoffLimit"] <= 6


@overlays
def test_no_image_is_latest_or_untagged(overlay: str) -> None:
    for document in workloads(overlay):
        for container in containers(document):
            image = container["image"]
            repository, colon, tag = image.partition("@")[0].rpartition(":")
            assert colon and "/" not in tag, f"{where(document)}: {image} has no tag"
            assert tag not in ("latest", "set-by-kustomize"), f"{where(document)}: {image}"
            if is_cardledger(document):
                assert repository.rpartition("/")[2] == "cardledger", image
            else:
                assert EXACT.match(image), f"{where(document)}: {image} is not an exact version"


def test_production_pulls_from_a_registry_and_the_local_cluster_uses_the_loaded_image() -> None:
    def image(overlay: str) -> str:
        (api,) = [d for d in workloads(overlay) if d["metadata"]["name"] == "cardledger-api"]
        return str(pod_spec(api)["containers"][0]["image"])

    assert "/" in image("production").partition(":")[0]
    assert image("local").startswith("cardledger:")


# Secrets ----------------------------------------------------------------------------------------------------


def referenced_secrets(overlay: str) -> set[str]:
    names: set[str] = set()
    for document in workloads(overlay):
        pod = pod_spec(document)
        for volume in pod.get("volumes") or []:
            if "secret" in volume and not volume["secret"].get("optional"):
                names.add(volume["secret"]["secretName"])
        for container in containers(document):
            for source in container.get("envFrom") or []:
                if "secretRef" in source:
                    names.add(source["secretRef"]["name"])
            for variable in container.get("env") or []:
                reference = (variable.get("valueFrom") or {}).get("secretKeyRef")
                if reference is not None:
                    names.add(reference["name"])
    return names


def test_production_commits_no_secret_and_its_template_has_every_one_it_uses() -> None:
    assert of_kind("production", "Secret") == []
    template = {document["metadata"]["name"]: document for document in yaml.safe_load_all(SECRETS_TEMPLATE.read_text())}
    assert referenced_secrets("production") <= set(template)
    for document in template.values():
        for key, value in document["stringData"].items():
            assert re.search(r"REPLACE|PASSWORD|HOST", value), f"{key} looks like a real value"


def test_the_local_cluster_has_every_secret_it_uses_and_only_published_values() -> None:
    secrets = {document["metadata"]["name"]: document for document in of_kind("local", "Secret")}
    assert referenced_secrets("local") <= set(secrets)
    # The Secret's data is base64 of the variable's value, itself base64url of the 32-byte seed.
    signing = base64.b64decode(secrets["cardledger-signing-key"]["data"]["CARDLEDGER_SIGNING_KEY"])
    assert base64.urlsafe_b64decode(signing + b"=") == b"local-cluster-only-not-a-secret!"


@overlays
def test_the_proxy_count_matches_what_stands_in_front(overlay: str) -> None:
    """Production: one ingress controller (its Ingress); local: port-forward, no proxy (docs/operations.md)."""
    config = cardledger_config(overlay)
    ingresses = of_kind(overlay, "Ingress")
    assert config["data"]["CARDLEDGER_TRUSTED_PROXIES"] == ("1" if ingresses else "0")
    assert bool(ingresses) == (overlay in ("production", "ha"))


# Network ----------------------------------------------------------------------------------------------------


@overlays
def test_the_network_policies_deny_by_default_and_let_through_only_what_is_needed(overlay: str) -> None:
    policies = {document["metadata"]["name"]: document["spec"] for document in of_kind(overlay, "NetworkPolicy")}
    deny = policies["default-deny"]
    assert deny["podSelector"] == {} and set(deny["policyTypes"]) == {"Ingress", "Egress"}
    assert "ingress" not in deny and "egress" not in deny
    egress_ports = {
        (port.get("protocol", "TCP"), port["port"])
        for spec in policies.values()
        for rule in spec.get("egress") or []
        for port in rule.get("ports") or []
    }
    sentinels = {("TCP", 26379)} if overlay == "ha" else set()
    assert egress_ports == {("TCP", 5432), ("TCP", 6379), ("TCP", 6380), ("UDP", 53), ("TCP", 53)} | sentinels
    for spec in policies.values():
        for rule in spec.get("egress") or []:
            assert rule.get("ports"), "an egress rule without ports lets everything out"
    ingress_ports: dict[str, set[int]] = {}
    for spec in policies.values():
        component = spec["podSelector"].get("matchLabels", {})
        key = component.get("component") or component.get("app", "")
        for rule in spec.get("ingress") or []:
            ingress_ports.setdefault(key, set()).update(port["port"] for port in rule.get("ports") or [])
            assert rule.get("from"), f"{key}: an ingress rule without sources lets everyone in"
    assert ingress_ports["api"] == {8000}
    assert ingress_ports["cardledger"] == {9100, 9101, 9102}  # the metrics, from the monitoring namespace
    if overlay == "local":
        assert ingress_ports["cardledger-postgres"] == {5432}
        assert ingress_ports["cardledger-redis"] == {6379}
    elif overlay == "ha":
        assert set(ingress_ports) == {"api", "cardledger", "cardledger-redis"}
        assert ingress_ports["cardledger-redis"] == {6379, 26379}  # Redis and its Sentinels
    else:
        assert set(ingress_ports) == {"api", "cardledger"}


# The files ----------------------------------------------------------------------------------------------------


def test_every_base_manifest_is_in_the_base_kustomization() -> None:
    kustomization = yaml.safe_load((K8S / "base" / "kustomization.yaml").read_text())
    manifests = {path.name for path in (K8S / "base").glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization["resources"]) == manifests
    assert not list(K8S.glob("*.yaml")), "manifests belong in k8s/base or an overlay"


def test_the_secrets_template_is_in_no_kustomization() -> None:
    for path in K8S.rglob("kustomization.yaml"):
        listed = yaml.safe_load(path.read_text()).get("resources") or []
        assert not [resource for resource in listed if "template" in resource], path


API_ONLY_SECRETS = {"CARDLEDGER_SIGNING_KEY", "CARDLEDGER_AUDITOR_TOKEN"}


def secret_keys(overlay: str) -> dict[str, set[str]]:
    """The keys each Secret of the overlay holds (the production template's for production)."""
    documents = (
        of_kind("local", "Secret") if overlay == "local" else list(yaml.safe_load_all(SECRETS_TEMPLATE.read_text()))
    )
    return {d["metadata"]["name"]: set(d.get("data") or {}) | set(d.get("stringData") or {}) for d in documents}


@overlays
def test_the_relay_and_the_workers_read_no_secret_they_do_not_use(overlay: str) -> None:
    """The signing key and the auditor token reach the API (and the signing key the migrate job, which registers
    it as the owner) and no other process."""
    held = secret_keys(overlay)
    for document in workloads(overlay):
        if not is_cardledger(document):
            continue
        for container in containers(document):
            names = {ref["secretRef"]["name"] for ref in container.get("envFrom", []) if "secretRef" in ref}
            variables = {key for name in names for key in held.get(name, set())}
            variables |= {v["name"] for v in container.get("env", []) if "valueFrom" in v}
            allowed = {"api": API_ONLY_SECRETS, "migrate": {"CARDLEDGER_SIGNING_KEY"}}.get(container["name"], set())
            assert variables & API_ONLY_SECRETS <= allowed, (where(document), sorted(variables & API_ONLY_SECRETS))


@overlays
def test_prometheus_scrapes_the_api_on_its_metrics_port_not_the_public_one(overlay: str) -> None:
    config = cardledger_config(overlay)
    port = int(config["data"]["CARDLEDGER_API_METRICS_PORT"])
    (api,) = [d for d in workloads(overlay) if d["metadata"]["name"] == "cardledger-api"]
    annotations = api["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == str(port) != "8000"
    (container,) = pod_spec(api)["containers"]
    assert {p["name"]: p["containerPort"] for p in container["ports"]} == {"http": 8000, "metrics": port}
