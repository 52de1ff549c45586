"""The Kubernetes manifests as a cluster receives them: each overlay of k8s/overlays/ built by `kubectl kustomize`
(kustomize v5 inside kubectl), parsed. Tests that need them skip, saying how to install kubectl, when it is
missing."""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

K8S = Path(__file__).resolve().parents[1] / "k8s"
OVERLAYS = ("local", "production", "ha")


def kubectl() -> str:
    found = shutil.which("kubectl")
    if found is None:
        pytest.skip("kubectl not found: install it (`apt-get install kubectl` from the Kubernetes apt repository)")
    return found


@functools.cache
def _rendered(overlay: str, executable: str) -> tuple[dict[str, Any], ...]:
    result = subprocess.run(
        [executable, "kustomize", str(K8S / "overlays" / overlay)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, f"kubectl kustomize k8s/overlays/{overlay}: {result.stderr}"
    return tuple(document for document in yaml.safe_load_all(result.stdout) if document is not None)


def rendered(overlay: str) -> list[dict[str, Any]]:
    """The documents `kubectl kustomize k8s/overlays/<overlay>` prints (skips the test without kubectl)."""
    return list(_rendered(overlay, kubectl()))
