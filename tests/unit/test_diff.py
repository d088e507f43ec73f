"""Every check of the diff engine, on small documents, in both directions where meaningful."""

from __future__ import annotations

import json

import pytest

from generator.changes.diff import DiffStats, Level, diff_documents
from generator.cli import main
from support.specdocs import PATH, document, obj, parse

OP = f"POST {PATH}"


def changes(old, new):
    return [
        (c.level.value, c.check, c.path, c.message) for c in diff_documents(parse(old), parse(new))
    ]


NUM = {"type": "number"}
STR = {"type": "string"}


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param(
            obj(a=NUM, b=NUM),
            obj(a=NUM),
            [("warning", "request-property-removed", "b", "removed the request property `b`")],
            id="request-property-removed",
        ),
        pytest.param(
            obj(a=NUM),
            obj(a=NUM, b=NUM),
            [
                (
                    "info",
                    "new-optional-request-property",
                    "b",
                    "added the new optional request property `b`",
                )
            ],
            id="new-optional-request-property",
        ),
        pytest.param(
            obj(a=NUM),
            obj(["b"], a=NUM, b=NUM),
            [
                (
                    "error",
                    "new-required-request-property",
                    "b",
                    "added the new required request property `b`",
                )
            ],
            id="new-required-request-property",
        ),
        pytest.param(
            obj(a=NUM),
            obj(a={"type": "number", "default": 1.0}),
            [
                (
                    "info",
                    "request-property-default-value-added",
                    "a",
                    "the `a` request property default value `1.0` was added",
                )
            ],
            id="default-added",
        ),
        pytest.param(
            obj(a={"type": "number", "default": 1.0}),
            obj(a=NUM),
            [
                (
                    "info",
                    "request-property-default-value-removed",
                    "a",
                    "the `a` request property default value `1.0` was removed",
                )
            ],
            id="default-removed",
        ),
        pytest.param(
            obj(a={"type": "string", "default": "x"}),
            obj(a={"type": "string", "default": "y"}),
            [
                (
                    "info",
                    "request-property-default-value-changed",
                    "a",
                    "the `a` request property default value changed from `x` to `y`",
                )
            ],
            id="default-changed",
        ),
        pytest.param(
            obj(p=obj(a={"type": "number", "format": "float"})),
            obj(p=obj(a=NUM)),
            [
                (
                    "info",
                    "request-property-type-generalized",
                    "p/a",
                    "the `p/a` request property format was generalized from `float` to no format",
                )
            ],
            id="format-generalized",
        ),
        pytest.param(
            obj(a={"type": "integer", "format": "int32"}),
            obj(a={"type": "integer", "format": "int64"}),
            [
                (
                    "info",
                    "request-property-type-generalized",
                    "a",
                    "the `a` request property format was generalized from `int32` to `int64`",
                )
            ],
            id="format-widened",
        ),
        pytest.param(
            obj(a=NUM),
            obj(a={"type": "number", "format": "float"}),
            [
                (
                    "error",
                    "request-property-type-changed",
                    "a",
                    "the `a` request property format changed from no format to `float`",
                )
            ],
            id="format-narrowed",
        ),
        pytest.param(
            obj(a=NUM),
            obj(a=STR),
            [
                (
                    "error",
                    "request-property-type-changed",
                    "a",
                    "the `a` request property type changed from `number` to `string`",
                )
            ],
            id="type-changed",
        ),
        pytest.param(
            obj(a=NUM),
            obj(["a"], a=NUM),
            [
                (
                    "error",
                    "request-property-became-required",
                    "a",
                    "the `a` request property became required",
                )
            ],
            id="became-required",
        ),
        pytest.param(
            obj(["a"], a=NUM),
            obj(a=NUM),
            [
                (
                    "info",
                    "request-property-became-optional",
                    "a",
                    "the `a` request property became optional",
                )
            ],
            id="became-optional",
        ),
        pytest.param(
            obj(a=NUM),
            obj(a={"type": ["number", "null"]}),
            [
                (
                    "info",
                    "request-property-became-nullable",
                    "a",
                    "the `a` request property became nullable",
                )
            ],
            id="became-nullable",
        ),
        pytest.param(
            obj(a={"type": ["number", "null"]}),
            obj(a=NUM),
            [
                (
                    "error",
                    "request-property-became-not-nullable",
                    "a",
                    "the `a` request property became not nullable",
                )
            ],
            id="became-not-nullable",
        ),
        pytest.param(
            obj(a={"type": "string", "enum": ["X"]}),
            obj(a={"type": "string", "enum": ["X", "Y"]}),
            [
                (
                    "info",
                    "request-property-enum-value-added",
                    "a",
                    "added the new `Y` enum value to the `a` request property",
                )
            ],
            id="request-enum-added",
        ),
        pytest.param(
            obj(a={"type": "string", "enum": ["X", "Y"]}),
            obj(a={"type": "string", "enum": ["X"]}),
            [
                (
                    "error",
                    "request-property-enum-value-removed",
                    "a",
                    "removed the `Y` enum value from the `a` request property",
                )
            ],
            id="request-enum-removed",
        ),
        pytest.param(
            obj(a={"type": "array", "items": obj(x=NUM)}),
            obj(a={"type": "array", "items": obj(x=STR)}),
            [
                (
                    "error",
                    "request-property-type-changed",
                    "a/items/x",
                    "the `a/items/x` request property type changed from `number` to `string`",
                )
            ],
            id="array-items",
        ),
    ],
)
def test_request_checks(old, new, expected):
    assert changes(document(old), document(new)) == expected


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        pytest.param(
            obj(e=obj(code={"type": "string", "enum": ["A"]})),
            obj(e=obj(code={"type": "string", "enum": ["A", "B"]})),
            [
                (
                    "warning",
                    "response-property-enum-value-added",
                    "e/code",
                    "added the new `B` enum value to the `e/code` response property for the response status `200`",
                )
            ],
            id="response-enum-added",
        ),
        pytest.param(
            obj(e=obj(code={"type": "string", "enum": ["A", "B"]})),
            obj(e=obj(code={"type": "string", "enum": ["A"]})),
            [
                (
                    "info",
                    "response-property-enum-value-removed",
                    "e/code",
                    "removed the `B` enum value from the `e/code` response property for the response status `200`",
                )
            ],
            id="response-enum-removed",
        ),
        pytest.param(
            obj(a=NUM),
            obj(a=NUM, b=NUM),
            [
                (
                    "info",
                    "response-optional-property-added",
                    "b",
                    "added the optional response property `b` for the response status `200`",
                )
            ],
            id="response-property-added",
        ),
        pytest.param(
            obj(a=NUM, b=NUM),
            obj(a=NUM),
            [
                (
                    "warning",
                    "response-optional-property-removed",
                    "b",
                    "removed the optional response property `b` for the response status `200`",
                )
            ],
            id="response-optional-property-removed",
        ),
        pytest.param(
            obj(["b"], b=NUM),
            obj(),
            [
                (
                    "error",
                    "response-required-property-removed",
                    "b",
                    "removed the required response property `b` for the response status `200`",
                )
            ],
            id="response-required-property-removed",
        ),
        pytest.param(
            obj(a=NUM),
            obj(a=STR),
            [
                (
                    "error",
                    "response-property-type-changed",
                    "a",
                    "the `a` response property type changed from `number` to `string` for the response status `200`",
                )
            ],
            id="response-type-changed",
        ),
        pytest.param(
            obj(a=NUM),
            obj(a={"type": ["number", "null"]}),
            [
                (
                    "error",
                    "response-property-became-nullable",
                    "a",
                    "the `a` response property became nullable for the response status `200`",
                )
            ],
            id="response-became-nullable",
        ),
        pytest.param(
            obj(["a"], a=NUM),
            obj(a=NUM),
            [
                (
                    "error",
                    "response-property-became-optional",
                    "a",
                    "the `a` response property became optional for the response status `200`",
                )
            ],
            id="response-became-optional",
        ),
        pytest.param(
            obj(a=NUM),
            obj(["a"], a=NUM),
            [
                (
                    "info",
                    "response-property-became-required",
                    "a",
                    "the `a` response property became required for the response status `200`",
                )
            ],
            id="response-became-required",
        ),
        pytest.param(
            obj(a={"type": ["number", "null"]}),
            obj(a=NUM),
            [
                (
                    "info",
                    "response-property-became-not-nullable",
                    "a",
                    "the `a` response property became not nullable for the response status `200`",
                )
            ],
            id="response-became-not-nullable",
        ),
        pytest.param(
            obj(a={"oneOf": [STR, {"type": "integer"}]}),
            obj(a={"oneOf": [STR]}),
            [
                (
                    "info",
                    "response-property-one-of-removed",
                    "a",
                    "removed `integer` from the `oneOf` list of the `a` response property for the response status `200`",
                )
            ],
            id="response-one-of-removed",
        ),
        pytest.param(
            obj(a={"type": "number", "default": 1}),
            obj(a={"type": "number", "default": 2}),
            [
                (
                    "info",
                    "response-property-default-value-changed",
                    "a",
                    "the `a` response property default value changed from `1` to `2` for the response status `200`",
                )
            ],
            id="response-default-changed",
        ),
        pytest.param(
            obj(a=NUM),
            obj(["b"], a=NUM, b=STR),
            [
                (
                    "info",
                    "response-required-property-added",
                    "b",
                    "added the required response property `b` for the response status `200`",
                )
            ],
            id="response-required-property-added",
        ),
        pytest.param(
            obj(a={"oneOf": [STR]}),
            obj(a={"oneOf": [STR, {"type": "integer"}]}),
            [
                (
                    "error",
                    "response-property-one-of-added",
                    "a",
                    "added `integer` to the `oneOf` list of the `a` response property for the response status `200`",
                )
            ],
            id="response-one-of-added",
        ),
    ],
)
def test_response_checks(old, new, expected):
    assert changes(document(response=old), document(response=new)) == expected


