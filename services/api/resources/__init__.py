"""The REST resources: one flask-smorest blueprint per module, each declaring its rate limit."""
