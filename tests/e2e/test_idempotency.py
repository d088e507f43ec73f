"""A revision that declares an ``Idempotency-Key`` header (as the API's next revision will) and
states constraints: its client retries a POST with one key, and its models enforce the limits.

The revision is appended to a copy of the project, as a maintainer would append it."""

from __future__ import annotations

import importlib
import json
import re
import uuid

import httpx
import pytest

from generator.views.pymodel import attribute_name, class_name
from support import facts
from support.loopback import Reply
from support.nextrevision import Places, at
from support.packages import load, models
from support.paths import SPEC_DIR
from support.projects import appended_copy
from support.typecheck import mypy_strict

pytestmark = pytest.mark.usefixtures("quick_retries")

REVISION = "1d3e0c0ffee0"
SESSION = "sess-1"
KEY_DESCRIPTION = (
    "Required key that makes retries return the original operation; use a new key for changed "
    "request bodies."
)
ERROR = {"error": {"type": "server_error", "message": "try again", "param": None, "code": None}}


def with_idempotency_key_and_limits(doc: dict) -> None:
    """A required Idempotency-Key header (declared anew where the revision has one), and
    bounds on Adam's beta1 and Muon's Newton-Schulz steps."""
    places = Places(doc, SPEC_DIR)
    places.set_header(
        {
            "name": "Idempotency-Key",
            "in": "header",
            "required": True,
            "description": KEY_DESCRIPTION,
            "schema": {"type": "string", "maxLength": 64},
        }
    )
    at(doc, places.setting("adam", "beta1").schema.pointer).update(minimum=0, exclusiveMaximum=1)
    steps = places.setting("muon", "newton_schulz_steps").schema.pointer
    at(doc, steps).update(minimum=1, maximum=100)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    project, _ = appended_copy(
        tmp_path_factory.mktemp("project"), REVISION, with_idempotency_key_and_limits
    )
    return project


@pytest.fixture(scope="module")
def package(project):
    return load(REVISION, project / "generated")


@pytest.fixture(scope="module")
def revision(project):
    return facts.of(project / "spec")


@pytest.fixture(scope="module")
def operation(revision):
    (pending,) = (
        revision.statuses(REVISION, "in-progress")[1:2]
        or revision.statuses(REVISION, "in-progress")[:1]
    )
    return {"id": "op-1", "status": pending}


def plain(revision) -> dict:
    """Arguments of ``optim_step`` that set nothing but what the revision requires."""
    return {**revision.required_body(REVISION), **revision.required_arguments(REVISION)}


def adam(revision, **settings) -> dict:
    """Arguments of ``optim_step`` that set Adam's settings (``beta1=0.9``)."""
    return revision.body(REVISION, "adam", {f"adam.{k}": v for k, v in settings.items()})


def muon(revision, **settings) -> dict:
    return revision.body(REVISION, "muon", {f"muon.{k}": v for k, v in settings.items()})


def client(package, server, **options):
    options.setdefault("max_retries", 3)
    return package.Client(api_key="k", base_url=server.url, **options)


def keys(server) -> list[str]:
    return [seen.headers["idempotency-key"] for seen in server.seen]


def test_each_call_gets_a_new_key_where_none_is_given(package, server, operation, revision):
    server.script(Reply(200, operation), Reply(200, operation))
    with client(package, server) as c:
        c.optim_step(SESSION, **plain(revision))
        c.optim_step(SESSION, **plain(revision))
    first, second = keys(server)
    assert first != second and all(uuid.UUID(k).version == 4 for k in (first, second))


@pytest.mark.parametrize(
    "failure",
    [
        Reply(500, ERROR),
        Reply(503, ERROR),
        Reply(408, ERROR),
        Reply(409, ERROR),
        Reply(429, ERROR),
        Reply(drop=True),  # the connection broke after the request was sent
    ],
)
def test_a_post_with_a_key_is_retried_with_the_same_key(
    package, server, failure, revision, operation
):
    (done,) = revision.statuses(REVISION, "succeeded")
    server.script(failure, Reply(200, {**operation, "status": done}))
    with client(package, server) as c:
        result = c.optim_step(SESSION, **adam(revision, beta1=0.9))
    assert result.status == done
    assert len(server.seen) == 2
    assert len(set(keys(server))) == 1
    assert server.seen[0].body == server.seen[1].body


