"""Redis publication of the global log: stream keys, the message body, publishing and reading.

Every event goes to two Redis Streams, the global one (`cardledger:events`)
and its table's (`cardledger:table:{table_id}`), and a notification goes to
the pub/sub channel `cardledger:notify`. Streams are trimmed approximately
(`MAXLEN ~`), so their lengths stay bounded; PostgreSQL keeps the full log.

Only an event's public form (`domain.redaction.public_form`) is ever written:
the "private" part of an event never reaches Redis.

Stream entry ids are `{tx_id}-{global_position}`, the event's place in the
commit-safe order of the global log. They increase in the order the relay
publishes, so publishing an event again (a relay that died after publishing
but before storing its position) is refused by Redis as an id that is not
greater than the stream's top: a stream never holds an event twice. A
consumer reading both streams can also dedupe by `global_position`.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import redis

from domain.events import JSON
from domain.hashchain import canonical_timestamp
from domain.redaction import PUBLIC, redact_data
from infra import json_codec
from infra.event_store import RecordedEvent

GLOBAL_STREAM = "cardledger:events"
TABLE_STREAM_PREFIX = "cardledger:table:"
NOTIFY_CHANNEL = "cardledger:notify"
GLOBAL_MAXLEN = 100_000
TABLE_MAXLEN = 1_000
# Held by the projection job that will read the log again before it ends (its value is the job's id): while
# it is there, the relay enqueues no job of its own (services.projector.jobs.catch_up_all says why nothing is
# missed), and another job that starts leaves the catching up to the holder.
PROJECTIONS_LOOKING_KEY = "cardledger:projections:looking"

Redis = redis.Redis


def table_stream(table_id: str) -> str:
    """The key of a table's stream."""
    return f"{TABLE_STREAM_PREFIX}{table_id}"


def entry_id(event: RecordedEvent) -> str:
    """The stream entry id of an event: its commit-safe log position."""
    return f"{event.tx_id}-{event.global_position}"


def message_body(event: RecordedEvent) -> dict[str, JSON]:
    """The public form of a recorded event, as published (JSON object): its data as
    `domain.redaction.public_form` gives it (never the private part)."""
    return {
        "global_position": event.global_position,
        "tx_id": event.tx_id,
        "table_id": event.stream_id,
        "version": event.version,
        "type": event.type,
        "deal_no": event.deal_no,
        "occurred_at": canonical_timestamp(event.occurred_at),
        "data": redact_data(event.data, PUBLIC, deal_ended=False),
        "schema_version": event.schema_version,
        "hash_version": event.hash_version,
        "prev_hash": event.prev_hash,
        "hash": event.hash,
    }


def encode(event: RecordedEvent) -> bytes:
    """The published bytes of an event's message body: compact UTF-8 JSON, keys sorted (infra.json_codec)."""
    return json_codec.dumps(message_body(event), sort_keys=True)


# Publishes a batch in one command, run by Redis as a whole: KEYS are the global stream, the "looking" key,
# a job queue's list (or "" to skip the check), then each event's table stream; ARGV the two MAXLENs, the
# notification channel and message, then each event's entry id, global position and body. An id Redis refuses
# as not above the stream's top was published before and is skipped; any other error ends the script with it.
# Returns twice the entries added, plus 1 when the queue was named, holds no job and no job is looking (one
# integer: the cheapest reply to read).
_PUBLISH_SCRIPT = """
local added = 0
local function add(stream, maxlen, id, position, body)
  local reply = redis.pcall('XADD', stream, 'MAXLEN', '~', maxlen, id, 'global_position', position, 'event', body)
  if type(reply) == 'table' and reply.err then
    if not string.find(reply.err, 'equal or smaller', 1, true) then
      return reply.err
    end
  else
    added = added + 1
  end
end
for i = 4, #KEYS do
  local at = 4 + (i - 4) * 3
  local id, position, body = ARGV[at + 1], ARGV[at + 2], ARGV[at + 3]
  local failed = add(KEYS[1], ARGV[1], id, position, body) or add(KEYS[i], ARGV[2], id, position, body)
  if failed then
    return redis.error_reply(failed)
  end
end
redis.call('PUBLISH', ARGV[3], ARGV[4])
local idle = 0
if KEYS[3] ~= '' and redis.call('EXISTS', KEYS[2]) == 0 and redis.call('LLEN', KEYS[3]) == 0 then
  idle = 1
end
return added * 2 + idle
"""
_PUBLISH_SHA = hashlib.sha1(_PUBLISH_SCRIPT.encode()).hexdigest()


def publish(client: Redis, events: Sequence[RecordedEvent]) -> int:
    """Publish `events` (in log order) to the global and table streams and notify; returns the entries added
    (see `publish_checking_queue`)."""
    return publish_checking_queue(client, events, None)[0]


