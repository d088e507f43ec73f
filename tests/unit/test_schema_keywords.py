"""JSON Schema keywords the IR approximates (``prefixItems``, ``unevaluatedProperties``,
``const``, ``dependentSchemas``, ``if``/``then``/``else``) keep their operations: the package has
a method for each, its models accept what the schema allows and refuse what it cannot hold, and
where the type widens, ``generate --spec`` says so at the keyword's JSON pointer. A property of a
discriminated base object takes its subtypes, and a dict is taken wherever its model is."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from generator.cli import main
from support.loopback import LoopbackServer, Reply
from support.packages import load_package

OBJECT = {"type": "object"}


def body_operation(operation_id: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "post": {
            "operationId": operation_id,
            "requestBody": {"content": {"application/json": {"schema": schema}}},
            "responses": {"204": {"description": "done"}},
        }
    }


def generate(tmp: Path, paths: dict, schemas: dict, alias: str) -> tuple[ModuleType, str]:
    """The package of a document of ``paths`` and ``schemas``, imported as ``alias``, and the
    warnings ``generate --spec`` wrote."""
    doc = {
        "openapi": "3.1.0",
        "info": {"title": "Keywords", "version": "1.0.0"},
        "paths": paths,
        "components": {"schemas": schemas},
    }
    spec = tmp / "doc.json"
    spec.write_text(json.dumps(doc))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["generate", "--verbose", "--spec", str(spec), "--out", str(tmp / "out")]) == 0
    return load_package(tmp / "out", "keywords", alias), err.getvalue()


@pytest.fixture(scope="module")
def keywords(tmp_path_factory):
    schemas = {
        "Point": {
            **OBJECT,
            "required": ["xy"],
            "properties": {
                "xy": {
                    "type": "array",
                    "prefixItems": [{"type": "integer"}, {"type": "string"}],
                    "minItems": 2,
                    "maxItems": 2,
                },
                "rest": {
                    "type": "array",
                    "prefixItems": [{"type": "integer"}],
                    "items": {"type": "boolean"},
                },
            },
        },
    }
    paths = {
        "/points": body_operation("addPoint", {"$ref": "#/components/schemas/Point"}),
        "/closed": body_operation(
            "closed",
            {**OBJECT, "properties": {"a": {"type": "string"}}, "unevaluatedProperties": False},
        ),
        "/merged": body_operation(
            "merged",
            {
                "allOf": [
                    {**OBJECT, "properties": {"a": {"type": "string"}}},
                    {**OBJECT, "properties": {"b": {"type": "integer"}}},
                ],
                "unevaluatedProperties": False,
            },
        ),
        "/counts": body_operation(
            "counts", {**OBJECT, "unevaluatedProperties": {"type": "integer"}}
        ),
        "/consts": body_operation(
            "consts",
            {
                **OBJECT,
                "properties": {
                    "kind": {"const": "circle"},
                    "ratio": {"const": 1.5},
                    "shape": {"const": {"sides": 3}},
                },
            },
        ),
        "/payments": body_operation(
            "pay",
            {
                **OBJECT,
                "properties": {"card": {"type": "string"}},
                "dependentSchemas": {
                    "card": {"properties": {"billing": {"type": "string"}}, "required": ["billing"]}
                },
            },
        ),
        "/addresses": body_operation(
            "address",
            {
                **OBJECT,
                "properties": {"country": {"type": "string"}},
                "if": {"properties": {"country": {"const": "US"}}},
                "then": {"properties": {"zip": {"type": "string"}}},
                "else": {"properties": {"postcode": {"type": "string"}}},
            },
        ),
    }
    return generate(tmp_path_factory.mktemp("keywords"), paths, schemas, "keywords_approximated")


def warned(warnings: str, pointer: str) -> str:
    """The warning ``generate --spec`` wrote at ``pointer`` (of the document)."""
    lines = [line for line in warnings.splitlines() if f"doc.json#{pointer}:" in line]
    assert len(lines) == 1, warnings
    return lines[0]


BODY = "/requestBody/content/application~1json/schema"


def test_a_fixed_length_prefix_items_is_a_tuple_each_position_of_its_own_type(keywords):
    package, warnings = keywords
    point = package.models.Point
    assert point.__annotations__["xy"] == "tuple[int, str]"
    assert point(xy=(1, "a")).to_dict() == {"xy": (1, "a")}
    assert point.from_dict({"xy": [1, "a"]}).xy == (1, "a")
    for wrong in ([1, 2], [1], [1, "a", "b"], "1a"):
        with pytest.raises(package.ValidationError):
            point.from_dict({"xy": wrong}).to_dict()
    assert sent(package, "add_point", xy=(1, "a")) == {"xy": [1, "a"]}
    assert "/components/schemas/Point/properties/xy" not in warnings
    assert hasattr(package.Client, "add_point")


def test_a_prefix_items_of_no_fixed_length_is_a_list_of_its_items_union_with_a_warning(keywords):
    package, warnings = keywords
    point = package.models.Point
    assert point.from_dict({"xy": [1, "a"], "rest": [1, True, False]}).rest == [1, True, False]
    with pytest.raises(package.ValidationError, match=r"rest\[0\]: matches none"):
        point.from_dict({"xy": [1, "a"], "rest": ["x"]})
    line = warned(warnings, "/components/schemas/Point/properties/rest/prefixItems")
    assert "list of any of its items' types" in line


def sent(package: ModuleType, method: str, **arguments: Any) -> Any:
    """The JSON body a call of ``method`` sends to a real server."""
    with LoopbackServer() as server:
        server.script(Reply(status=204))
        with package.Client(base_url=server.url, api_key="k", max_retries=0) as client:
            getattr(client, method)(**arguments)
        return server.seen[0].json()


def test_unevaluated_properties_false_closes_the_object_and_a_schema_types_the_extras(keywords):
    package, warnings = keywords
    assert sent(package, "closed", a="x") == {"a": "x"}
    with pytest.raises(package.ValidationError, match="unknown field"):
        package.models.ClosedBody.from_dict({"a": "x", "b": 1})
    assert sent(package, "merged", a="x", b=2) == {"a": "x", "b": 2}
    with pytest.raises(package.ValidationError, match="unknown field"):
        package.models.MergedBody.from_dict({"a": "x", "c": 1})
    assert sent(package, "counts", body={"apples": 3}) == {"apples": 3}
    with pytest.raises(package.ValidationError, match="expected an integer"):
        package.Client(base_url="http://127.0.0.1:9", api_key="k").counts(body={"apples": "x"})
    assert "unevaluatedProperties" not in warnings


def test_a_const_is_a_single_value_enum_and_one_of_no_enumerable_kind_widens_with_a_warning(
    keywords,
):
    package, warnings = keywords
    body = package.models.ConstsBody
    assert [m.value for m in package.models.ConstsBodyKind] == ["circle"]
    with pytest.raises(package.ValidationError, match="expected one of circle"):
        body.from_dict({"kind": "square"})
    assert body.from_dict({"kind": "circle", "ratio": 1.5, "shape": {"sides": 3}}).ratio == 1.5
    with pytest.raises(package.ValidationError, match="expected a number"):
        body.from_dict({"ratio": "1.5"})
    for name, what in (("ratio", "const of numbers"), ("shape", "const of objects or lists")):
        assert what in warned(warnings, f"/paths/~1consts/post{BODY}/properties/{name}/const")
    assert "/properties/kind/const" not in warnings


def test_dependent_schemas_and_if_then_else_add_their_properties_as_optional_ones(keywords):
    package, warnings = keywords
    assert sent(package, "pay", card="4242", billing="x") == {"card": "4242", "billing": "x"}
    assert sent(package, "pay", card="4242") == {"card": "4242"}
    assert sent(package, "address", country="US", zip="1") == {"country": "US", "zip": "1"}
    assert sent(package, "address", country="FR", postcode="7") == {
        "country": "FR",
        "postcode": "7",
    }
    with pytest.raises(package.ValidationError, match="unknown field"):
        package.models.AddressBody.from_dict({"street": "x"})
    assert "not checked" in warned(warnings, f"/paths/~1payments/post{BODY}/dependentSchemas")
    assert "not checked" in warned(warnings, f"/paths/~1addresses/post{BODY}/if")


def test_a_type_no_model_can_hold_still_leaves_its_operation_out(tmp_path):
    paths = {"/odd": body_operation("odd", {"type": "string", "enum": [1]})}
    package, warnings = generate(
        tmp_path, {**paths, "/ok": body_operation("ok", OBJECT)}, {}, "kw_odd"
    )
    assert not hasattr(package.Client, "odd") and hasattr(package.Client, "ok")
    assert "not of its declared type" in warnings


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def subtype(**properties: Any) -> dict[str, Any]:
    return {"allOf": [ref("Pet"), {**OBJECT, "properties": properties}]}


def zoo_schemas() -> dict[str, Any]:
    """A base ``Pet`` whose discriminator maps to ``Cat`` and ``Dog``, which ``allOf`` it, and
    ``Bird``, which ``allOf`` it without being mapped, and ``Kitten``, which ``allOf`` ``Cat``."""
    return {
        "Owner": {**OBJECT, "properties": {"name": {"type": "string"}, "pet": ref("Pet")}},
        "Pet": {
            **OBJECT,
            "required": ["pet_type"],
            "properties": {"pet_type": {"type": "string"}},
            "discriminator": {
                "propertyName": "pet_type",
                "mapping": {"cat": "#/components/schemas/Cat", "dog": "#/components/schemas/Dog"},
            },
        },
        "Cat": subtype(lives={"type": "integer"}),
        "Dog": subtype(bark={"type": "boolean"}),
        "Bird": subtype(wings={"type": "integer"}),
        "Kitten": {"allOf": [ref("Cat"), {**OBJECT, "properties": {"tiny": {"type": "boolean"}}}]},
        "Filter": {**OBJECT, "properties": {"kind": {"type": "string"}}},
    }


@pytest.fixture(scope="module")
def zoo(tmp_path_factory):
    """The zoo's requests only (so that its models check what they send)."""
    paths = {
        "/owners": body_operation("addOwner", ref("Owner")),
        "/pets": body_operation("addPet", {"oneOf": [ref("Cat"), ref("Dog")]}),
        "/search": {
            "get": {
                "operationId": "search",
                "parameters": [{"name": "filter", "in": "query", "schema": ref("Filter")}],
                "responses": {"204": {"description": "done"}},
            }
        },
    }
    return generate(tmp_path_factory.mktemp("zoo"), paths, zoo_schemas(), "keywords_zoo")