def test_the_caller_s_key_is_sent_as_given(package, server, operation, revision):
    server.script(Reply(500, ERROR), Reply(200, operation))
    with client(package, server) as c:
        c.optim_step(SESSION, idempotency_key="step-0042", **plain(revision))
    assert keys(server) == ["step-0042", "step-0042"]


def test_the_key_is_an_optional_keyword_documented_from_the_spec(package):
    import inspect

    parameter = inspect.signature(package.Client.optim_step).parameters["idempotency_key"]
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.default is None
    doc = " ".join(package.Client.optim_step.__doc__.split())
    assert f"idempotency_key: {KEY_DESCRIPTION}" in doc


def test_the_server_s_x_should_retry_decides(package, server, operation, revision):
    server.script(Reply(503, ERROR, headers={"x-should-retry": "false"}), Reply(200, operation))
    with client(package, server) as c:
        with pytest.raises(package.InternalServerError):
            c.optim_step(SESSION, **plain(revision))
    assert len(server.seen) == 1
    server.seen.clear()
    server.replies.clear()
    server.script(Reply(400, ERROR, headers={"x-should-retry": "true"}), Reply(200, operation))
    with client(package, server) as c:
        c.optim_step(SESSION, **plain(revision))
    assert len(server.seen) == 2


@pytest.mark.parametrize(
    ("headers", "at_least"),
    [({"retry-after-ms": "300"}, 0.29), ({"Retry-After": "0.3"}, 0.29)],
)
def test_the_server_s_delay_is_honoured(package, server, headers, at_least, operation, revision):
    server.script(Reply(503, ERROR, headers=headers), Reply(200, operation))
    with client(package, server) as c:
        c.optim_step(SESSION, **plain(revision))
    first, second = server.seen
    assert second.at - first.at >= at_least


def test_a_delay_over_a_minute_is_not_waited_for(package, server, monkeypatch, operation, revision):
    slept = []
    monkeypatch.setattr("time.sleep", slept.append)
    server.script(Reply(503, ERROR, headers={"Retry-After": "3600"}), Reply(200, operation))
    with client(package, server) as c:
        c.optim_step(SESSION, **plain(revision))
    assert len(slept) == 1 and slept[0] <= 8.0  # the backoff, as the official SDK does


def test_http_date_retry_after(package, server, monkeypatch, operation, revision):
    import email.utils
    import time

    slept = []
    monkeypatch.setattr("time.sleep", slept.append)
    when = email.utils.formatdate(time.time() + 5, usegmt=True)
    server.script(Reply(503, ERROR, headers={"Retry-After": when}), Reply(200, operation))
    with client(package, server) as c:
        c.optim_step(SESSION, **plain(revision))
    assert 3.5 <= slept[0] <= 5.0


def test_request_models_enforce_the_stated_limits(package, revision):
    body_model = getattr(
        models(REVISION), class_name(revision.served(REVISION).request_body.schema.name)
    )
    beta1 = revision.field_for(REVISION, "adam", "adam.beta1")
    steps = revision.field_for(REVISION, "muon", "muon.newton_schulz_steps")
    with pytest.raises(
        package.ValidationError, match=rf"^{re.escape(beta1)}: must be < 1, got 1\.0$"
    ):
        body_model.from_dict(adam(revision, beta1=1.0))
    with pytest.raises(
        package.ValidationError, match=rf"^{re.escape(beta1)}: must be >= 0, got -0\.1$"
    ):
        body_model.from_dict(adam(revision, beta1=-0.1))
    with pytest.raises(package.ValidationError, match=r"must be <= 100"):
        body_model.from_dict(muon(revision, newton_schulz_steps=101))
    five = body_model.from_dict(muon(revision, newton_schulz_steps=5.0)).to_dict()
    assert five == muon(revision, newton_schulz_steps=5)
    sent = five[steps.split(".")[0]][steps.split(".")[-1]]
    if revision.is_integer(REVISION, steps):
        assert type(sent) is int
        with pytest.raises(package.ValidationError, match="expected an integer"):
            body_model.from_dict(muon(revision, newton_schulz_steps=5.5))
    else:  # the revision types the setting a number: a fraction is the model's to keep
        assert type(sent) is float
        kept = body_model.from_dict(muon(revision, newton_schulz_steps=5.5)).to_dict()
        assert kept == muon(revision, newton_schulz_steps=5.5)


