"""Edges of cardledger: the REST API, the relay, the projection workers and the command line."""
