# syntax=docker/dockerfile:1
# Base images pinned to an exact version (docs/operations.md, "Pinned versions"); bump on purpose, not by accident.
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm@sha256:65a93d69fa75478d554f4ad27c85c1e69fa184956261b4301ebaf6dbb0a3543d

FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
# Two environments: /opt/build holds the locked build tools, /opt/venv (without pip) only what the image runs.
# Both install from the lock files, hash-checked (docs/operations.md, "Locked dependencies"); the embedded
# servers (cardledger[embedded]) are not among them.
COPY requirements/runtime.txt requirements/build.txt ./requirements/
RUN python -m venv /opt/build \
    && /opt/build/bin/pip install --no-cache-dir --require-hashes -r requirements/build.txt \
    && python -m venv --without-pip /opt/venv \
    && /opt/build/bin/pip --python /opt/venv/bin/python install --no-cache-dir --require-hashes \
        -r requirements/runtime.txt
COPY pyproject.toml README.md LICENSE ./
COPY domain ./domain
COPY infra ./infra
COPY services ./services
RUN /opt/build/bin/pip wheel --no-cache-dir --no-deps --no-build-isolation --wheel-dir /tmp/wheels . \
    && /opt/build/bin/pip --python /opt/venv/bin/python install --no-cache-dir --no-deps /tmp/wheels/*.whl

FROM ${PYTHON_IMAGE}
# No system package: PyNaCl's wheel carries the libsodium that signs the receipts.
RUN groupadd --gid 10001 cardledger \
    && useradd --create-home --uid 10001 --gid 10001 cardledger
COPY --from=build /opt/venv /opt/venv
# Bytecode was compiled at install; the root filesystem is read-only in Kubernetes.
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    CARDLEDGER_HOST=0.0.0.0 \
    CARDLEDGER_PORT=8000
USER 10001:10001
WORKDIR /home/cardledger
EXPOSE 8000
# The API's liveness; the relay and worker containers override it (docker-compose.yml: their /readyz).
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD ["python", "-c", "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]
CMD ["cardledger", "api"]