def test_operation_added_and_removed():
    old, new = document(obj()), document(obj())
    new["paths"]["/other"] = {"get": {"responses": {"200": {"description": "ok"}}}}
    assert changes(old, new) == [("info", "endpoint-added", "", "endpoint added")]
    assert diff_documents(parse(new), parse(old))[0].operation == "GET /other"
    assert changes(new, old) == [
        ("error", "api-removed-without-deprecation", "", "api removed without deprecation")
    ]


def test_parameter_checks():
    query = {"name": "q", "in": "query", "schema": STR}
    plain = document(obj())
    with_optional = document(obj(), parameters=[query])
    with_required = document(obj(), parameters=[{**query, "required": True}])
    assert changes(plain, with_optional) == [
        (
            "info",
            "new-optional-request-parameter",
            "q",
            "added the new optional `query` request parameter `q`",
        )
    ]
    assert changes(plain, with_required) == [
        (
            "error",
            "new-required-request-parameter",
            "q",
            "added the new required `query` request parameter `q`",
        )
    ]
    assert changes(with_optional, plain) == [
        ("warning", "request-parameter-removed", "q", "deleted the `query` request parameter `q`")
    ]
    assert changes(with_optional, with_required) == [
        (
            "error",
            "request-parameter-became-required",
            "q",
            "the `query` request parameter `q` became required",
        )
    ]
    assert changes(with_required, with_optional) == [
        (
            "info",
            "request-parameter-became-optional",
            "q",
            "the `query` request parameter `q` became optional",
        )
    ]


def test_changes_through_refs_report_every_path_that_uses_the_schema():
    schemas_old = {"P": obj(a={"type": "number", "format": "float"})}
    schemas_new = {"P": obj(a=NUM)}
    body = obj(x={"$ref": "#/components/schemas/P"}, y=obj(z={"$ref": "#/components/schemas/P"}))
    result = changes(document(body, schemas=schemas_old), document(body, schemas=schemas_new))
    assert [c[2] for c in result] == ["x/a", "y/z/a"]


def test_a_shared_component_is_compared_once_and_reported_at_each_path():
    schemas_old = {"P": obj(a={"type": "number", "format": "float"}, b=NUM)}
    schemas_new = {"P": obj(a=NUM, b=NUM)}
    body = obj(x={"$ref": "#/components/schemas/P"}, y=obj(z={"$ref": "#/components/schemas/P"}))
    stats = DiffStats()
    result = diff_documents(
        parse(document(body, schemas=schemas_old)),
        parse(document(body, schemas=schemas_new)),
        stats=stats,
    )
    assert [c.path for c in result] == ["x/a", "y/z/a"]
    assert stats.components == 1  # P in the request; compared once for both paths


def test_recursive_schemas_terminate_and_report_once():
    tree_old = obj(
        value=NUM, children={"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}
    )
    tree_new = obj(
        value=STR, children={"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}
    )
    body = {"$ref": "#/components/schemas/Tree"}
    result = changes(
        document(body, schemas={"Tree": tree_old}), document(body, schemas={"Tree": tree_new})
    )
    assert result == [
        (
            "error",
            "request-property-type-changed",
            "value",
            "the `value` request property type changed from `number` to `string`",
        )
    ]


def test_order_is_level_then_check_then_path():
    old = obj(z=NUM, a={"type": "number", "format": "float"}, m=NUM)
    new = obj(a=NUM, b=NUM, m={"type": "number", "default": 2})
    result = diff_documents(parse(document(old)), parse(document(new)))
    assert [(c.level, c.check, c.path) for c in result] == [
        (Level.WARNING, "request-property-removed", "z"),
        (Level.INFO, "new-optional-request-property", "b"),
        (Level.INFO, "request-property-default-value-added", "m"),
        (Level.INFO, "request-property-type-generalized", "a"),
    ]


def test_every_revision_diffed_with_itself_is_empty(index):
    for revision in index:
        assert diff_documents(revision.document, revision.document) == []


def test_corpus_diffed_with_itself_is_empty(corpus):
    assert diff_documents(corpus, corpus) == []


def test_diff_cli_formats(capsys):
    assert main(["diff", "ebd4756a41e4", "f26a23fab8e0", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == [
        {
            "operation": "POST /rl/training-sessions/{session_id}/operations/optim-step",
            "level": "warning",
            "id": "request-property-removed",
            "path": "weight_sync_type",
            "message": "removed the request property `weight_sync_type`",
        }
    ]
    assert main(["diff", "ebd4756a41e4", "spec/f26a23fab8e0.yaml", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == (
        "## `POST /rl/training-sessions/{session_id}/operations/optim-step`\n\n"
        "- **warning** `request-property-removed`: removed the request property `weight_sync_type`\n"
    )
    assert main(["diff", "f26a23fab8e0", "f4885bc38424"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["diff", "f26a23fab8e0", "ebd4756a41e4", "--format", "text"]) == 0
    assert capsys.readouterr().out == (
        "error   new-required-request-property  POST /rl/training-sessions/{session_id}/operations/optim-step"
        "  added the new required request property `weight_sync_type`\n"
    )


def test_response_statuses_added_and_removed():
    ok = {"200": {"description": "ok"}}
    with_404 = {**ok, "404": {"description": "missing"}}
    assert changes(document(obj(), responses=ok), document(obj(), responses=with_404)) == [
        (
            "info",
            "response-non-success-status-added",
            "",
            "added the non-success response with the status `404`",
        )
    ]
    created = {"201": {"description": "created"}}
    assert changes(document(obj(), responses=ok), document(obj(), responses=created)) == [
        (
            "error",
            "response-success-status-removed",
            "",
            "removed the success response with the status `200`",
        ),
        (
            "info",
            "response-success-status-added",
            "",
            "added the success response with the status `201`",
        ),
    ]


def test_changed_descriptions_are_listed_only_when_asked_for():
    old = document(obj(beta=({"type": "number", "description": "old words"})))
    new = document(obj(beta=({"type": "number", "description": "new words"})))
    new["paths"][PATH]["post"]["description"] = "Does things."
    old_doc, new_doc = parse(old), parse(new)
    assert diff_documents(old_doc, new_doc) == []
    listed = diff_documents(old_doc, new_doc, descriptions=True)
    assert [(c.level, c.check, c.path, c.message) for c in listed] == [
        (Level.INFO, "operation-description-changed", "", "the operation's description changed"),
        (
            Level.INFO,
            "request-property-description-changed",
            "beta",
            "the description of the `beta` request property changed",
        ),
    ]


def test_the_command_lists_descriptions_with_a_flag(capsys):
    assert main(["diff", "ebd4756a41e4", "f26a23fab8e0"]) == 0
    assert "description" not in capsys.readouterr().out
    assert main(["diff", "ebd4756a41e4", "f26a23fab8e0", "--descriptions"]) == 0
    assert "operation-description-changed" in capsys.readouterr().out


# -- any two valid documents: what the generator cannot render never limits the diff --------------


def complete_changes(old, new):
    from generator.reading.parser import parse_document

    return [
        (c.level.value, c.check, c.path, c.message)
        for c in diff_documents(
            parse_document(old, source="old.yaml", mode="complete"),
            parse_document(new, source="new.yaml", mode="complete"),
        )
    ]


def test_one_of_beside_properties_is_compared_by_its_properties():
    def issue(**extra):
        return {
            "type": "object",
            "properties": {"title": STR, "body": STR, **extra},
            "oneOf": [{"required": ["title"]}, {"required": ["body"]}],
        }

    assert complete_changes(document(response=issue()), document(response=issue())) == []
    assert complete_changes(document(response=issue()), document(response=issue(state=STR))) == [
        (
            "info",
            "response-optional-property-added",
            "state",
            "added the optional response property `state` for the response status `200`",
        )
    ]


def test_a_schema_the_generator_cannot_represent_is_compared_as_written():
    old = document(obj(a={"not": {"type": "string"}}, b=NUM))
    same = document(obj(a={"not": {"type": "string"}}, b=NUM))
    new = document(obj(a={"not": {"type": "integer"}}))
    assert complete_changes(old, same) == []
    assert complete_changes(old, new) == [
        ("warning", "request-property-removed", "b", "removed the request property `b`"),
        (
            "warning",
            "request-property-schema-changed",
            "a",
            "the `a` request property schema changed (compared as written: it uses the schema "
            "keyword 'not')",
        ),
    ]


def test_the_diff_command_reads_documents_the_generator_cannot_render(tmp_path, capsys):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(document(obj(a={"not": {"type": "string"}, "minimum": 1}))))
    new.write_text(json.dumps(document(obj(a={"not": {"type": "string"}, "minimum": 2}, c=NUM))))
    assert main(["diff", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "request-property-schema-changed" in out and "new-optional-request-property" in out


def test_refs_into_other_files_are_compared_as_the_schemas_they_name(tmp_path, capsys):
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "shared.json").write_text(json.dumps({"Amount": obj(value=STR)}))
    old = document(obj(price={"$ref": "shared.json#/Amount"}))
    (tmp_path / "old" / "api.json").write_text(json.dumps(old))
    new = document(
        obj(price={"$ref": "#/components/schemas/Amount"}),
        schemas={"Amount": obj(value=STR, unit=STR)},
    )
    (tmp_path / "new.json").write_text(json.dumps(new))
    assert main(["diff", str(tmp_path / "old" / "api.json"), str(tmp_path / "new.json")]) == 0
    assert capsys.readouterr().out == (
        "info    new-optional-request-property  POST /things/{thing_id}  "
        "added the new optional request property `price/unit`\n"
    )