def publish_checking_queue(client: Redis, events: Sequence[RecordedEvent], queue_key: str | None) -> tuple[int, bool]:
    """Publish `events` (in log order) to the global and table streams and notify; returns the entries added
    and, when `queue_key` names a job queue's list, whether that queue is empty while no job holds the
    "looking" key (`PROJECTIONS_LOOKING_KEY`): then the caller enqueues a job, else it need not.

    Entries already present (same or smaller id) are skipped, so publishing a
    batch again is harmless. Raises redis.ConnectionError (and friends) when
    Redis cannot be reached; then nothing can be assumed about the batch and
    it must be published again.

    The batch goes as one script call (EVALSHA), not a pipeline of two XADDs per event, whose commands cost
    the relay more than the rest of its work (docs/performance.md). A script's keys must live on one Redis
    node: no Redis Cluster.
    """
    if not events:
        return 0, False
    keys = [GLOBAL_STREAM, PROJECTIONS_LOOKING_KEY, queue_key or ""]
    args: list[str | int | bytes] = [GLOBAL_MAXLEN, TABLE_MAXLEN, NOTIFY_CHANNEL, ""]
    for event in events:
        keys.append(table_stream(event.stream_id))
        args += [entry_id(event), event.global_position, encode(event)]
    last = events[-1]
    notice = {
        "global_position": last.global_position,
        "tx_id": last.tx_id,
        "tables": sorted({event.stream_id for event in events}),
    }
    args[3] = json_codec.dumps(notice)
    reply = _run_script(client, _PUBLISH_SCRIPT, _PUBLISH_SHA, keys, args)
    added, idle = divmod(int(reply), 2)
    return added, bool(idle)


def _run_script(client: Redis, script: str, sha: str, keys: Sequence[str], args: Sequence[str | int | bytes]) -> Any:
    try:
        return client.evalsha(sha, len(keys), *keys, *args)
    except redis.exceptions.NoScriptError:  # a server that has not seen it yet (or was restarted): send it whole
        return client.eval(script, len(keys), *keys, *args)


# The "looking" key's holder: ARGV[1] takes or keeps the key (for ARGV[3] ms) unless another holds it, and may
# hand it to ARGV[2] at once (a successor job). 1 if done, 0 if another holds the key.
_HOLD_LOOKING_SCRIPT = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""
_HOLD_LOOKING_SHA = hashlib.sha1(_HOLD_LOOKING_SCRIPT.encode()).hexdigest()
_RELEASE_LOOKING_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""
_RELEASE_LOOKING_SHA = hashlib.sha1(_RELEASE_LOOKING_SCRIPT.encode()).hexdigest()


def hold_looking(client: Redis, holder: str, ttl_ms: int, successor: str | None = None) -> bool:
    """Take the projections' "looking" key for `holder`, or keep it, for `ttl_ms`; with a `successor`, hand
    it to that job instead. False if another job holds it (nothing changed)."""
    args: list[str | int] = [holder, successor or holder, ttl_ms]
    return bool(_run_script(client, _HOLD_LOOKING_SCRIPT, _HOLD_LOOKING_SHA, [PROJECTIONS_LOOKING_KEY], args))


def release_looking(client: Redis, holder: str) -> bool:
    """Delete the "looking" key if `holder` holds it; False if it did not (gone, or another's)."""
    return bool(_run_script(client, _RELEASE_LOOKING_SCRIPT, _RELEASE_LOOKING_SHA, [PROJECTIONS_LOOKING_KEY], [holder]))


