"""Infrastructure: PostgreSQL, Redis, RQ, configuration.

Importing it makes psycopg read json and jsonb columns with `infra.json_loading.loads`, in every
process that uses the project's infrastructure (API, relay, workers, CLI, tests).
"""

from infra import json_loading

json_loading.install()
