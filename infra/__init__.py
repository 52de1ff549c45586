"""Infrastructure: PostgreSQL, Redis, RQ, configuration."""
