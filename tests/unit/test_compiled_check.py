"""The compiled check in front of jsonschema (``generator.reading.compiled``): the validator's
findings are the same with it as without it, word for word and place for place, on documents
with a mutation anywhere, and whatever backend openapi-spec-validator is set to."""

from __future__ import annotations

import copy
import datetime
import re
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import generator.reading.compiled as compiled
from generator.reading import validate

pytest.importorskip("jsonschema_rs")


def document(version: str) -> dict[str, Any]:
    """A small valid document with what the meta-schemas check: patterns, formats, defaults,
    composition, references, parameters and responses."""
    nullable = {"nullable": True} if version.startswith("3.0") else {}
    return {
        "openapi": version,
        "info": {"title": "T", "version": "1", "contact": {"email": "a@b.c"}},
        "paths": {
            "/things/{id}": {
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "post": {
                    "operationId": "make",
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/A"}}
                        }
                    },
                    "responses": {
                        "200": {
                            "description": "ok",
                            "content": {"application/json": {"schema": {"type": "integer"}}},
                        }
                    },
                },
            }
        },
        "components": {
            "schemas": {
                "A": {
                    "type": "object",
                    "required": ["b"],
                    "properties": {
                        "b": {"type": "string", "pattern": "^[a-z]+$", "default": "ab"},
                        "c": {"type": "integer", "format": "int32", "minimum": 0, **nullable},
                        "d": {"allOf": [{"$ref": "#/components/schemas/B"}]},
                    },
                    "additionalProperties": {"type": "number"},
                },
                "B": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}},
            }
        },
    }


VERSIONS = ["3.0.3", "3.1.0"]


def findings(raw: Any) -> list[str]:
    return [str(problem) for problem in validate.schema_problems(raw, "doc.yaml")]


@pytest.fixture
def without_compiled(monkeypatch):
    """``findings`` with the compiled check left out (jsonschema checks everything), then put
    back; the validators built either way are dropped."""

    def uncompiled(raw: Any) -> list[str]:
        validate._validator.cache_clear()
        compiled._compiled_meta.cache_clear()
        with monkeypatch.context() as patch:
            patch.setattr(compiled, "compiled", lambda *arguments: compiled._never)
            try:
                return findings(raw)
            finally:
                validate._validator.cache_clear()
                compiled._compiled_meta.cache_clear()

    return uncompiled


def places(node: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [at]
    if isinstance(node, dict):
        for key, value in node.items():
            found += places(value, (*at, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += places(value, (*at, index))
    return found


tricky_text = st.sampled_from(
    [
        "(?<name>a)",  # a regular expression in ECMA's dialect, not Python's
        "\\p{L}+",
        "a$",
        "[",
        "x-a\n",
        "$ref",
        "#/components/schemas/A",
        "http://example.com/ a",
        "2020-01-01",
        "200",
        "1XX",
        "",
    ]
) | st.text(max_size=6)
values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1.0, -1, 0])
    | tricky_text,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(
        tricky_text
        | st.sampled_from(["type", "pattern", "format", "$ref", "default", "nullable", "items"]),
        inner,
        max_size=3,
    ),
    max_leaves=8,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), version=st.sampled_from(VERSIONS))
def test_a_mutated_document_has_the_same_findings_with_the_compiled_check(
    data, version, without_compiled
):
    raw = document(version)
    at = data.draw(st.sampled_from(places(raw)[1:]), label="place")
    parent = raw
    for step in at[:-1]:
        parent = parent[step]
    if isinstance(parent[at[-1]], dict) and data.draw(st.booleans(), label="add a key"):
        parent[at[-1]][data.draw(tricky_text, label="key")] = data.draw(values, label="value")
    else:
        parent[at[-1]] = data.draw(values, label="value")
    assert findings(raw) == without_compiled(copy.deepcopy(raw))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda a: a["properties"]["b"].update(pattern="(?<n>a)"), id="ecma-pattern"),
        pytest.param(lambda a: a["properties"].update({200: {"type": "string"}}), id="int-key"),
        pytest.param(lambda a: a.update(default=datetime.date(2020, 1, 1)), id="date"),
        pytest.param(lambda a: a.update(minProperties=1.0), id="float-count"),
        pytest.param(lambda a: a.update(maxLength=10**40), id="huge-count"),
        pytest.param(
            lambda a: a["properties"].update({"x-a\n": {"type": "integer"}}), id="newline"
        ),
        pytest.param(lambda a: a.update(type="nothing"), id="unknown-type"),
    ],
)
def test_values_either_engine_could_read_otherwise_have_the_same_findings(
    version, change, without_compiled
):
    raw = document(version)
    change(raw["components"]["schemas"]["A"])
    assert findings(raw) == without_compiled(copy.deepcopy(raw))


@pytest.mark.parametrize("version", VERSIONS)
def test_deep_nesting_has_the_same_findings(version, without_compiled):
    def deep() -> dict[str, Any]:
        raw = document(version)
        node: dict[str, Any] = raw["components"]["schemas"]["A"]
        for _ in range(2_000):
            node["items"] = {}
            node = node["items"]
        return raw

    # where Python's stack runs out differs (jsonschema's descent of the OpenAPI schema, which
    # the compiled check spares, or the schema checks after it): the finding is the same one, in
    # the nested schema's part of the document
    fast, slow = findings(deep()), without_compiled(deep())
    where = "doc.yaml#/components"
    for found in (fast, slow):
        assert len(found) == 1 and found[0].startswith(where), found
        assert ": RecursionError: maximum recursion depth exceeded" in found[0]