def test_parameters_are_checked_against_their_schema(package, server, revision):
    with client(package, server) as c:
        with pytest.raises(
            package.ValidationError, match=r"^Idempotency-Key: must be at most 64 characters"
        ):
            c.optim_step(SESSION, idempotency_key="k" * 65, **plain(revision))
    assert server.seen == []


@pytest.mark.parametrize(
    "setting",
    [
        ("adam", "beta1", 10**400),
        ("adam", "beta1", float("nan")),
        ("muon", "newton_schulz_steps", 10**5000),
    ],
)
def test_out_of_range_numbers_are_validation_errors(package, server, revision, setting):
    kind, name, value = setting
    arguments = revision.body(REVISION, kind, {f"{kind}.{name}": value})
    with client(package, server) as c:
        with pytest.raises(package.ValidationError):
            c.optim_step(SESSION, **arguments)
    assert server.seen == []


def test_an_integral_float_is_sent_as_an_integer(package, server, revision, operation):
    server.script(Reply(200, operation))
    with client(package, server) as c:
        c.optim_step(SESSION, **muon(revision, newton_schulz_steps=5.0))
    assert json.loads(server.seen[0].body) == muon(revision, newton_schulz_steps=5)


def test_the_async_client_retries_with_one_key_too(package, server, operation, revision):
    import asyncio

    server.script(Reply(502, ERROR), Reply(200, operation))

    async def call():
        async with package.AsyncClient(api_key="k", base_url=server.url) as c:
            return await c.optim_step(SESSION, **plain(revision))

    assert asyncio.run(call()).id == "op-1"
    assert len(server.seen) == 2 and len(set(keys(server))) == 1


def test_a_transport_error_of_httpx_becomes_ours(package, revision):
    def broken(request: httpx.Request) -> httpx.Response:
        raise httpx.DecodingError("bad gzip")

    with package.Client(api_key="k", transport=httpx.MockTransport(broken), max_retries=0) as c:
        with pytest.raises(package.APIConnectionError, match="bad gzip"):
            c.optim_step(SESSION, **plain(revision))


def test_the_package_passes_mypy_strict(package, mypy_cache):
    from pathlib import Path

    result = mypy_strict(Path(package.__file__).parent.parent, "together_rl", cache=mypy_cache)
    assert result.returncode == 0, result.stdout + result.stderr


def test_what_is_written_holds_for_this_revision(package, revision):
    """Text true only of some revisions is rendered only into them."""
    from pathlib import Path

    client = importlib.import_module(f"together_rl_{REVISION}._client")
    method = attribute_name(revision.served(REVISION).operation_id)
    assert "carries no idempotency key" not in client.__doc__
    assert f"``{method}`` carries an idempotency key (the ``Idempotency-Key`` header)" in " ".join(
        client.__doc__.split()
    )
    folder = Path(package.__file__).parent.parent
    assert "carries no idempotency key" not in (folder / "README.md").read_text()
    page = (
        folder / "together_rl" / "docs" / f"{revision.served(REVISION).operation_id}.md"
    ).read_text()
    beta1 = revision.field_for(REVISION, "adam", "adam.beta1").rpartition(".")[2]
    assert any(
        line.lstrip("- ").startswith(f"`{beta1}` number")
        and line.endswith("Minimum: `0`. Less than: `1`.")
        for line in page.splitlines()
    ), page
