"""Build small OpenAPI documents in tests, around one operation's request and response schemas;
rename a component of a document, the newest revision's among them."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml

from generator.reading import ir
from generator.reading.fieldroles import load_field_roles
from generator.reading.parser import parse_document
from generator.reading.revisions import load_index
from support.paths import SPEC_DIR

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


def rename(raw: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """``raw`` with the component ``old`` named ``new``, and every reference to it."""
    text = json.dumps(raw).replace(f'"#/components/schemas/{old}"', f'"#/components/schemas/{new}"')
    renamed = json.loads(text)
    schemas = renamed["components"]["schemas"]
    renamed["components"]["schemas"] = {(new if k == old else k): v for k, v in schemas.items()}
    return renamed


def newest_renamed() -> tuple[dict[str, Any], str, str]:
    """The newest revision's document with the component its served body reaches first (found
    through the parser) renamed; the old name and the new."""
    index = load_index(SPEC_DIR)
    raw = yaml.safe_load(index[-1].file.read_text(encoding="utf-8"))
    doc = parse_document(raw, source="newest.yaml")
    operation = doc.operation(load_field_roles(SPEC_DIR).operation)
    assert operation is not None and operation.request_body is not None
    body = doc.resolve(operation.request_body.schema)  # type: ignore[arg-type]
    assert isinstance(body, ir.Object)
    old = next(
        (p.schema.name for p in body.properties if isinstance(p.schema, ir.Ref)),
        None,
    )
    if old is None:
        pytest.skip("the newest revision's body refers to no component")
    new = f"{old}Renamed"
    assert new not in doc.schemas
    return rename(raw, old, new), old, new
