"""The parser: the IR it builds, and the errors it gives for what it cannot use."""

from __future__ import annotations

import pytest

from generator.errors import SpecError, UnsupportedConstructError
from generator.reading import ir
from generator.reading.parser import parse_document
from support.specdocs import document, obj, parse

OPTIM_STEP = "POST /rl/training-sessions/{session_id}/operations/optim-step"


def test_revision_ir_of_the_optim_step_operation(index):
    doc = index.get("f4885bc38424").document
    assert doc.servers == ("https://api.together.ai/v1",)
    assert doc.security == ("bearerAuth",)
    assert doc.security_schemes == (
        ir.SecurityScheme(name="bearerAuth", type="http", scheme="bearer"),
    )
    op = doc.operation(OPTIM_STEP)
    assert op is not None and op.operation_id == "OptimStep" and op.tags == ("RL",)
    assert [(p.name, p.location, p.required, p.description) for p in op.parameters] == [
        ("session_id", "path", True, "Training session ID")
    ]
    assert op.request_body is not None and op.request_body.required
    assert op.request_body.schema == ir.Ref(
        name="RLOptimStepBody",
        pointer=op.request_body.pointer + "/content/application~1json/schema",
    )
    assert [r.status for r in op.responses] == ["200", "default"]
    assert op.response("default").description == "An unexpected error response."
    assert doc.resolve(op.response("default").schema) is doc.schemas["ErrorData"]

    muon = doc.schemas["RLMuonParams"]
    assert isinstance(muon, ir.Object)
    assert [p.name for p in muon.properties] == [
        "learning_rate",
        "momentum",
        "newton_schulz_steps",
        "weight_decay",
        "grad_clip_norm",
        "adam",
    ]
    steps = muon.property("newton_schulz_steps")
    assert steps.schema == ir.Primitive(
        type="integer",
        pointer="/components/schemas/RLMuonParams/properties/newton_schulz_steps",
        description="Number of Newton-Schulz iterations",
    )
    step = doc.schemas["RLOptimStepResult"].property("step")
    assert step.required and isinstance(step.schema, ir.Union) and step.schema.kind == "oneOf"
    assert [v.type for v in step.schema.variants] == ["string", "integer"]
    assert step.schema.example == "100"
    status = doc.schemas["RLTrainingOperationStatus"]
    assert isinstance(status, ir.Enum) and status.default == "TRAINING_OPERATION_STATUS_UNSPECIFIED"
    param = doc.schemas["ErrorDetails"].property("param").schema
    assert param.nullable and param.default is None and param.has_default


def test_baseline_formats_and_the_get_operation(index):
    doc = index.get("baseline").document
    body = doc.schemas["RLOptimStepBody"]
    assert body.property("weight_sync_type").required
    assert doc.schemas["RLAdamWParams"].property("beta1").schema.format == "float"
    assert not body.property("max_grad_norm").schema.has_default
    get = doc.operation("getOptimStepOperation")
    assert get.method == "get" and [p.name for p in get.parameters] == [
        "session_id",
        "operation_id",
    ]


def test_missing_ref_target_names_its_pointer():
    raw = document(obj(a={"$ref": "#/components/schemas/Nope"}))
    with pytest.raises(SpecError) as caught:
        parse(raw)
    assert str(caught.value) == (
        "test.yaml#/paths/~1things~1{thing_id}/post/requestBody/content/application~1json/schema"
        "/properties/a/$ref: $ref target #/components/schemas/Nope does not exist"
    )


@pytest.mark.parametrize(
    ("schema", "construct"),
    [
        ({"not": {"type": "string"}}, "the schema keyword 'not'"),
        (
            {"type": "object", "patternProperties": {"^x": {}}},
            "the schema keyword 'patternProperties'",
        ),
        (
            {"$ref": "https://example.com/other.yaml#/X"},
            "the $ref 'https://example.com/other.yaml#/X' to a URL",
        ),
        (
            {"type": "string", "enum": [1, "a"]},
            "an enum of values that are not of its declared type",
        ),
        (
            {"allOf": [{"type": "string"}, {"type": "integer"}]},
            "allOf of schemas of different types (number and string)",
        ),
    ],
)
def test_unsupported_constructs_are_errors_naming_pointer_and_construct(schema, construct):
    with pytest.raises(UnsupportedConstructError) as caught:
        parse(document(obj(a=schema)))
    assert construct in caught.value.message
    assert caught.value.pointer.startswith(
        "/paths/~1things~1{thing_id}/post/requestBody/content/application~1json/schema/properties/a"
    )


def test_recursive_schemas_parse_without_looping():
    raw = document(
        {"$ref": "#/components/schemas/Node"},
        schemas={"Node": obj(next={"$ref": "#/components/schemas/Node"})},
    )
    doc = parse(raw)
    node = doc.schemas["Node"]
    assert node.property("next").schema.name == "Node"
    assert doc.resolve(node.property("next").schema) is node


def test_all_of_merges_objects_and_keeps_ref_siblings():
    schemas = {"A": obj(["a"], a={"type": "string"}), "B": obj(b={"type": "integer"})}
    raw = document(
        obj(
            merged={
                "allOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]
            },
            described={"allOf": [{"$ref": "#/components/schemas/A"}], "description": "the A"},
            nullable={"allOf": [{"$ref": "#/components/schemas/A"}, {"nullable": True}]},
        ),
        schemas=schemas,
    )
    doc = parse(raw)
    props = {
        p.name: p.schema for p in doc.resolve(doc.operations[0].request_body.schema).properties
    }
    assert [(p.name, p.required) for p in props["merged"].properties] == [("a", True), ("b", False)]
    assert props["described"] == ir.Ref(
        name="A", pointer=props["described"].pointer, description="the A"
    )
    assert props["nullable"].nullable and props["nullable"].name == "A"


def test_maps_arrays_and_type_lists():
    doc = parse(
        document(
            obj(
                tags={"type": "object", "additionalProperties": {"type": "string"}},
                items={"type": "array", "items": {"type": "integer", "format": "int64"}},
                either={"type": ["string", "integer"]},
                free={"type": "object", "additionalProperties": True},
            )
        )
    )
    body = doc.operations[0].request_body.schema
    props = {p.name: p.schema for p in body.properties}
    assert isinstance(props["tags"], ir.Map) and props["tags"].values.type == "string"
    assert isinstance(props["items"], ir.Array) and props["items"].items.format == "int64"
    assert isinstance(props["either"], ir.Union) and [v.type for v in props["either"].variants] == [
        "string",
        "integer",
    ]
    assert isinstance(props["free"], ir.Object) and props["free"].additional_properties is True


def test_string_defaults_on_typed_fields_are_coerced_and_reported():
    doc = parse(
        document(
            obj(
                rate={"type": "number", "default": "0.9"},
                count={"type": "integer", "default": "20"},
                flag={"type": "boolean", "default": "auto"},
            )
        )
    )
    props = {p.name: p.schema for p in doc.operations[0].request_body.schema.properties}
    assert props["rate"].default == 0.9 and props["count"].default == 20
    assert not props["flag"].has_default
    messages = [str(d) for d in doc.diagnostics]
    base = (
        "/paths/~1things~1{thing_id}/post/requestBody/content/application~1json/schema/properties"
    )
    assert messages == [
        f"{base}/rate/default: string '0.9' read as the number 0.9",
        f"{base}/count/default: string '20' read as the integer 20",
        f"{base}/flag/default: 'auto' is not a valid boolean; ignored",
    ]


def test_malformed_structure_is_a_spec_error():
    raw = document(obj())
    raw["paths"]["/things/{thing_id}"]["post"]["parameters"][0]["in"] = "body"
    with pytest.raises(
        SpecError, match=r"parameters/0/in: must be path, query, header or cookie, got 'body'"
    ):
        parse(raw)


def test_the_whole_corpus_loads(corpus):
    assert len(corpus.operations) == 99
    assert sum(1 for op in corpus.operations if op.operation_id) == 60
    assert len(corpus.schemas) == 243
    optim = corpus.operation(OPTIM_STEP)
    assert optim.operation_id == "OptimStep"
    assert (
        corpus.resolve(optim.request_body.schema).property("learning_rate").schema.default == 0.0001
    )
    coerced = [d for d in corpus.diagnostics if "read as the" in d.message]
    assert len(coerced) == 18
    assert any(
        d.pointer == "/components/schemas/RL.AdamWOptimizerParams/properties/eps/example"
        for d in coerced
    )


def test_keywords_beside_a_ref_that_shape_values_make_it_an_all_of():
    raw = document(
        obj(
            a={"$ref": "#/components/schemas/X", "properties": {"b": {"type": "string"}}},
            limited={"$ref": "#/components/schemas/Text", "maxLength": 3},
            closed={"$ref": "#/components/schemas/X", "additionalProperties": False},
        ),
        schemas={"X": obj(["x"], x={"type": "integer"}), "Text": {"type": "string"}},
    )
    props = {p.name: p.schema for p in parse(raw).operations[0].request_body.schema.properties}
    assert [(p.name, p.required) for p in props["a"].properties] == [("x", True), ("b", False)]
    assert props["limited"].name == "Text" and props["limited"].constraints == (("maxLength", 3),)
    assert props["closed"].name == "X"  # request models refuse unknown properties anyway


def _body(raw):
    doc = parse(raw)
    return doc, doc.resolve(doc.operations[0].request_body.schema)


def test_all_of_with_parts_that_are_not_objects():
    schemas = {
        "Base": obj(["name"], name={"type": "string"}),
        "Cat": obj(["ears"], ears={"type": "integer"}),
        "Bird": obj(["wings"], wings={"type": "integer"}),
        "Id": {"type": "string", "format": "uuid"},
    }
    raw = document(
        obj(
            pet={
                "allOf": [{"$ref": "#/components/schemas/Base"}, {"required": ["tag"]}],
                "oneOf": [
                    {"$ref": "#/components/schemas/Cat"},
                    {"$ref": "#/components/schemas/Bird"},
                ],
                "additionalProperties": {"type": "string"},
            },
            id={"allOf": [{"$ref": "#/components/schemas/Id"}, {"maxLength": 36}]},
            level={"allOf": [{"type": "integer", "minimum": 1}, {"enum": [1, 2]}]},
        ),
        schemas=schemas,
    )
    doc, body = _body(raw)
    props = {p.name: p.schema for p in body.properties}
    pet = props["pet"]
    assert isinstance(pet, ir.Object) and pet.additional_properties.type == "string"
    assert [(p.name, p.required) for p in pet.properties] == [
        ("name", True), ("ears", False), ("wings", False), ("tag", True)
    ]  # fmt: skip
    assert props["id"] == ir.Primitive(
        type="string", format="uuid", pointer=props["id"].pointer, constraints=(("maxLength", 36),)
    )
    assert isinstance(props["level"], ir.Enum) and props["level"].values == (1, 2)
    assert props["level"].constraints == (("minimum", 1),)
    assert any("which variant a value is, is not checked" in d.message for d in doc.diagnostics)


def test_one_of_beside_properties_is_an_object_of_every_variant_s_properties():
    raw = document(
        {
            "type": "object",
            "properties": {"name": {"type": "string"}, "id": {"type": "integer"}},
            "oneOf": [{"required": ["name"]}, {"required": ["id", "name"]}],
        }
    )
    _, body = _body(raw)
    assert [(p.name, p.required) for p in body.properties] == [("name", True), ("id", False)]


def test_duplicate_enum_values_and_contradicting_defaults_are_dropped_and_reported():
    raw = document(
        obj(
            kind={"type": "string", "enum": ["a", "b", "a"], "default": "c"},
            latest={"type": "string", "enum": ["true", "false", "legacy"], "default": True},
            size={"type": "object", "default": 3},
            count={"type": "integer", "default": "many"},
        )
    )
    doc, body = _body(raw)
    props = {p.name: p.schema for p in body.properties}
    assert props["kind"].values == ("a", "b") and not props["kind"].has_default
    assert not any(props[name].has_default for name in ("latest", "size", "count"))
    base = (
        "/paths/~1things~1{thing_id}/post/requestBody/content/application~1json/schema/properties"
    )
    assert [str(d) for d in doc.diagnostics] == [
        f"{base}/kind/enum: the enum values 'a' are listed more than once; read once",
        f"{base}/kind/default: default 'c' is not one of the enum values; ignored",
        f"{base}/latest/default: True is not a valid string; ignored",
        f"{base}/size/default: 3 is not a valid object; ignored",
        f"{base}/count/default: 'many' is not a valid integer; ignored",
    ]


def test_a_path_item_ref_and_parameters_with_styles_or_content():
    raw = document()
    raw["paths"]["/pets"] = {"$ref": "#/components/pathItems/Pets"}
    raw["components"]["pathItems"] = {
        "Pets": {
            "get": {
                "operationId": "listPets",
                "parameters": [
                    {
                        "name": "filter",
                        "in": "query",
                        "style": "deepObject",
                        "schema": obj(color={"type": "string"}),
                    },
                    {
                        "name": "where",
                        "in": "query",
                        "content": {"application/json": {"schema": obj(a={"type": "integer"})}},
                    },
                    {
                        "name": "ids",
                        "in": "query",
                        "explode": False,
                        "schema": {"type": "array", "items": {"type": "integer"}},
                    },
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
    }
    doc = parse(raw)
    op = doc.operation("listPets")
    assert op.pointer == "/components/pathItems/Pets/get" and op.path == "/pets"
    filter_, where, ids = op.parameters
    assert filter_.how == ("deepObject", False) and isinstance(filter_.schema, ir.Object)
    assert where.content_type == "application/json" and where.schema.property("a")
    assert ids.how == ("form", False)


def test_refs_to_other_files_resolve_against_the_file_that_holds_them(tmp_path):
    import json

    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "types.json").write_text(
        json.dumps(
            {
                "Amount": obj(["value"], value={"type": "string"}, unit={"$ref": "#/Unit"}),
                "Unit": {"type": "string", "enum": ["EUR", "USD"]},
            }
        )
    )
    raw = document(
        obj(price={"$ref": "shared/types.json#/Amount"}),
        schemas={"Amount": obj(local={"type": "string"})},
    )
    root = tmp_path / "api.json"
    root.write_text(json.dumps(raw))
    from generator.reading.parser import parse_file

    doc = parse_file(root)
    price = doc.operations[0].request_body.schema.property("price").schema
    assert price.name == "shared/types.json#/Amount"  # `Amount` is the root's own component
    amount = doc.schemas[price.name]
    assert amount.pointer == "shared/types.json#/Amount"
    assert doc.resolve(amount.property("unit").schema).values == ("EUR", "USD")
    assert "Unit" in doc.schemas


@pytest.mark.parametrize(
    ("ref", "words"),
    [
        ("../outside.json#/X", "leads outside the folder of the document"),
        ("missing.json#/X", "cannot read the file"),
        ("loop.json#/A", "only refers to itself"),
    ],
)
def test_refs_to_other_files_stay_in_the_folder_and_are_located(tmp_path, ref, words):
    import json

    from generator.reading.parser import parse_file

    (tmp_path / "outside.json").write_text(json.dumps({"X": {"type": "string"}}))
    folder = tmp_path / "api"
    folder.mkdir()
    (folder / "loop.json").write_text(json.dumps({"A": {"$ref": "#/B"}, "B": {"$ref": "#/A"}}))
    (folder / "api.json").write_text(json.dumps(document(obj(a={"$ref": ref}))))
    with pytest.raises(SpecError) as caught:
        parse_file(folder / "api.json")
    assert words in str(caught.value)
    assert str(caught.value).startswith(str(folder)), str(caught.value)


def test_the_complete_mode_keeps_what_the_generator_cannot_represent():
    raw = document(obj(a={"not": {"type": "string"}}))
    doc = parse_document(raw, source="t.yaml", mode="complete")
    opaque = doc.operations[0].request_body.schema.property("a").schema
    assert isinstance(opaque, ir.Opaque) and opaque.at.endswith("/properties/a/not")
    lenient = parse_document(raw, source="t.yaml", lenient=True)
    assert lenient.operations == () and lenient.omitted[0].reason.endswith(
        "the schema keyword 'not' is not supported by the generator yet"
    )


@pytest.mark.parametrize("servers", [2.5, "https://api.example.com", {"url": "x"}])
def test_servers_that_are_not_a_list_are_refused_at_their_place(servers):
    raw = {**document(obj(a={"type": "string"})), "servers": servers}
    with pytest.raises(SpecError, match=r"^test\.yaml#/servers: must be a list, got "):
        parse(raw)
