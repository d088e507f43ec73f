"""What the local reference of the newest revision takes and answers, as the revision types it:
a step number its schema takes as a string, an integer setting's session default, a query
parameter or header checked by its rule or ignored where the revision does not declare it (a
revision appended to a copy of the project: runtime/tests/e2e/test_reference_inputs.py)."""

from __future__ import annotations

import dataclasses

import httpx
import pytest

from generator.reading import ir
from support import facts
from support.inputs import (
    HEADER,
    PRIORITIES,
    QUERY,
    SESSION,
    backward_of,
    code,
    places_of,
    post,
    result_schema,
    tiny_model,
)
from support.packages import reference
from together_rl_runtime import ConfigurationError, ValidationError
from together_rl_runtime.reference._parameters import check_parameters
from together_rl_runtime.settings import IdempotencyKey, NoEffect, Parameter


def test_a_step_number_the_schema_takes_as_a_string_is_the_decimal_string():
    """As the API's gateway sends it, where the newest released revision's schema takes one."""
    doc = facts.document(facts.NEWEST)
    step = result_schema(places_of(facts.PROJECT, facts.NEWEST)).property("step")
    assert step is not None
    kinds = [doc.resolve(s) for s in (doc.resolve(step.schema), *_variants(doc, step.schema))]
    if not any(isinstance(k, ir.Primitive) and k.type == "string" for k in kinds):
        pytest.skip(f"revision {facts.NEWEST}'s step number takes no string")
    session = reference(facts.NEWEST).LocalSession(tiny_model(), "adam")
    backward_of(session)
    answered = session.optim_step(facts.required_body(facts.NEWEST)).to_dict()
    assert answered["output"]["step"] == "1"


def _variants(doc: ir.Document, schema: ir.Schema) -> tuple[ir.Schema, ...]:
    resolved = doc.resolve(schema)
    return resolved.variants if isinstance(resolved, ir.Union) else ()


def test_a_session_default_for_an_integer_setting_must_be_integral():
    with pytest.raises(ConfigurationError) as caught:
        reference(facts.NEWEST).LocalSession(tiny_model(), "muon", newton_schulz_steps=5.5)
    assert str(caught.value) == "session default newton_schulz_steps must be an integer, got 5.5"


def roled(revision_id: str, *parameters: Parameter):
    """The session and transport classes of a revision's reference, with these parameter rules."""
    ref = reference(revision_id)
    definition = dataclasses.replace(ref.LocalSession.revision, parameters=parameters)
    session = type("Session", (ref.LocalSession,), {"revision": definition})
    transport = type("Transport", (ref.LocalTransport,), {"revision": definition})
    return session, transport


def test_a_parameter_with_a_role_is_checked_against_its_schema():
    """A query parameter and a header of role ``none`` are checked (a scalar's type, an enum's
    values, given once) and change nothing else; a header of role ``idempotency`` is the step's
    idempotency key."""
    session_class, transport_class = roled(
        facts.NEWEST,
        Parameter("query", QUERY, NoEffect(), type="boolean"),
        Parameter("header", HEADER, NoEffect(), values=tuple(PRIORITIES)),
        Parameter("header", "X-Request-Key", IdempotencyKey()),
    )
    session = session_class(tiny_model(), "adam")
    transport = transport_class(session)
    path = facts.path(facts.NEWEST, SESSION)
    body = facts.required_body(facts.NEWEST)

    def refused(query: str, headers: dict) -> str:
        backward_of(session)
        required = facts.required_headers(facts.NEWEST)  # a new idempotency key each step
        operation = post(transport, path + query, body, {**required, **headers})
        assert code(operation) == "INVALID_INPUT"
        return operation["error"]["message"]

    assert (
        refused(f"?{QUERY}=maybe", {})
        == f"query parameter {QUERY}: expected a boolean, got 'maybe'"
    )
    assert refused(f"?{QUERY}=true&{QUERY}=false", {}).startswith(
        f"query parameter {QUERY}: is given 2 times; give it once"
    )
    assert refused("", {HEADER.lower(): "urgent"}) == (
        f"header {HEADER}: must be one of low, high, got 'urgent'"
    )
    undecodable = httpx.Request(
        "POST",
        f"http://reference{path}?{QUERY}=%ff",
        json=body,
        headers=facts.required_headers(facts.NEWEST),
    )
    answer = transport.handle_request(undecodable)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"] == "the query is not UTF-8 once decoded"
    assert session.step == 0
    required = facts.required_headers(facts.NEWEST)
    first = post(transport, path + f"?{QUERY}=false", body, {**required, HEADER: "low"})
    assert code(first) == "" and session.step == 1
    keyed = {**facts.required_headers(facts.NEWEST), "X-Request-Key": "k-1"}
    once = post(transport, path, body, keyed)
    assert post(transport, path, body, keyed) == once and session.step == 2


def test_a_parameter_the_revision_does_not_declare_is_ignored_as_the_api_ignores_it():
    """What an older server does with a newer client's ``dry_run`` (the compatibility matrix
    says *ignores*): the step is applied."""
    assert not any(p.name == QUERY for p in facts.served(facts.NEWEST).parameters)
    session = reference(facts.NEWEST).LocalSession(tiny_model(), "adam")
    transport = reference(facts.NEWEST).LocalTransport(session)
    backward_of(session)
    path = facts.path(facts.NEWEST, SESSION) + f"?{QUERY}=true"
    operation = post(
        transport, path, facts.required_body(facts.NEWEST), facts.required_headers(facts.NEWEST)
    )
    assert code(operation) == "" and session.step == 1


def test_a_query_number_of_any_length_or_nesting_is_refused_naming_it():
    """A query value is the client's text: nesting or thousands of digits are refused with
    the parameter's name, never a parser's own error."""
    rules = [Parameter("query", "n", NoEffect(), type="integer")]
    for text in ("[" * 5000, "1" * 5000, "9" * 400 + ".5", "5.5", "1e400", "NaN", "{}", "0x1"):
        with pytest.raises(ValidationError, match="^query parameter n: expected an integer"):
            check_parameters(rules, {"n": [text]}, {})
    for text in ("6", "6.0", "-0", " 7 ", "1e2", "9" * 300):
        check_parameters(rules, {"n": [text]}, {})
    number = [Parameter("query", "x", NoEffect(), type="number", values=(0.5, 2))]
    check_parameters(number, {"x": ["2"]}, {})
    check_parameters(number, {"x": ["0.5"]}, {})
    with pytest.raises(ValidationError, match="must be one of 0.5, 2"):
        check_parameters(number, {"x": ["3"]}, {})
