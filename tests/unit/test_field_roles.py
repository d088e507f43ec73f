"""spec/reference-fields.yaml: the roles of the request fields in the local reference, as data."""

from __future__ import annotations

import shutil

import pytest
import yaml

from generator.pointer import split
from generator.reading import fieldroles
from generator.reading.fieldroles import Group, NoEffect, Refused, Sets, load_field_roles, resolve
from generator.reading.parser import parse_document
from support import seeds
from support.nextrevision import at
from support.paths import SPEC_DIR
from together_rl_runtime.settings import IdempotencyKey, Parameter


@pytest.fixture(scope="module")
def roles():
    return load_field_roles(SPEC_DIR)


def rules(index, revision_id, roles, session):
    return dict(dict(resolve(index.get(revision_id).document, roles).sessions)[session])


def test_every_field_of_the_revisions_the_semantics_cover_has_a_role(index, roles):
    """The reference semantics were written for the revisions up to the one the seeds were
    rendered from; a later revision may bring a field without a role (generation warns)."""
    ids = [r.id for r in index]
    for revision in index.revisions[: ids.index(seeds.rendered_from()) + 1]:
        assert resolve(revision.document, roles).unassigned == (), revision.id


def test_rules_follow_the_reference_semantics(index, roles):
    """The table of ../shared/reference-semantics.md, settled per revision and session."""
    adam = rules(index, "baseline", roles, "adam")
    assert adam["learning_rate"] == Sets(("adam.learning_rate",), fallback=True)
    assert adam["adamw_params.lr"] == Sets(("adam.learning_rate",))
    assert adam["muon_params"] == Refused("Muon overrides in an Adam session")
    assert adam["weight_sync_type"] == NoEffect()
    muon = rules(index, "baseline", roles, "muon")
    # the oldest revision has no Adam group inside the Muon group: the top-level one serves
    assert muon["adamw_params"] == Group()
    assert muon["learning_rate"] == Sets(("muon.learning_rate", "adam.learning_rate"), True)
    muon = rules(index, "9ccc57e5e4b9", roles, "muon")
    assert muon["adam_params"] == Refused("Adam overrides at the top level of a Muon session")
    assert muon["muon_params.grad_clip_norm"] == Sets(("clip",))
    assert muon["muon_params.adam.grad_clip_norm"] == Sets(("clip",))
    assert muon["muon_params.adam.beta1"] == Sets(("adam.beta1",))


def test_a_field_without_a_role_is_refused_and_reported(index, roles):
    table = fieldroles.FieldRoles(
        roles.source, roles.operation, {k: v for k, v in roles.fields.items() if k != "muon_params"}
    )
    result = resolve(index.get("9ccc57e5e4b9").document, table)
    assert [(u.path, u.pointer) for u in result.unassigned] == [
        ("muon_params", "/components/schemas/RLOptimStepBody/properties/muon_params")
    ]
    for _, session in result.sessions:
        assert dict(session)["muon_params"] == Refused(fieldroles.NOT_IMPLEMENTED)
    # a group: the warning names every field in it, each of which needs an entry too
    doc = index.get("9ccc57e5e4b9").document
    operation = doc.operation(roles.operation)
    assert operation is not None and operation.request_body is not None
    body = doc.resolve(operation.request_body.schema)
    group = doc.resolve(body.property("muon_params").schema)
    inner = ", ".join(f"`muon_params.{p.name}`" for p in group.properties)
    assert result.unassigned[0].reason.endswith(f"each needing an entry of its own: {inner}")


