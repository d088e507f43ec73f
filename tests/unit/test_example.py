"""The README example of a revision package: a document it cannot show is refused by name."""

from __future__ import annotations

from typing import Any

import pytest

from generator.reading.parser import parse_document
from generator.views.example import ExampleError, example


def _document(responses: dict[str, Any], body: bool = True) -> dict[str, Any]:
    operation: dict[str, Any] = {"operationId": "step", "responses": responses}
    if body:
        operation["requestBody"] = {"content": {"application/json": {"schema": {"type": "object"}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {"/steps": {"post": operation}},
    }


def test_an_operation_without_a_success_body_is_named() -> None:
    doc = parse_document(_document({"204": {"description": "done"}}))
    with pytest.raises(
        ExampleError, match=r"success response with a body for POST /steps \(/paths/~1steps/post\)"
    ):
        example(doc, None, None)  # type: ignore[arg-type]  # refused before they are read


def test_a_document_without_a_request_body_is_refused() -> None:
    doc = parse_document(_document({"200": {"description": "ok"}}, body=False))
    with pytest.raises(ExampleError, match="an operation with a request body"):
        example(doc, None, None)  # type: ignore[arg-type]
