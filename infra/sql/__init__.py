"""The SQL the application and the processes run, one module per table (or concern) it reads or writes,
one function per statement. The event store, the projections, players and seeds keep theirs in their
own modules of `infra/`; nothing outside `infra/` holds SQL (tests/unit/test_layout.py checks)."""
