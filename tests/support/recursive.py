"""Documents whose schemas refer to themselves through each keyword that nests a schema, for the
tests of recursive schemas' packages (their models, and ``mypy --strict`` over them)."""

from __future__ import annotations


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def document(schemas: dict, fields: dict, answer: str | None = None) -> dict:
    """A document of ``schemas``, with one operation that sends a ``Holder`` of ``fields`` (a
    request model: strict) and answers the schema ``answer`` (or a string)."""
    schemas = {**schemas, "Holder": {"type": "object", "properties": fields}}
    reply = ref(answer) if answer else {"type": "string"}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Recursion", "version": "1.0.0"},
        "paths": {
            "/holders": {
                "post": {
                    "operationId": "send",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": ref("Holder")}},
                    },
                    "responses": {
                        "200": {
                            "description": "the answer",
                            "content": {"application/json": {"schema": reply}},
                        }
                    },
                }
            }
        },
        "components": {"schemas": schemas},
    }


CASES = {
    # case: (its schemas, the Holder's field of it, a nested value, (a value wrong deep inside,
    # the start of the path the error names))
    "additional_properties": (
        {"Tree": {"type": "object", "additionalProperties": ref("Tree")}},
        ref("Tree"),
        {"a": {"b": {}, "c": {"d": {}}}},
        ({"a": {"b": 1}}, "tree.a.b"),
    ),
    "items": (
        {"Lists": {"type": "array", "items": ref("Lists")}},
        ref("Lists"),
        [[], [[[]], []]],
        ([[["x"]]], "tree[0][0][0]"),
    ),
    "inline_object_in_items": (
        {
            "Nodes": {
                "type": "array",
                "items": {"type": "object", "properties": {"recursive": ref("Nodes")}},
            }
        },
        ref("Nodes"),
        [{"recursive": [{"recursive": []}, {}]}],
        ([{"recursive": [{"recursive": 3}]}], "tree[0].recursive[0].recursive"),
    ),
    "one_of": (
        {
            "Expr": {
                "oneOf": [
                    {"type": "integer"},
                    {"type": "array", "items": ref("Expr")},
                    {
                        "type": "object",
                        "properties": {"op": {"type": "string"}, "args": ref("Expr")},
                        "required": ["op"],
                    },
                ]
            }
        },
        ref("Expr"),
        [1, [2, 3], {"op": "neg", "args": [4, {"op": "abs", "args": 5}]}],
        ([1, ["no"]], "tree"),
    ),
    "any_of_nullable": (
        {
            "Json": {
                "nullable": True,
                "anyOf": [
                    {"type": "string"},
                    {"type": "number"},
                    {"type": "array", "items": ref("Json")},
                    {"type": "object", "additionalProperties": ref("Json")},
                ],
            }
        },
        ref("Json"),
        {"a": [1.5, "x", None, {"b": None}]},
        ({"a": [True]}, "tree"),
    ),
    "prefix_items": (
        {
            "Pair": {
                "type": "array",
                "prefixItems": [{"type": "string"}, {"anyOf": [ref("Pair"), {"type": "integer"}]}],
                "minItems": 2,
                "maxItems": 2,
            }
        },
        ref("Pair"),
        ["a", ["b", ["c", 1]]],
        (["a", ["b", ["c", "no"]]], "tree"),
    ),
    "mutual_through_a_ring": (
        {
            "A": {"type": "array", "items": ref("B")},
            "B": {"type": "object", "additionalProperties": ref("C")},
            "C": {"oneOf": [ref("A"), {"type": "boolean"}]},
        },
        ref("A"),
        [{"x": [{"y": True}], "z": False}],
        ([{"x": [{"y": "no"}]}], "tree"),
    ),
    "a_schema_that_only_names_one": (
        {
            "Forest": {"type": "object", "additionalProperties": ref("Alias")},
            "Alias": ref("Forest"),
        },
        ref("Alias"),
        {"a": {"b": {}}},
        ({"a": []}, "tree.a"),
    ),
}


def every_case() -> tuple[dict, dict, dict]:
    """One document of every case's schemas, a field of the ``Holder`` for each, and a value."""
    schemas = {name: schema for case in CASES.values() for name, schema in case[0].items()}
    fields = {case: CASES[case][1] for case in CASES}
    return document(schemas, fields, "Json"), fields, {case: CASES[case][2] for case in CASES}
