"""The request and answer schemas (marshmallow), shared by the resources and the OpenAPI document."""