def write(tmp_path, text: str):
    (tmp_path / "reference-fields.yaml").write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("fields: {a: none}\n", "#/operation: expected an operationId"),
        ("operation: X\nfields: {}\n", "#/fields: expected a mapping of field names to roles"),
        ("operation: X\nfields: {lr: learning_rate}\n", "#/fields/lr: a top-level field's role"),
        (
            "operation: X\nfields: {m: {role: muon, fields: {b: beta1}}}\n",
            "#/fields/m/fields/b: a field of a `muon` group has one of the roles",
        ),
        (
            "operation: X\nfields: {a: {role: muon.adam, fields: {b: beta1}}}\n",
            "#/fields/a: A `muon.adam` group belongs inside a `muon` group",
        ),
        ("operation: X\nfields: {a: {role: sgd, fields: {}}}\n", "#/fields/a: a group's role"),
        ("operation: X\nfields: {a: none}\nextra: 1\n", "#/extra: unknown key"),
        (
            "operation: X\nfields: {a: none}\nparameters: [dry_run]\n",
            "#/parameters: expected a mapping of locations",
        ),
        (
            "operation: X\nfields: {a: none}\nparameters: {path: {session_id: none}}\n",
            "#/parameters/path: a location is one of query, header",
        ),
        (
            "operation: X\nfields: {a: none}\nparameters: {query: {dry_run: idempotency}}\n",
            "#/parameters/query/dry_run: a query parameter's role is one of none, got "
            "'idempotency'",
        ),
        (
            "operation: X\nfields: {a: none}\nparameters: {header: {X-A: step.clip}}\n",
            "#/parameters/header/X-A: a header parameter's role is one of none, idempotency",
        ),
        (
            "operation: X\nfields: {a: none}\n"
            "parameters: {header: {Idempotency-Key: idempotency, idempotency-key: none}}\n",
            "#/parameters/header/idempotency-key: the header idempotency-key is listed twice",
        ),
    ],
)
def test_mistakes_in_the_data_name_their_place(tmp_path, text, message):
    with pytest.raises(fieldroles.FieldRolesError) as caught:
        load_field_roles(write(tmp_path, text))
    assert message in str(caught.value)


def test_the_served_operation_must_exist(index, tmp_path):
    shutil.copy(SPEC_DIR / "reference-fields.yaml", tmp_path)
    text = (
        (tmp_path / "reference-fields.yaml")
        .read_text()
        .replace("operation: OptimStep", "operation: NoSuchStep")
    )
    table = load_field_roles(write(tmp_path, text))
    with pytest.raises(fieldroles.FieldRolesError, match="has no operation 'NoSuchStep'"):
        resolve(index[-1].document, table)


def test_every_query_parameter_and_header_gets_a_rule_and_one_without_a_role_is_reported(index):
    """A header's role is found without case; a parameter without one is refused and reported
    with its pointer; the path parameter (the session) takes none."""
    raw = yaml.safe_load(index[-1].file.read_text(encoding="utf-8"))
    document = parse_document(raw, source="roles.yaml")
    operation = document.operation(load_field_roles(SPEC_DIR).operation)
    assert operation is not None
    written = raw
    for token in split(operation.pointer):
        written = written[token]
    # the session's path parameters, and no query parameter or header the revision declares
    kept = [p for p in operation.parameters if p.location == "path"]
    written["parameters"] = [at(raw, p.pointer) for p in kept]
    written["parameters"].extend(
        [
            {"name": "dry_run", "in": "query", "schema": {"type": "boolean"}},
            {"name": "IDEMPOTENCY-KEY", "in": "header", "schema": {"type": "string"}},
            {"name": "X-Mode", "in": "header", "schema": {"type": "string", "enum": ["a", "b"]}},
        ]
    )
    table = fieldroles.FieldRoles(
        "roles.yaml",
        "OptimStep",
        {"learning_rate": fieldroles.Entry("step.learning_rate", "/fields/learning_rate")},
        {
            ("header", "idempotency-key"): fieldroles.Entry("idempotency", "/p/h/i"),
            ("header", "x-mode"): fieldroles.Entry("none", "/p/h/x"),
        },
    )
    result = resolve(parse_document(raw, source="roles.yaml"), table)
    assert result.parameters == (
        Parameter("query", "dry_run", Refused(fieldroles.PARAMETER_NOT_IMPLEMENTED), "boolean"),
        Parameter("header", "IDEMPOTENCY-KEY", IdempotencyKey()),
        Parameter("header", "X-Mode", NoEffect(), values=("a", "b")),
    )
    assert [(u.path, u.pointer) for u in result.unassigned_parameters] == [
        ("query parameter dry_run", f"{operation.pointer}/parameters/{len(kept)}")
    ]
