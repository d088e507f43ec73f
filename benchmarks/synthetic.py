"""Synthetic OpenAPI documents of a given number of schemas, for the scaling benchmark."""

from __future__ import annotations

from typing import Any


def synthetic_spec(schemas: int, *, variant: int = 0) -> dict[str, Any]:
    """A valid OpenAPI 3.1 document with ``schemas`` object schemas and one operation per ten,
    each taking and returning the head of a chain.

    Each schema has a string, an integer, a number with a format, an enum and, but for every
    tenth, a reference to the schema before it: chains of ten nested objects, so resolving and
    diffing follow real nesting of a realistic depth. ``variant`` 1 changes every tenth schema
    (a format dropped, an enum value added, the reference removed), to give the diff engine work.
    """
    components: dict[str, Any] = {}
    for i in range(schemas):
        changed = variant == 1 and i % 10 == 5
        properties: dict[str, Any] = {
            "name": {"type": "string", "description": f"Name of item {i}"},
            "count": {"type": "integer", "format": "int64"},
            "ratio": {"type": "number"} if changed else {"type": "number", "format": "float"},
            "kind": {"type": "string", "enum": ["A", "B", "C"] + (["D"] if changed else [])},
        }
        if i % 10 and not changed:
            properties["previous"] = {"$ref": f"#/components/schemas/Item{i - 1}"}
        components[f"Item{i}"] = {"type": "object", "required": ["name"], "properties": properties}
    paths: dict[str, Any] = {}
    for i in range(min(9, schemas - 1), schemas, 10):
        paths[f"/items{i}/{{item_id}}"] = {
            "post": {
                "operationId": f"updateItem{i}",
                "parameters": [
                    {
                        "name": "item_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                    }
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": f"#/components/schemas/Item{i}"}}
                    },
                },
                "responses": {
                    "200": {
                        "description": "The item",
                        "content": {
                            "application/json": {
                                "schema": {"$ref": f"#/components/schemas/Item{i}"}
                            }
                        },
                    }
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": f"Synthetic {schemas}", "version": "1"},
        "servers": [{"url": "https://example.invalid"}],
        "paths": paths,
        "components": {"schemas": components},
    }
