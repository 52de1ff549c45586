# syntax=docker/dockerfile:1
# Base images pinned to an exact version (docs/operations.md, "Pinned versions"); bump on purpose, not by accident.
ARG PYTHON_IMAGE=python:3.11.14-slim-bookworm
FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
COPY pyproject.toml README.md ./
COPY domain ./domain
COPY infra ./infra
COPY services ./services
RUN pip install --no-cache-dir .

FROM ${PYTHON_IMAGE}
RUN useradd --create-home --uid 10001 cardledger
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    CARDLEDGER_HOST=0.0.0.0 \
    CARDLEDGER_PORT=8000
USER cardledger
WORKDIR /home/cardledger
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD python -c "import urllib.request,sys; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status == 200 else 1)"
CMD ["cardledger", "api"]
