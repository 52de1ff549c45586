"""The application's storage: infra's adapters of the application's ports (`services.app.ports`: cosmicpython's
repositories and unit of work, as Protocols), which they meet structurally, importing nothing of services.

- `postgres`  `PostgresStorage`: today's SQL functions of infra/ on a pooled connection (production)
- `memory`    `InMemoryStorage`: the same contracts on `InMemoryEventStore`, with no server (tests)

Import the submodules themselves: this package's `__init__` imports nothing.
"""