@pytest.mark.parametrize("backend", ["jsonschema", "jsonschema-rs", "auto"])
def test_findings_do_not_depend_on_the_validator_s_backend_setting(backend, monkeypatch):
    """openapi-spec-validator picks its backend from the environment (jsonschema-rs's errors
    have other words and no places): the findings are jsonschema's whatever it says."""
    raw = document("3.0.3")
    raw["info"].pop("version")
    raw["components"]["schemas"]["A"]["type"] = "nothing"
    expected = findings(raw)
    assert expected
    validate._validator.cache_clear()
    monkeypatch.setenv("OPENAPI_SPEC_VALIDATOR_SCHEMA_VALIDATOR_BACKEND", backend)
    try:
        assert findings(raw) == expected
    finally:
        validate._validator.cache_clear()


@pytest.mark.parametrize("version", VERSIONS)
def test_a_valid_document_is_found_valid_by_the_compiled_check(version):
    """The fast path is taken: without it the check would be correct and as slow as before."""
    from openapi_schema_validator import OAS30Validator, OAS31Validator

    raw = document(version)
    assert findings(raw) == []
    spec_validator = validate._validator("3.1" if version.startswith("3.1") else "3.0")
    assert spec_validator.schema_validator._valid(raw)
    owner = OAS31Validator if version.startswith("3.1") else OAS30Validator
    checks = compiled.meta_check(owner.check_schema)
    assert checks(raw["components"]["schemas"]["A"])
    assert not checks({"type": "nothing"})


def test_a_digit_is_what_python_reads_as_one_in_either_engine():
    """``\\d`` reaches the compiled engine as the ranges of Python's own digits (found from
    every tenth code point): a pattern with it accepts the same strings in both."""
    every = "".join(map(chr, range(sys.maxunicode + 1)))  # surrogates too
    digits = re.compile(f"[{compiled._digit_ranges()}]")
    assert digits.findall(every) == re.findall(r"\d", every)
    valid = compiled.compiled({"type": "string", "pattern": "^\\d+$"}, None)
    # ASCII, Arabic-Indic, Devanagari, mathematical and Adlam digits; superscripts, fractions
    # and Roman numerals are numbers, not decimal digits
    for text in [
        "0129",
        "\u0663",
        "\u096f",
        "\U0001d7d8",
        "\U0001e950",
        "\u00b2",
        "\u00bd",
        "\u2167",
        "a",
    ]:
        assert valid(text) == bool(re.search(r"^\d+$", text)), ascii(text)


def faulty(version: str) -> dict[str, Any]:
    """:func:`document` with a fault in each of three places of its paths and components."""
    raw = document(version)
    operation = raw["paths"]["/things/{id}"]["post"]
    operation["responses"]["200"]["content"]["application/json"]["schema"]["minimum"] = "0"
    operation["title"] = "not a field of an operation"
    raw["components"]["schemas"]["B"]["items"]["type"] = "nothing"
    return raw


@pytest.mark.parametrize("version", VERSIONS)
def test_a_document_with_several_faults_has_the_same_findings(version, without_compiled):
    raw = faulty(version)
    found = findings(raw)
    assert len(found) >= 3
    assert found == without_compiled(copy.deepcopy(raw))


def test_jsonschema_descends_only_into_what_the_compiled_check_finds_invalid():
    """On a 3.0 document (the OpenAPI schema of draft 4) with one fault, jsonschema checks the
    references on the way to it alone: a valid path item is not walked again."""
    import jsonschema.validators

    raw = document("3.0.3")
    for number in range(20):
        raw["paths"][f"/other/{number}"] = copy.deepcopy(raw["paths"]["/things/{id}"])
        raw["paths"][f"/other/{number}"]["post"]["operationId"] = f"other{number}"
    raw["paths"]["/other/7"]["post"]["title"] = "not a field of an operation"
    schema = dict(validate._validator("3.0").schema_validator.schema)
    original = jsonschema.validators.validator_for(schema)
    checking = compiled.checking_references(original, schema)
    assert checking is not original
    walked: dict[type, int] = {}

    def counted(cls: Any) -> Any:
        def properties(validator, properties, instance, node):
            walked[cls] = walked.get(cls, 0) + 1
            yield from cls.VALIDATORS["properties"](validator, properties, instance, node)

        return jsonschema.validators.extend(cls, {"properties": properties})

    errors = {
        cls: [(list(e.absolute_path), e.message) for e in counted(cls)(schema).iter_errors(raw)]
        for cls in (original, checking)
    }
    assert errors[checking] == errors[original]
    assert [path for path, _ in errors[checking]] == [["paths", "/other/7", "post"]]
    assert walked[checking] * 5 < walked[original]


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param(
            {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:a"},
            id="dynamic-scope",
        ),
        pytest.param({"$schema": "http://json-schema.org/draft-04/schema#"}, id="no-base"),
        pytest.param(
            {
                "$schema": "http://json-schema.org/draft-04/schema#",
                "id": "urn:a",
                "definitions": {"b": {"id": "urn:b", "type": "string"}},
            },
            id="a-base-within",
        ),
    ],
)
def test_references_are_left_to_jsonschema_where_their_verdict_may_depend_on_the_way(schema):
    """Where a reference may mean something else depending on where it is reached from (a
    draft with a dynamic scope, a schema that sets a base of its own) or cannot be named (no
    base URI), jsonschema's class is used as it is."""
    import jsonschema.validators

    cls = jsonschema.validators.validator_for(schema)
    assert compiled.checking_references(cls, schema) is cls
