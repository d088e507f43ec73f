"""The compatibility verdicts for each kind of change a revision can make, predicted for a
revision made in the test from the newest document: the places a change touches are found
through the parser (never by the newest revision's field names), and each verdict is judged in
the direction it breaks. The cells that check these verdicts against the reference server are
in tests/e2e/test_compat.py."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from generator.changes import compat
from generator.reading import ir
from generator.reading.fieldroles import (
    NOT_IMPLEMENTED,
    PARAMETER_NOT_IMPLEMENTED,
    Entry,
    load_field_roles,
)
from generator.reading.loader import load_yaml
from generator.reading.parser import parse_document
from generator.reading.revisions import Revision, load_index
from generator.reading.statuses import load_statuses
from generator.views.pyclient import build_client
from generator.views.pymodel import build_module
from support import facts
from support.nextrevision import at
from support.paths import SPEC_DIR

INDEX = load_index(SPEC_DIR)
ROLES = load_field_roles(SPEC_DIR)
NEWEST = INDEX[-1]


def revised(change: Callable[[dict[str, Any], ir.Document], None]) -> Revision:
    """A revision of the newest document with ``change`` made to a copy of its decoded text
    (given the parsed newest document, to find its places)."""
    raw = copy.deepcopy(load_yaml(NEWEST.file))
    change(raw, NEWEST.document)
    raw["info"]["version"] = "revised"  # the revision's id
    return Revision.of_document(parse_document(raw, source=str(NEWEST.file)), NEWEST.file)


def served(doc: ir.Document) -> ir.Operation:
    op = doc.operation(ROLES.operation)
    assert op is not None
    return op


def body_fields(doc: ir.Document) -> Iterator[tuple[str, ir.Property, ir.Schema]]:
    """Every request field of the served operation: its JSON path, property and resolved
    schema."""
    body = served(doc).request_body
    assert body is not None and body.schema is not None
    for path, prop in compat._body(doc, body.schema).items():
        yield path, prop, doc.resolve(prop.schema)


def first_field(doc: ir.Document, kind: str) -> tuple[str, ir.Property]:
    """The first request field whose schema is a primitive of ``kind``."""
    for path, prop, schema in body_fields(doc):
        if isinstance(schema, ir.Primitive) and schema.type == kind:
            return path, prop
    pytest.skip(f"the newest revision has no request field of type {kind}")


def entries(client: Revision, server: Revision, outcome: str | None = None) -> list[compat.Entry]:
    return [
        e
        for e in compat.pair(client, server, ROLES).entries
        if outcome is None or e.outcome == outcome
    ]


def test_a_nested_field_made_required_rejects_the_old_clients_that_leave_it_out():
    for group, prop, schema in body_fields(NEWEST.document):
        if isinstance(schema, ir.Object):
            optional = next((p for p in schema.properties if not p.required), None)
            if optional is not None and "." not in group:
                break
    else:
        pytest.skip("the newest revision has no group with an optional field")
    path = f"{group}.{optional.name}"

    def require(raw: dict[str, Any], doc: ir.Document) -> None:
        at(raw, schema.pointer).setdefault("required", []).append(optional.name)

    new = revised(require)
    rejected = {e.path: e for e in entries(NEWEST, new, "rejected")}
    assert rejected[path].detail.endswith("lets a request leave it out: is required")
    # judged by a request that sends the group without the field
    assert optional.name not in rejected[path].request[group]
    siblings = [p.name for p in schema.properties if p.name != optional.name]
    for sibling in siblings:  # sent without the now required field: refused
        assert f"the server requires `{path}`" in rejected[f"{group}.{sibling}"].detail
    assert entries(new, NEWEST, "rejected") == []  # a new client always sends it


def test_a_number_where_the_server_takes_integers_is_rejected_in_that_direction_only():
    path, prop = first_field(NEWEST.document, "integer")

    def widen(raw: dict[str, Any], doc: ir.Document) -> None:
        at(raw, NEWEST.document.resolve(prop.schema).pointer)["type"] = "number"

    new = revised(widen)
    (entry,) = [e for e in entries(new, NEWEST, "rejected") if e.path == path]
    assert entry.detail.endswith("which this client's schema allows: expected an integer")
    assert isinstance(entry.value, float) and not entry.value.is_integer()
    assert (
        compat.conformance.refusal(
            new.document, served(new.document).request_body.schema, entry.request
        )
        is None
    )
    assert [e for e in entries(NEWEST, new, "rejected") if e.path == path] == []


def test_a_tightened_bound_rejects_a_value_the_old_client_allows():
    path, prop = first_field(NEWEST.document, "number")

    def tighten(raw: dict[str, Any], doc: ir.Document) -> None:
        at(raw, NEWEST.document.resolve(prop.schema).pointer)["maximum"] = 0.25

    new = revised(tighten)
    (entry,) = [e for e in entries(NEWEST, new, "rejected") if e.path == path]
    assert entry.detail.endswith("must be <= 0.25") and entry.value > 0.25
    # the field's own entry is judged with a value both allow
    assert all(
        e.outcome != "rejected"
        for e in entries(NEWEST, new)
        if e.path == path and e.value is ir.NO_VALUE
    )
    assert [e for e in entries(new, NEWEST, "rejected") if e.path == path] == []


def test_a_response_value_narrowed_or_widened_is_judged_for_the_old_client():
    for op in NEWEST.document.operations:
        success = next(r for r in op.responses if r.status.startswith("2"))
        found = _union_leaf(NEWEST.document, success.schema, "")
        if found:
            break
    else:
        pytest.skip("the newest revision's responses have no field of several types")
    path, union = found
    variant = union.variants[-1]

    def narrow(raw: dict[str, Any], doc: ir.Document) -> None:
        kept = copy.deepcopy(at(raw, variant.pointer))
        node = at(raw, union.pointer)
        del node["oneOf" if "oneOf" in node else "anyOf"]
        node.update(kept)

    new = revised(narrow)
    # an old client reads every value the narrowed server sends
    assert [e for e in entries(NEWEST, new, "kept-raw") if e.path.endswith(f": {path}")] == []
    # a new client of an old server gets values of the other types, kept as received
    widened = [e for e in entries(new, NEWEST, "kept-raw") if e.path.endswith(f": {path}")]
    assert widened and all("listed in `problems`" in e.detail for e in widened)
    kept = widened[0].value
    assert compat.conformance.refusal(new.document, variant, kept, strict=False) is not None


def _union_leaf(doc: ir.Document, schema: ir.Schema, path: str, depth: int = 0):
    resolved = doc.resolve(schema)
    if isinstance(resolved, ir.Union) and path:
        return path, resolved
    if isinstance(resolved, ir.Object) and depth < 5:
        for prop in resolved.properties:
            found = _union_leaf(
                doc, prop.schema, f"{path}.{prop.name}" if path else prop.name, depth + 1
            )
            if found:
                return found
    return None


def test_query_parameters_and_headers_are_judged():
    query, header = facts.unused_parameter("dry_run"), facts.unused_parameter("X-Priority")

    def parameters(raw: dict[str, Any], doc: ir.Document) -> None:
        op = at(raw, served(doc).pointer)
        op.setdefault("parameters", []).extend(
            [
                {"name": query, "in": "query", "schema": {"type": "boolean"}},
                {"name": header, "in": "header", "schema": {"enum": ["low", "high"]}},
            ]
        )

    new = revised(parameters)
    key = served(NEWEST.document).key
    ignored = {(e.kind, e.path) for e in entries(new, NEWEST, "ignored")}
    assert {("query", f"{key}: {query}"), ("header", f"{key}: {header}")} <= ignored
    # both declare it; the server's reference refuses it until it has a role, then applies it
    assert {
        (e.kind, e.outcome, e.detail) for e in entries(new, new) if e.path == f"{key}: {query}"
    } == {("query", "rejected", PARAMETER_NOT_IMPLEMENTED)}
    given = dataclasses.replace(
        ROLES, parameters={**ROLES.parameters, ("query", query): Entry("none", "/parameters")}
    )
    assert {
        (e.kind, e.outcome)
        for e in compat.pair(new, new, given).entries
        if e.path == f"{key}: {query}"
    } == {("query", "works")}
    assert not any(e.path == f"{key}: {query}" for e in entries(NEWEST, new))
    assert f"query `{key}: {query}`" in compat.compatibility_text([NEWEST, new], ROLES)


def test_a_required_parameter_blocks_the_clients_that_never_send_it():
    query = facts.unused_parameter("dry_run")

    def require(raw: dict[str, Any], doc: ir.Document) -> None:
        at(raw, served(doc).pointer).setdefault("parameters", []).append(
            {"name": query, "in": "query", "required": True, "schema": {"type": "boolean"}}
        )

    new = revised(require)
    assert compat.pair(NEWEST, new, ROLES).blocked == (f"the query parameter `{query}`",)
    assert compat.pair(new, NEWEST, ROLES).blocked == ()


def test_a_status_with_its_own_schema_is_judged_and_parsed_into_it():
    # a status the newest revision does not declare (a later one may answer 409 already)
    code = next(
        c for c in ("409", "423", "425", "410") if served(NEWEST.document).response(c) is None
    )

    def conflict(raw: dict[str, Any], doc: ir.Document) -> None:
        schemas = raw["components"]["schemas"]
        name = next(f"Conflict{i}" for i in range(100) if f"Conflict{i}" not in schemas)
        schemas[name] = {
            "type": "object",
            "required": ["operation_id"],
            "properties": {"operation_id": {"type": "string"}},
        }
        at(raw, served(doc).pointer)["responses"][code] = {
            "description": "a conflict",
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
        }

    new = revised(conflict)
    key = served(NEWEST.document).key
    (status,) = [e for e in entries(NEWEST, new) if e.kind == "status"]
    assert (status.path, status.outcome) == (f"{key} {code}", "kept-raw")
    assert "a status this client does not know" in status.detail
    assert [e for e in entries(new, new) if e.kind == "status"] == []
    # the new revision's client reads the status as its own schema, other errors as before
    module = build_module([*INDEX, new], len(INDEX))
    client = build_client(new.document, module, load_statuses(SPEC_DIR), revision_package=True)
    op = next(o for o in client.operations if o.key == key)
    assert op.error_model is not None and op.error_model.startswith("{")
    assert f'"{code}": Conflict' in op.error_model and '"default": ' in op.error_model
    assert "1.2" in client.runtime_releases
    old = build_client(
        NEWEST.document,
        build_module(list(INDEX), len(INDEX) - 1),
        load_statuses(SPEC_DIR),
        revision_package=True,
    )
    by_status = any((o.error_model or "").startswith("{") for o in old.operations)
    assert ("1.2" in old.runtime_releases) == by_status


def test_the_existing_revisions_judge_every_parameter_and_status():
    """Every parameter of every operation has an entry (the path parameters: read by every
    revision's server)."""
    for pair in compat.matrix(list(INDEX), ROLES):
        a = pair.client.document
        if any(
            e.path == op.key and e.kind == "response" for op in a.operations for e in pair.entries
        ):
            continue
        judged = {e.path for e in pair.entries if e.kind in ("path", "query", "header", "cookie")}
        assert judged == {f"{op.key}: {p.name}" for op in a.operations for p in op.parameters}


def test_a_field_the_server_s_reference_does_not_implement_is_said_to_be_its_refusal():
    top = served(NEWEST.document).request_body
    assert top is not None and top.schema is not None
    taken = {path for path, _, _ in body_fields(NEWEST.document)}
    name = next(f"novel{n or ''}" for n in range(100) if f"novel{n or ''}" not in taken)

    def added(raw: dict[str, Any], doc: ir.Document) -> None:
        schema = doc.resolve(top.schema)
        at(raw, schema.pointer).setdefault("properties", {})[name] = {"type": "number"}

    new = revised(added)
    (judged,) = {(e.outcome, e.detail) for e in entries(new, new) if e.path == name}
    assert judged[0] == "rejected"
    assert judged[1].startswith("that revision's reference server refuses it")
    assert NOT_IMPLEMENTED not in judged[1]


def test_a_new_group_without_a_role_is_named_with_its_fields():
    top = served(NEWEST.document).request_body
    assert top is not None and top.schema is not None
    taken = {path for path, _, _ in body_fields(NEWEST.document)}
    name = next(
        f"novel{n or ''}_params" for n in range(100) if f"novel{n or ''}_params" not in taken
    )

    def added(raw: dict[str, Any], doc: ir.Document) -> None:
        group = {"type": "object", "properties": {"beta": {"type": "number"}, "tau": {}}}
        at(raw, doc.resolve(top.schema).pointer).setdefault("properties", {})[name] = group

    judged = {(e.outcome, e.detail) for e in entries(revised(added), NEWEST) if e.path == name}
    assert judged == {
        (
            "ignored",
            f"the server does not know the group and drops it, with its fields `{name}.beta`, "
            f"`{name}.tau`",
        )
    }
