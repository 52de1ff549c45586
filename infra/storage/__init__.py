"""The application's storage behind ports (cosmicpython's repositories and unit of work, as Protocols).

- `ports`     the Protocols: `TableEvents`, `Seeds`, `SigningKeys`, `Players`, `GuardedAppend`, `ReadModels`,
              the `Session` that offers them all on one connection, and the `Storage` that opens sessions
- `postgres`  `PostgresStorage`: today's SQL functions of infra/ on a pooled connection (production)
- `memory`    `InMemoryStorage`: the same contracts on `InMemoryEventStore`, with no server (tests)

Import the submodules themselves: this package's `__init__` imports nothing, so `infra.seeds` and
`infra.folded_states` can take their port from `ports` while `postgres` takes them.
"""