def _decode(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _event_body(fields: Mapping[Any, Any]) -> Any:
    """An entry's "event" field, as redis-py gives it: a bytes key, or a str one when it decodes responses."""
    return fields.get(b"event", fields.get("event"))


def _entries(raw: Any) -> list[tuple[str, dict[str, JSON]]]:
    return [(_decode(entry_id_raw), json_codec.loads(_event_body(fields))) for entry_id_raw, fields in raw]


def streams_of(reply: Any) -> list[tuple[Any, list[Any]]]:
    """(key, entries) of each stream in an XREAD reply as redis-py gives it: a list of pairs for RESP2, a map of
    one-item lists of the entries for RESP3."""
    if isinstance(reply, dict):
        return [(key, value[0] if value else []) for key, value in reply.items()]
    return [(key, entries) for key, entries in reply]


def read_stream(
    client: Redis, key: str, after_id: str = "0-0", count: int = 100, block_ms: int | None = None
) -> list[tuple[str, dict[str, JSON]]]:
    """Entries of stream `key` after `after_id`, as (entry id, message body); waits up to `block_ms` if none.

    `after_id` "0-0" reads from the oldest entry kept; "$" waits for new ones only.
    """
    reply: Any = client.xread({key: after_id}, count=count, block=block_ms)
    if not reply:
        return []
    entries: list[tuple[str, dict[str, JSON]]] = []
    for _stream, raw in streams_of(reply):
        entries.extend(_entries(raw))
    return entries


def read_table(
    client: Redis, table_id: str, after_id: str = "0-0", count: int = 100, block_ms: int | None = None
) -> list[tuple[str, dict[str, JSON]]]:
    """A table's published events after `after_id` (for Server-Sent Events: send the entry id as the SSE id)."""
    return read_stream(client, table_stream(table_id), after_id, count, block_ms)


class StreamsRead:
    """A blocking XREAD of the streams `keys`, sent again and again with the ids read up to."""

    def __init__(self, keys: Sequence[bytes], count: int, block_ms: int) -> None:
        self.keys = tuple(keys)
        self.count = count
        self.block_ms = block_ms

    def newest(self, client: Redis, after: Sequence[bytes]) -> dict[bytes, tuple[bytes, int | None]]:
        """For each stream that has entries after its id in `after` (the entry read up to, in the order of
        `keys`): the newest entry read (its id, and the version its event carries or None); waits up to the
        block if none has any. At most `count` entries of a stream are read: a stream with more answers the
        count-th, and the next read goes on from it. Only that entry's event is parsed."""
        reply: Any = client.xread(dict(zip(self.keys, after, strict=True)), count=self.count, block=self.block_ms)
        if not reply:
            return {}
        newest: dict[bytes, tuple[bytes, int | None]] = {}
        for key, raw in streams_of(reply):
            if not raw:
                continue
            entry, fields = raw[-1]
            body = _event_body(fields)
            version = json_codec.loads(body).get("version") if body is not None else None
            newest[_encoded(key)] = (_encoded(entry), version if isinstance(version, int) else None)
        return newest


_readers: weakref.WeakKeyDictionary[Redis, list[weakref.WeakMethod[Callable[[], None]]]] = weakref.WeakKeyDictionary()
_readers_lock = threading.Lock()


def stop_on_close(client: Redis, stop: Callable[[], None]) -> None:
    """Call the bound method `stop` (held weakly) when `client` is closed by `close`: a reader blocking on one of
    the client's connections ends as asked, instead of taking the closed connection for a lost Redis."""
    with _readers_lock:
        _readers.setdefault(client, []).append(weakref.WeakMethod(stop))


def close(client: Redis) -> None:
    """Stop the client's readers (`stop_on_close`), then close the client."""
    with _readers_lock:
        stops = _readers.pop(client, [])
    for ref in stops:
        stop = ref()
        if stop is not None:
            stop()
    client.close()


def _encoded(value: bytes | str) -> bytes:
    return value if isinstance(value, bytes) else value.encode()  # str from a client that decodes its replies


def range_stream(client: Redis, key: str, count: int | None = None) -> list[tuple[str, dict[str, JSON]]]:
    """All entries of a stream still kept, oldest first (or the first `count`)."""
    return _entries(client.xrange(key, count=count))


def table_stream_after_version(
    client: Redis, table_id: str, version: int, count: int = 1000
) -> list[tuple[str, dict[str, JSON]]]:
    """A table's entries with a stream version above `version` (a client that knows the state at `version`)."""
    return [
        (eid, body)
        for eid, body in range_stream(client, table_stream(table_id), count)
        if isinstance(body.get("version"), int) and int(body["version"]) > version
    ]


def longest_block(client: Redis) -> float | None:
    """Seconds a blocking read may wait for entries: less than the client's socket timeout, which would end the
    read with an error instead of an empty answer (the services' client times out at 10 s)."""
    timeout = client.connection_pool.connection_kwargs.get("socket_timeout")
    return None if timeout is None else max(timeout - 1.0, timeout / 2)


def table_head(client: Redis, table_id: str) -> tuple[str, int | None] | None:
    """The newest entry of the table's stream: (its entry id, the version it carries), or None when the stream
    holds no entry (nothing published yet, or Redis lost it)."""
    newest = _entries(client.xrevrange(table_stream(table_id), count=1))
    if not newest:
        return None
    entry, body = newest[0]
    version = body.get("version")
    return entry, version if isinstance(version, int) else None


def notification(message: Mapping[str, Any]) -> dict[str, JSON] | None:
    """The JSON of a pub/sub message on NOTIFY_CHANNEL, or None for subscribe confirmations."""
    if message.get("type") != "message":
        return None
    data = message["data"]
    parsed: dict[str, JSON] = json_codec.loads(data)
    return parsed


# Failures -------------------------------------------------------------------------


def failure_code(error: BaseException) -> str:
    """The `cardledger_errors_total` code of a Redis failure: `redis_auth_failed` when Redis refused the
    credentials of REDIS_URL (no password, a wrong one, a disabled user), else `redis_unavailable`."""
    return "redis_auth_failed" if isinstance(error, redis.AuthenticationError) else "redis_unavailable"


def describe_failure(error: BaseException) -> str:
    """A Redis failure for a log line or a readiness check, with its likely cause. Never the URL: it may hold
    the password (redis-py's messages give the host and port at most)."""
    if isinstance(error, redis.AuthenticationError):
        return f"Redis refused the credentials of REDIS_URL: no password or a wrong one ({error})"
    text = str(error)
    if "SSL" in text or "certificate" in text.lower():
        return f"TLS with Redis failed: check rediss:// and its CA (ssl_ca_certs in REDIS_URL) ({text})"
    return f"Redis unreachable: {type(error).__name__}: {text}"
