"""How the reader and the client view take a parameter's ``style``, ``explode`` and
``allowReserved``: a style its location does not allow is refused at its place, what has no
meaning is noted and set aside, and each styled parameter is written by its location's call."""

from __future__ import annotations

import copy

import pytest

from generator.errors import SpecError
from generator.reading.revisions import Revision
from generator.views.pyclient import build_client
from generator.views.pymodel import build_module
from support.specdocs import document, obj, parse

COLOR = obj(R={"type": "integer"}, G={"type": "integer"})
WORDS = {"type": "array", "items": {"type": "string"}}


def with_parameters(*parameters: dict) -> dict:
    raw = copy.deepcopy(document())
    raw["paths"]["/paint/{where}"] = {
        "get": {
            "operationId": "paint",
            "parameters": [
                {"name": "where", "in": "path", "required": True, "schema": {"type": "string"}},
                *parameters,
            ],
            "responses": {"200": {"description": "ok"}},
        }
    }
    return raw


@pytest.mark.parametrize(
    "location, style",
    [
        ("query", "simple"),
        ("query", "matrix"),
        ("header", "form"),
        ("header", "label"),
        ("cookie", "simple"),
        ("cookie", "deepObject"),
        ("query", "tabDelimited"),
    ],
)
def test_a_style_its_location_does_not_allow_is_refused_at_its_place(location, style):
    raw = with_parameters({"name": "c", "in": location, "style": style, "schema": COLOR})
    with pytest.raises(SpecError) as raised:
        parse(raw)
    assert raised.value.pointer == "/paths/~1paint~1{where}/get/parameters/1/style"
    assert f"a {location} parameter cannot have the style {style!r}" in str(raised.value)


def test_a_path_style_other_than_the_path_s_is_refused():
    raw = with_parameters()
    raw["paths"]["/paint/{where}"]["get"]["parameters"][0]["style"] = "form"
    with pytest.raises(SpecError, match="a path parameter cannot have the style 'form'"):
        parse(raw)


def test_allow_reserved_is_read_for_a_query_and_set_aside_elsewhere_with_a_note():
    raw = with_parameters(
        {"name": "q", "in": "query", "allowReserved": True, "schema": {"type": "string"}},
        {"name": "X-Q", "in": "header", "allowReserved": True, "schema": {"type": "string"}},
        {"name": "s", "in": "query", "style": "spaceDelimited", "explode": True, "schema": WORDS},
    )
    doc = parse(raw)
    _, q, header, spaced = doc.operation("paint").parameters
    assert q.allow_reserved and not header.allow_reserved and spaced.how == ("spaceDelimited", True)
    base = "/paths/~1paint~1{where}/get/parameters"
    assert [str(d) for d in doc.diagnostics] == [
        f"{base}/2/allowReserved: allowReserved applies to query parameters only; the header "
        "parameter is sent without it",
        f"{base}/3/explode: the style 'spaceDelimited' with explode has no meaning in OpenAPI's "
        "style table; its values are joined as without explode",
    ]


def test_allow_reserved_must_be_a_boolean():
    raw = with_parameters({"name": "q", "in": "query", "allowReserved": "yes", "schema": {}})
    with pytest.raises(SpecError, match="allowReserved: must be a boolean"):
        parse(raw)


def test_each_styled_parameter_is_written_by_its_location_s_call():
    raw = with_parameters(
        {"name": "q", "in": "query", "allowReserved": True, "schema": {"type": "string"}},
        {"name": "ids", "in": "query", "schema": WORDS},
        {"name": "c", "in": "cookie", "schema": COLOR},
        {"name": "X-C", "in": "header", "explode": True, "schema": COLOR},
    )
    raw["paths"]["/paint/{where}"]["get"]["parameters"][0]["style"] = "label"
    doc = parse(raw)
    view = build_client(doc, build_module([Revision.of_document(doc, "t.yaml")], 0))
    (op,) = [o for o in view.operations if o.key == doc.operation("paint").key]
    by_key = {p.key: p for p in op.path_parameters + op.keyword_parameters}
    written = {key: (p.serializer, p.spreads, p.call()[3:]) for key, p in by_key.items()}
    assert written == {
        "where": ("_styled_path", False, ['"label"', "False"]),
        "q": ("_query", True, ['"form"', "True", "True"]),
        "ids": ("_parameter", False, []),
        "c": ("_cookie", True, ['"form"', "True"]),
        "X-C": ("_styled", False, ['"simple"', "True"]),
    }


def test_a_deep_object_array_is_sent_as_a_repeated_key_with_a_note():
    raw = with_parameters({"name": "ids", "in": "query", "style": "deepObject", "schema": WORDS})
    doc = parse(raw)
    assert doc.operation("paint").parameters[1].how == ("form", True)
    assert [str(d) for d in doc.diagnostics] == [
        "/paths/~1paint~1{where}/get/parameters/1/style: the style 'deepObject' writes objects, "
        "not arrays; the array is sent as a repeated key (the style 'form' with explode)"
    ]
