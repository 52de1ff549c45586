# The README's two commands: `make run` and `make test`. Both create .venv when missing.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test test-fast lint k8s-validate bench spec client clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-runtime: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed-runtime

run: $(VENV)/.installed-runtime
	$(BIN)/cardledger up

test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest

test-fast: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -m "not slow"

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(MAKE) k8s-validate

# The manifests against a fixed Kubernetes version, offline (schemas ship with kubernetes-validate); the
# kustomization is no Kubernetes object (tests/test_k8s_manifests.py checks it).
K8S_MANIFESTS := $(filter-out k8s/kustomization.yaml,$(wildcard k8s/*.yaml))
k8s-validate: $(VENV)/.installed-dev
	$(BIN)/kubernetes-validate --kubernetes-version 1.30.0 --strict --quiet $(K8S_MANIFESTS)

bench: $(VENV)/.installed-dev
	$(BIN)/python -m bench

spec: $(VENV)/.installed-dev
	$(BIN)/cardledger spec > api-spec/openapi.json

clean:
	rm -rf $(VENV) .cardledger .pytest_cache .mypy_cache .ruff_cache

# The Python client of api-spec/openapi.json (clients/python), regenerated from the committed document.
client: $(VENV)/.installed-dev
	$(BIN)/openapi-python-client generate --path api-spec/openapi.json --config clients/openapi-python-client.yaml \
		--meta setup --output-path clients/python --overwrite --fail-on-warning
