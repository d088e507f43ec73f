"""Build small OpenAPI documents in tests, around one operation's request and response schemas."""

from __future__ import annotations

import copy
from typing import Any

from generator.reading import ir
from generator.reading.parser import parse_document

PATH = "/things/{thing_id}"


def document(
    body: dict[str, Any] | None = None,
    response: dict[str, Any] | None = None,
    *,
    schemas: dict[str, Any] | None = None,
    parameters: list[dict[str, Any]] | None = None,
    responses: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A minimal valid OpenAPI 3.1 document with ``POST /things/{thing_id}``."""
    operation: dict[str, Any] = {
        "operationId": "makeThing",
        "parameters": [
            {"name": "thing_id", "in": "path", "required": True, "schema": {"type": "string"}},
            *(parameters or []),
        ],
        "responses": responses
        or {
            "200": {
                "description": "ok",
                "content": {"application/json": {"schema": response or {"type": "object"}}},
            }
        },
    }
    if body is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": body}},
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {PATH: {"post": operation}},
        "components": {"schemas": copy.deepcopy(schemas or {})},
    }


def parse(raw: dict[str, Any]) -> ir.Document:
    return parse_document(raw, source="test.yaml")


def obj(required: list[str] | None = None, **properties: Any) -> dict[str, Any]:
    """An object schema with the given properties."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema
