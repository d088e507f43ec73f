"""What the local reference takes and answers, as its revision types it: every query parameter
and header of the served operation has a rule (one without a role is refused, never ignored),
an integer setting is never truncated, and the step number is answered as the revision's
response model types it.

A revision that changes each of these (the step number narrowed to an integer, a new required
response field, an optional query parameter ``dry_run`` and header ``X-Priority`` without
roles, Newton-Schulz steps widened to a number with a default of 5.5) is appended to a copy of
the project, as a maintainer would append it; what needs no new revision uses the newest one.
"""

from __future__ import annotations

import dataclasses
import importlib

import facts
import httpx
import pytest
import torch
import yaml
from conftest import SPEC_DIR
from nextrevision import Places, at
from packages import load, reference
from projects import appended_copy
from serving import Served
from together_rl_runtime import ConfigurationError, ValidationError
from together_rl_runtime.reference._parameters import check_parameters
from together_rl_runtime.settings import IdempotencyKey, NoEffect, Parameter

from generator.reading import ir
from generator.views.pymodel import attribute_name

REVISION = "ca11ab1e0dd5"
SESSION = "inputs"
PRIORITIES = ["low", "high"]


QUERY = facts.unused_parameter("dry_run")
HEADER = facts.unused_parameter("X-Priority")
"""A query parameter and a header that neither the newest revision nor the field roles have."""


def places_of(found: facts.Facts, revision_id: str) -> Places:
    """The places of a revision's document, as written."""
    raw = yaml.safe_load(found.index.get(revision_id).file.read_text(encoding="utf-8"))
    return Places(raw, SPEC_DIR)


def result_schema(places: Places) -> ir.Object:
    """The schema of the served operation's ``output`` (its result)."""
    response = next(r for r in places.operation.responses if r.status.startswith("2") and r.schema)
    operation = places.doc.resolve(response.schema)  # type: ignore[arg-type]
    assert isinstance(operation, ir.Object)
    output = operation.property("output")
    assert output is not None
    result = places.doc.resolve(output.schema)
    assert isinstance(result, ir.Object)
    return result


def changed(doc: dict) -> None:
    """The step number narrowed to an integer and a new required number beside it in the
    result; an optional boolean query parameter and an optional header with an enum; the Muon
    group's Newton-Schulz steps widened to a number, declared with the default 5.5."""
    places = Places(doc, SPEC_DIR)
    result = result_schema(places)
    step = result.property("step")
    assert step is not None
    node = at(doc, step.schema.pointer)
    node.clear()
    node.update(type="integer", description="Step number")
    written = at(doc, result.pointer)
    written["properties"]["grad_norm"] = {"type": "number", "description": "Gradient norm"}
    written["required"] = [*written.get("required", []), "grad_norm"]
    parameters = places.post.setdefault("parameters", [])
    parameters.append({"name": QUERY, "in": "query", "schema": {"type": "boolean"}})
    parameters.append(
        {"name": HEADER, "in": "header", "schema": {"type": "string", "enum": PRIORITIES}}
    )
    steps = at(doc, places.setting("muon", "newton_schulz_steps").schema.pointer)
    steps.update(type="number", default=5.5)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return appended_copy(tmp_path_factory.mktemp("project"), REVISION, changed)


@pytest.fixture(scope="module")
def revision(project):
    return facts.of(project[0] / "spec")


@pytest.fixture(scope="module")
def package(project):
    return load(REVISION, project[0] / "generated")


@pytest.fixture(scope="module")
def ref(package):
    return importlib.import_module(f"{package.__name__}.reference")


def tiny_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))


def backward(model: torch.nn.Module) -> None:
    model(torch.ones(2, 4)).sum().backward()


