"""An operation's reference page: a schema's tree is the same on every page that shows it, a
recursive schema shown once on each path into it, whether or not the trees of one document are
built together."""

from __future__ import annotations

from generator.reading.parser import parse_document
from generator.views.docpage import Line, operation_pages


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


SCHEMAS = {
    # Node -> Branch -> Node: a cycle, entered from either side
    "Node": {"type": "object", "properties": {"branch": ref("Branch"), "leaf": ref("Leaf")}},
    "Branch": {
        "type": "object",
        "properties": {"node": ref("Node"), "nodes": {"type": "array", "items": ref("Node")}},
    },
    "Leaf": {"type": "object", "properties": {"value": {"type": "string"}}},
    "Holder": {
        "type": "object",
        "properties": {
            "leaf": ref("Leaf"),
            "branch": ref("Branch"),
            "either": {"oneOf": [ref("Node"), ref("Leaf")]},
            "map": {"type": "object", "additionalProperties": ref("Branch")},
        },
    },
}


def document():
    paths = {
        f"/{name.lower()}": {
            "post": {
                "operationId": f"post{name}",
                "requestBody": {"content": {"application/json": {"schema": ref(name)}}},
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {"application/json": {"schema": ref("Holder")}},
                    }
                },
            }
        }
        for name in SCHEMAS
    }
    raw = {
        "openapi": "3.1.0",
        "info": {"title": "Trees", "version": "1"},
        "paths": paths,
        "components": {"schemas": SCHEMAS},
    }
    return parse_document(raw, source="trees.yaml", lenient=True)


def depth(line: Line) -> int:
    return 1 + max((depth(child) for child in line.children), default=0)


def test_the_pages_built_together_are_the_pages_built_alone():
    doc = document()
    named = [(operation, operation.operation_id or "") for operation in doc.operations]
    together = operation_pages(doc, named)
    alone = [operation_pages(doc, [pair])[0] for pair in named]
    assert together == alone
    # the cycle is cut once on each path: under Node, Branch, whose Node is shown with nothing below
    node = next(page for page in together if page.name == "postNode")
    assert node.request_body is not None and depth(node.request_body) == 3
    for page in together:
        assert page.responses and page.responses[0].body is not None
        assert page.responses[0].body == together[0].responses[0].body
