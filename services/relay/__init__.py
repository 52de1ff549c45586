"""The outbox relay: PostgreSQL global log -> Redis Streams, notifications and RQ projection jobs."""

from services.relay.relay import RELAY_LOCK_KEY, RELAY_POSITION, Relay, enqueue_projections, run_relay

__all__ = ["RELAY_LOCK_KEY", "RELAY_POSITION", "Relay", "enqueue_projections", "run_relay"]