def parameters_of(model: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


def post(transport, path: str, body: dict, headers: dict | None = None) -> dict:
    """A step through ``transport`` as the API's clients send it; the answer's JSON."""
    request = httpx.Request("POST", f"http://reference{path}", json=body, headers=headers or {})
    response = transport.handle_request(request)
    assert response.status_code == 200, response.text
    return response.json()


def code(operation: dict) -> str:
    return operation["error"]["code"].rpartition("_ERROR_CODE_")[2] if "error" in operation else ""


# -- generate ------------------------------------------------------------------------------------


def test_generate_warns_with_pointer_and_revision_of_what_the_reference_cannot_take_or_answer(
    project, revision
):
    _, printed = project
    source = f"spec/{REVISION}.yaml"
    served = revision.served(REVISION)
    for name, what in ((QUERY, f"query parameter {QUERY}"), (HEADER, f"header {HEADER}")):
        (parameter,) = [p for p in served.parameters if p.name == name]
        assert (
            f"warning: {source}#{parameter.pointer}: the {what} of revision {REVISION} has no "
            "role in the local reference" in printed
        )
    grad_norm = result_schema(places_of(revision, REVISION)).property("grad_norm")
    assert grad_norm is not None
    assert (
        f"warning: {source}#{grad_norm.schema.pointer}: revision {REVISION}: the response field "
        "`output.grad_norm` is required, and the local reference has no value for it" in printed
    )
    steps = revision.field_for(REVISION, "muon", "muon.newton_schulz_steps")
    assert f"the declared default 5.5 of `{steps}` is not an integer" in printed


def test_a_package_whose_reference_needs_the_runtime_s_parameter_rules_requires_that_release(
    project,
):
    pyproject = (project[0] / "generated" / REVISION / "pyproject.toml").read_text()
    assert '"together-rl-runtime>=1.2,<2"' in pyproject


# -- answers -------------------------------------------------------------------------------------


def test_the_step_number_is_answered_as_the_revision_narrowed_it(package, ref, revision):
    """Its schema takes an integer only: the reference answers the integer, which the client of
    the revision reads without a problem (the decimal string made every answer a 500)."""
    session = ref.LocalSession(tiny_model(), "adam")
    with package.Client(api_key="local", transport=ref.LocalTransport(session)) as client:
        for number in (1, 2):
            backward_of(session)
            operation = client.optim_step(SESSION, **revision.required_body(REVISION))
            assert operation.output.step == number and type(operation.output.step) is int
            assert "step" not in operation.output.problems
            assert operation.to_dict()["output"]["step"] == number


def backward_of(session) -> None:
    for p in session._params.values():
        p.grad = torch.ones_like(p)


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


# -- parameters ----------------------------------------------------------------------------------


def test_a_parameter_without_a_role_is_refused_naming_it_and_changes_nothing(
    package, ref, revision
):
    """``dry_run=true`` must not let a real step through: the step fails with INVALID_INPUT
    naming the parameter, the parameters and the step counter are as before, and the refusal
    is the operation a GET returns. So does a header without a role."""
    model = tiny_model()
    session = ref.LocalSession(model, "adam")
    transport = ref.LocalTransport(session)
    path = revision.path(REVISION, SESSION)
    body = revision.required_body(REVISION)
    backward(model)
    before = parameters_of(model)
    with package.Client(api_key="local", transport=transport) as client:
        refused = client.optim_step(SESSION, **body, **{attribute_name(QUERY): True})
    assert code(refused.to_dict()) == "INVALID_INPUT"
    assert refused.error.message == (
        f"query parameter {QUERY}: the local reference does not implement this parameter yet, "
        "got 'true'"
    )
    header = post(transport, path, body, {**revision.required_headers(REVISION), HEADER: "low"})
    assert code(header) == "INVALID_INPUT" and header["error"]["message"].startswith(
        f"header {HEADER}: the local reference does not implement this parameter yet"
    )
    assert session.step == 0
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
    got = transport.handle_request(httpx.Request("GET", f"http://reference{path}/{refused.id}"))
    assert got.json() == refused.to_dict()
    assert code(post(transport, path, body, revision.required_headers(REVISION))) == ""
    assert session.step == 1


def test_an_integer_setting_given_a_fraction_is_refused_never_truncated(ref, revision):
    """The revision widened Newton-Schulz steps to a number: 5.5 is refused naming the field and
    the value, 6.0 is six steps, and the declared default 5.5 is not applied (the session's 5
    is)."""
    session = ref.LocalSession(tiny_model(), "muon")
    field = revision.field_for(REVISION, "muon", "muon.newton_schulz_steps")
    backward_of(session)
    refused = session.optim_step(revision.body(REVISION, "muon", {"muon.newton_schulz_steps": 5.5}))
    assert code(refused.to_dict()) == "INVALID_INPUT"
    assert refused.error.message == f"{field}: must be an integer, got 5.5"
    assert session.step == 0
    completed = session.optim_step(
        revision.body(REVISION, "muon", {"muon.newton_schulz_steps": 6.0})
    )
    assert code(completed.to_dict()) == ""
    assert session.last_settings["muon"]["newton_schulz_steps"] == 6
    backward_of(session)
    session.optim_step(revision.required_body(REVISION))
    assert session.last_settings["muon"]["newton_schulz_steps"] == 5


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


@pytest.mark.slow  # a server in its own process
def test_the_server_refuses_a_query_parameter_without_a_role(project, revision):
    with Served(REVISION, root=project[0] / "generated") as server:
        path = revision.path(REVISION, SESSION)
        body = revision.required_body(REVISION)
        status, done = server.request("POST", path, body)
        assert (
            status == 200
            and code(done) == ""
            and done["output"]["step"] == revision.step(REVISION, 1)
        )
        status, refused = server.request("POST", path + f"?{QUERY}=true", body)
        assert status == 200 and code(refused) == "INVALID_INPUT"
        assert refused["error"]["message"].startswith(f"query parameter {QUERY}:")
        status, again = server.request("GET", f"{path}/{refused['id']}?{QUERY}=true")
        assert (status, again) == (200, refused)
        status, done = server.request("POST", path, body)
        assert status == 200 and done["output"]["step"] == revision.step(REVISION, 2)


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