def test_a_property_of_a_discriminated_base_takes_each_of_its_subtypes(zoo):
    package, warnings = zoo
    models = package.models
    assert models.Owner.__annotations__["pet"] == "Cat | Dog | Bird | Kitten | Pet | Unset"
    cat = models.Cat(pet_type="cat", lives=5)
    assert sent(package, "add_owner", name="Ann", pet=cat) == {
        "name": "Ann",
        "pet": {"pet_type": "cat", "lives": 5},
    }
    bird = models.Bird(pet_type="Bird", wings=2)
    assert sent(package, "add_owner", pet=bird) == {"pet": {"pet_type": "Bird", "wings": 2}}
    kitten = models.Kitten(pet_type="Kitten", lives=9, tiny=True)
    assert sent(package, "add_owner", pet=kitten)["pet"] == {
        "pet_type": "Kitten",
        "lives": 9,
        "tiny": True,
    }
    assert sent(package, "add_owner", pet=models.Pet(pet_type="fish")) == {
        "pet": {"pet_type": "fish"}
    }
    assert "may be any of its subtypes (Cat, Dog, Bird, Kitten)" in warned(
        warnings, "/components/schemas/Pet/discriminator"
    )


def test_a_dict_is_taken_wherever_its_model_is_and_checked_as_the_model(zoo):
    package, _ = zoo
    dog = {"pet_type": "dog", "bark": True}
    assert sent(package, "add_owner", pet=dog) == {"pet": dog}
    assert sent(package, "add_pet", body=dog) == dog
    assert sent(package, "add_pet", body={"pet_type": "x", "lives": 3}) == {
        "pet_type": "x",
        "lives": 3,
    }
    with pytest.raises(package.ValidationError, match="body: matches none"):
        sent(package, "add_pet", body={"pet_type": "dog", "lives": 3, "bark": True})
    with pytest.raises(package.ValidationError, match=r"pet\.lives: expected an integer"):
        sent(package, "add_owner", pet={"pet_type": "cat", "lives": "nine"})
    with LoopbackServer() as server:
        server.script(Reply(status=204))
        with package.Client(base_url=server.url, api_key="k", max_retries=0) as client:
            client.search(filter={"kind": "cat"})
            with pytest.raises(package.ValidationError, match="filter.size: unknown field"):
                client.search(filter={"size": 3})
        assert server.seen[0].path == "/search?kind=cat" and len(server.seen) == 1


def test_a_response_s_base_property_is_read_as_the_subtype_its_discriminator_names(tmp_path):
    answer = {"description": "the owner", "content": {"application/json": {"schema": ref("Owner")}}}
    paths = {"/owner": {"get": {"operationId": "getOwner", "responses": {"200": answer}}}}
    package, _ = generate(tmp_path, paths, zoo_schemas(), "keywords_zoo_answers")
    with LoopbackServer() as server:
        server.script(Reply(body={"pet": {"pet_type": "dog", "bark": False}}))
        with package.Client(base_url=server.url, api_key="k", max_retries=0) as client:
            owner = client.get_owner()
    assert owner.pet == package.models.Dog(pet_type="dog", bark=False)
