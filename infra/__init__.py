"""Infrastructure: PostgreSQL, Redis, RQ, configuration. Importing it changes nothing global."""
