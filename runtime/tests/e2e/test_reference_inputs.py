"""What the local reference takes and answers, as its revision types it: every query parameter
and header of the served operation has a rule (one without a role is refused, never ignored),
an integer setting is never truncated, and the step number is answered as the revision's
response model types it.

A revision that changes each of these (the step number narrowed to an integer, a new required
response field, an optional query parameter ``dry_run`` and header ``X-Priority`` without
roles, Newton-Schulz steps widened to a number with a default of 5.5) is appended to a copy of
the project, as a maintainer would append it; what needs no new revision uses the newest one
(runtime/tests/unit/test_reference_inputs_newest.py).
"""

from __future__ import annotations

import importlib

import httpx
import pytest
import torch

from generator.views.pymodel import attribute_name
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
from support.nextrevision import Places, at
from support.packages import load
from support.paths import SPEC_DIR
from support.projects import appended_copy
from support.serving import Served

REVISION = "ca11ab1e0dd5"


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


def backward(model: torch.nn.Module) -> None:
    model(torch.ones(2, 4)).sum().backward()


def parameters_of(model: torch.nn.Module) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


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
