"""Whatever document it is given, ``generate --spec`` and ``diff`` raise only the project's own
errors (generator/errors.py), each naming a place, never a traceback: random documents of
random schemas, parameters and names, through the parser, the views, the templates and the
diff."""

from __future__ import annotations

import functools
import json

from hypothesis import HealthCheck, given, settings, strategies as st

from generator.changes.diff import diff_documents
from generator.errors import GeneratorError
from generator.output import document, package
from generator.reading.parser import parse_document
from generator.reading.revisions import Revision

NAMES = st.sampled_from(
    ["a", "A", "_a", "a_", "+1", "-1", "class", "self", "to_dict", "Model", "x-y", "", "a\x00"]
) | st.text(max_size=4)
SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False) | NAMES
KEYWORD_VALUES = {
    "type": st.sampled_from(["string", "integer", "number", "boolean", "object", "array", "null"])
    | st.lists(st.sampled_from(["string", "integer", "null", "object"]), max_size=3),
    "format": st.sampled_from(["int64", "binary", "date-time", "uuid"]),
    "enum": st.lists(SCALARS, max_size=4),
    "const": SCALARS,
    "default": SCALARS | st.lists(SCALARS, max_size=2),
    "example": SCALARS,
    "nullable": st.booleans(),
    "pattern": st.sampled_from(["^a$", "(?<n>a)", "[", "\\p{L}"]),
    "minimum": st.integers(-3, 3),
    "maxLength": st.integers(0, 3),
    "required": st.lists(NAMES, max_size=3),
    "$ref": st.sampled_from(
        ["#/components/schemas/A", "#/components/schemas/B", "#/components/schemas/Nope", "#/x"]
    ),
    "not": st.just({"type": "string"}),
    "description": NAMES,
}


def schemas(depth: int = 2) -> st.SearchStrategy[dict]:
    leaf = st.dictionaries(st.sampled_from(sorted(KEYWORD_VALUES)), st.nothing(), max_size=0)
    simple = st.fixed_dictionaries(
        {}, optional={key: value for key, value in KEYWORD_VALUES.items()}
    )
    if depth == 0:
        return simple | leaf
    inner = schemas(depth - 1)
    return simple | st.fixed_dictionaries(
        {},
        optional={
            "type": KEYWORD_VALUES["type"],
            "properties": st.dictionaries(NAMES, inner, max_size=3),
            "required": KEYWORD_VALUES["required"],
            "items": inner,
            "additionalProperties": st.booleans() | inner,
            "allOf": st.lists(inner, max_size=3),
            "oneOf": st.lists(inner, max_size=3),
            "anyOf": st.lists(inner, max_size=2),
            "discriminator": st.fixed_dictionaries({"propertyName": NAMES}),
            "$ref": KEYWORD_VALUES["$ref"],
        },
    )


PARAMETERS = st.lists(
    st.fixed_dictionaries(
        {
            "name": NAMES,
            "in": st.sampled_from(["query", "header", "cookie", "path"]),
        },
        optional={
            "required": st.booleans(),
            "schema": schemas(1),
            "style": st.sampled_from(["form", "deepObject", "simple", "label", "pipeDelimited"]),
            "explode": st.booleans(),
            "content": st.fixed_dictionaries(
                {"application/json": st.fixed_dictionaries({"schema": schemas(1)})}
            ),
        },
    ),
    max_size=3,
)


@st.composite
def documents(draw: st.DrawFn) -> dict:
    operations = {}
    for number in range(draw(st.integers(1, 3))):
        operation: dict = {
            "operationId": draw(NAMES | st.just(f"op{number}")),
            "parameters": draw(PARAMETERS),
            "responses": {
                "200": {
                    "description": "ok",
                    "content": {"application/json": {"schema": draw(schemas())}},
                }
            },
        }
        if draw(st.booleans()):
            media = draw(st.sampled_from(["application/json", "multipart/form-data"]))
            operation["requestBody"] = {"content": {media: {"schema": draw(schemas())}}}
        placeholders = "".join(
            "/{" + p["name"] + "}" for p in operation["parameters"] if p["in"] == "path"
        )
        method = draw(st.sampled_from(["get", "post"]))
        operations[f"/p{number}{placeholders}"] = {method: operation}
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": operations,
        "components": {"schemas": {"A": draw(schemas()), "B": draw(schemas())}},
    }


@functools.cache
def _templates() -> package.Templates:
    return package.load_templates()


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(raw=documents(), other=documents())
def test_only_the_project_s_own_errors_escape(tmp_path, raw, other):
    templates = _templates()
    info = package.PackageInfo("anything", "anything", "the API", False)
    source = tmp_path / "any.json"
    source.write_text(json.dumps(raw))
    try:
        doc = parse_document(raw, source=str(source), lenient=True)
        document.render_document(templates, Revision.of_document(doc, source), info, "1")
    except GeneratorError:
        pass
    try:
        diff_documents(
            parse_document(raw, source="old.yaml", mode="complete"),
            parse_document(other, source="new.yaml", mode="complete"),
        )
    except GeneratorError:
        pass
