"""The OpenAPI document: its shared pieces, what marshmallow cannot say, examples, and Swagger UI."""
