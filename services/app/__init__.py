"""The application layer: every command and query of the API, the clock and the CLI goes through here."""
