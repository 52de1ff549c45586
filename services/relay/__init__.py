"""The outbox relay: PostgreSQL global log -> Redis Streams, notifications and RQ projection jobs."""

from infra.projections.checkpoint import RELAY_LOCK_KEY, RELAY_POSITION
from services.relay.relay import Relay, run_relay

__all__ = ["RELAY_LOCK_KEY", "RELAY_POSITION", "Relay", "run_relay"]
