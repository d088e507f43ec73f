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


def shared_graph_spec(
    layers: int, *, width: int = 8, fanout: int = 2, variant: int = 0
) -> dict[str, Any]:
    """A valid OpenAPI 3.1 document whose components form a deep, widely shared reference graph.

    ``layers`` layers of ``width`` object schemas each (``Node{layer}_{i}``); every schema but
    those of the last layer refers to ``fanout`` schemas of the next layer, so that each schema of
    the first layer reaches the last one along ``fanout ** (layers - 1)`` paths while the document
    holds only ``layers * width`` schemas (real documents share their components the same way,
    only less regularly). One operation per schema of the first layer takes and returns it; every
    operation's 400 response is one shared ``Error``.

    ``variant`` 1 changes the first two layers (a response-visible enum value added, a format
    dropped) and removes one property of every schema of the third, so the diff reports changes
    at a few paths per operation, not at every path.
    """
    components: dict[str, Any] = {
        "Error": {
            "type": "object",
            "required": ["message"],
            "properties": {"message": {"type": "string"}, "code": {"type": "integer"}},
        }
    }
    for layer in range(layers):
        for i in range(width):
            changed = variant == 1 and layer < 2
            properties: dict[str, Any] = {
                "name": {"type": "string"},
                "size": {"type": "integer"} if changed else {"type": "integer", "format": "int32"},
                "kind": {"type": "string", "enum": ["A", "B"] + (["C"] if changed else [])},
            }
            if not (variant == 1 and layer == 2):
                properties["note"] = {"type": "string", "default": "none"}
            if layer + 1 < layers:
                for t in range(fanout):
                    target = f"Node{layer + 1}_{(i + t) % width}"
                    properties[f"child{t}"] = {"$ref": f"#/components/schemas/{target}"}
            components[f"Node{layer}_{i}"] = {
                "type": "object",
                "required": ["name"],
                "properties": properties,
            }
    paths: dict[str, Any] = {}
    for i in range(width):
        ref = {"$ref": f"#/components/schemas/Node0_{i}"}
        paths[f"/nodes{i}"] = {
            "post": {
                "operationId": f"updateNode{i}",
                "requestBody": {"required": True, "content": {"application/json": {"schema": ref}}},
                "responses": {
                    "200": {
                        "description": "The node",
                        "content": {"application/json": {"schema": ref}},
                    },
                    "400": {
                        "description": "Invalid",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                        },
                    },
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": f"Shared graph {layers}x{width}", "version": "1"},
        "servers": [{"url": "https://example.invalid"}],
        "paths": paths,
        "components": {"schemas": components},
    }


def shared_graph_paths(layers: int, fanout: int = 2) -> int:
    """The paths from one operation's body to the schemas of all layers of
    :func:`shared_graph_spec`: what a diff that walks every path visits per body."""
    return sum(fanout**layer for layer in range(layers))
