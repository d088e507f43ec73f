"""The generated clients of every revision against a real HTTP server on loopback."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import threading

import httpx
import pytest

import together_rl_runtime as runtime
from support import facts
from support.clients import (
    ERROR_BODY,
    KEY,
    OPTIM_PATH,
    SESSION,
    async_client_sends_and_waits,
    body_kwargs,
    client_for,
    operation,
    required_parameters,
)
from support.facts import NEWEST
from support.loopback import LoopbackServer, Reply, port_of, refused_port
from support.packages import REVISIONS, load, models

pytestmark = pytest.mark.usefixtures("quick_retries")


@pytest.mark.parametrize("revision", REVISIONS)
def test_optim_step_sends_the_exact_json_and_headers(revision, server):
    pkg = load(revision)
    server.script(Reply(200, operation(output={"step": "7"})))
    kwargs = body_kwargs(revision)
    with client_for(revision, server) as client:
        result = client.optim_step(SESSION, **kwargs, **required_parameters(revision))
    assert isinstance(result, models(revision).RLOptimStepOperation)
    assert result.output.step == "7"
    (seen,) = server.seen
    assert (seen.method, seen.path) == ("POST", OPTIM_PATH)
    assert seen.json() == kwargs
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.headers["content-type"] == "application/json"
    assert seen.headers["accept"] == "application/json"
    assert seen.headers["user-agent"] == f"together-rl/{pkg.__version__} (API revision {revision})"


@pytest.mark.parametrize("revision", REVISIONS)
def test_get_operation_and_unknown_values_from_a_newer_server(revision, server):
    server.script(
        Reply(200, operation("TRAINING_OPERATION_STATUS_PAUSED", output={"step": 9}, shard="a"))
    )
    with client_for(revision, server) as client:
        result = client.get_optim_step_operation(SESSION, "op/1 x")
    assert result.status == "TRAINING_OPERATION_STATUS_PAUSED" and result.extra == {"shard": "a"}
    assert result.output.step == 9
    assert server.seen[0].path == f"{OPTIM_PATH}/op%2F1%20x"


def test_empty_path_parameters_are_refused_before_sending(server):
    pkg = load("f4885bc38424")
    with client_for("f4885bc38424", server) as client:
        with pytest.raises(pkg.ValidationError, match=r"^session_id: must not be empty, got ''$"):
            client.optim_step("")
        with pytest.raises(pkg.ValidationError, match=r"^operation_id: must not be empty"):
            client.get_optim_step_operation(SESSION, "")
        with pytest.raises(pkg.ValidationError, match=r"^session_id: expected a string, got 7$"):
            client.optim_step(7)
        # httpx would read these as "this folder" and "the folder above": another URL
        for dots in (".", ".."):
            with pytest.raises(
                pkg.ValidationError,
                match=rf"^session_id: must not be '\.' or '\.\.'.*got '{dots}'$",
            ):
                client.optim_step(dots)
            with pytest.raises(pkg.ValidationError, match=r"^operation_id: must not be '\.'"):
                client.get_optim_step_operation(SESSION, dots)
    assert server.seen == []


def test_plain_dicts_and_models_are_both_accepted_and_checked(server):
    pkg, m = load("f4885bc38424"), models("f4885bc38424")
    server.script(Reply(200, operation()), Reply(200, operation()))
    with client_for("f4885bc38424", server) as client:
        client.optim_step(SESSION, adam_params={"learning_rate": 0.1})
        client.optim_step(SESSION, muon_params=m.RLMuonParams(adam=m.RLAdamParams(beta1=0.9)))
        with pytest.raises(
            pkg.ValidationError, match=r"^muon_params\.adam\.beta1: expected a number, got 'x'$"
        ):
            client.optim_step(SESSION, muon_params={"adam": {"beta1": "x"}})
        with pytest.raises(pkg.ValidationError, match=r"^adam_params\.lr: unknown field"):
            client.optim_step(SESSION, adam_params={"lr": 0.1})
        with pytest.raises(TypeError):
            client.optim_step(SESSION, weight_sync_type="WEIGHT_SYNC_TYPE_SYNCHRONOUS")
    assert [s.json() for s in server.seen] == [
        {"adam_params": {"learning_rate": 0.1}},
        {"muon_params": {"adam": {"beta1": 0.9}}},
    ]


@pytest.mark.parametrize(
    ("status", "name"),
    [
        (400, "BadRequestError"),
        (401, "AuthenticationError"),
        (403, "PermissionDeniedError"),
        (404, "NotFoundError"),
        (409, "ConflictError"),
        (422, "UnprocessableEntityError"),
        (429, "RateLimitError"),
        (500, "InternalServerError"),
        (503, "InternalServerError"),
        (418, "APIStatusError"),
    ],
)
def test_each_error_status_raises_its_class(status, name, server):
    pkg = load("f4885bc38424")
    server.script(Reply(status, ERROR_BODY, headers={"x-request-id": "r-1"}))
    with client_for("f4885bc38424", server, max_retries=0) as client:
        with pytest.raises(pkg.APIStatusError) as caught:
            client.optim_step(SESSION)
    error = caught.value
    assert type(error).__name__ == name and isinstance(error, pkg.APIError)
    assert error.status_code == status and error.headers["x-request-id"] == "r-1"
    assert error.error.error.type == "invalid_request_error" and error.error.error.param == "beta1"
    assert str(error).endswith(": beta1 out of range")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "<html><body>Bad   gateway</body></html>",
            "502 Bad Gateway: <html><body>Bad gateway</body></html>",
        ),
        ({"detail": "not ErrorData"}, '502 Bad Gateway: {"detail": "not ErrorData"}'),
        ("", "502 Bad Gateway: no body"),
    ],
)
def test_error_bodies_that_are_not_error_data_still_give_a_useful_message(body, message, server):
    pkg = load("f4885bc38424")
    server.script(
        Reply(502, body, headers={"Content-Type": "text/html"} if isinstance(body, str) else {})
    )
    with client_for("f4885bc38424", server, max_retries=0) as client:
        with pytest.raises(pkg.InternalServerError) as caught:
            client.optim_step(SESSION)
    assert str(caught.value) == message and caught.value.error is None


def test_a_success_body_missing_required_fields_is_kept_with_its_problems(server):
    server.script(Reply(200, {"status": "TRAINING_OPERATION_STATUS_PENDING", "output": {}}))
    with client_for("f4885bc38424", server) as client:
        result = client.optim_step(SESSION)
    assert result.problems == {"id": "is required"}
    assert result.id is load("f4885bc38424").UNSET
    assert result.output.problems == {"step": "is required"}
    assert result.to_dict() == {"status": "TRAINING_OPERATION_STATUS_PENDING", "output": {}}


@pytest.mark.parametrize("body", ["[1, 2]", "not json", "[" * 100_000])
def test_a_success_body_that_is_not_a_json_object_is_a_response_validation_error(body, server):
    pkg = load("f4885bc38424")
    server.script(Reply(200, body))
    with client_for("f4885bc38424", server) as client:
        with pytest.raises(
            pkg.APIResponseValidationError, match="the 200 response is not as the API describes it"
        ):
            client.optim_step(SESSION)


# -- retries ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("revision", [r for r in REVISIONS if not facts.has_idempotency_key(r)])
@pytest.mark.parametrize("failure", [Reply(500, ERROR_BODY), Reply(409), Reply(drop=True)])
def test_a_post_without_an_idempotency_key_is_never_sent_again(revision, failure, server):
    pkg = load(revision)
    server.script(failure, Reply(200, operation()))
    with client_for(revision, server, max_retries=3) as client:
        with pytest.raises(pkg.APIError):
            client.optim_step(SESSION, **body_kwargs(revision), **required_parameters(revision))
    assert len(server.seen) == 1


@pytest.mark.parametrize("status", [409, 503])
def test_the_server_s_x_should_retry_never_resends_a_post_without_a_key(status, server):
    """The one retry rule: the header decides only for a request that may be received twice."""
    pkg = load("f4885bc38424")
    server.script(
        Reply(status, ERROR_BODY, headers={"x-should-retry": "true"}), Reply(200, operation())
    )
    with client_for("f4885bc38424", server, max_retries=3) as client:
        with pytest.raises(pkg.APIStatusError):
            client.optim_step(SESSION)
        assert len(server.seen) == 1
        # a GET may be sent again: there the header decides
        assert client.get_optim_step_operation(SESSION, "op-1").id == "op-1"
    assert [s.method for s in server.seen] == ["POST", "GET"]


def test_a_get_answered_503_then_200_is_retried(server):
    server.script(Reply(503, ERROR_BODY), Reply(200, operation()))
    with client_for("f4885bc38424", server) as client:
        assert client.get_optim_step_operation(SESSION, "op-1").id == "op-1"
    assert [s.method for s in server.seen] == ["GET", "GET"]


def test_a_get_gives_up_after_max_retries(server):
    pkg = load("f4885bc38424")
    server.script(*[Reply(500, ERROR_BODY)] * 3)
    with client_for("f4885bc38424", server, max_retries=1) as client:
        with pytest.raises(pkg.InternalServerError):
            client.get_optim_step_operation(SESSION, "op-1")
    assert len(server.seen) == 2


def test_a_post_whose_connection_failed_before_sending_is_retried(monkeypatch):
    """The first attempt finds the port refusing connections; the server starts listening when
    the client asks how long to wait before its second (the event, not a time, orders them)."""
    from together_rl_runtime import _client

    pkg = load(NEWEST)
    waited = []
    retry_delay = _client._BaseClient._retry_delay
    holder: list[LoopbackServer] = []
    with refused_port() as reserved:

        def start_listening(self, attempt, response):
            if not waited:
                holder.append(LoopbackServer(reserved).__enter__())
                holder[0].script(Reply(200, operation()))
            waited.append(attempt)
            return retry_delay(self, attempt, response)

        monkeypatch.setattr(_client._BaseClient, "_retry_delay", start_listening)
        url = f"http://127.0.0.1:{port_of(reserved)}"
        try:
            with pkg.Client(api_key=KEY, base_url=url, max_retries=10) as client:
                kwargs = {**body_kwargs(NEWEST), **required_parameters(NEWEST)}
                assert client.optim_step(SESSION, **kwargs).id == "op-1"
        finally:
            for server in holder:
                server.__exit__()
    assert waited == [0]
    assert len(holder[0].seen) == 1


def test_connection_refused_raises_api_connection_error():
    pkg = load("f4885bc38424")
    with refused_port() as reserved:
        url = f"http://127.0.0.1:{port_of(reserved)}"
        with pkg.Client(api_key=KEY, base_url=url, max_retries=0) as client:
            with pytest.raises(pkg.APIConnectionError) as caught:
                client.optim_step(SESSION)
    assert not isinstance(caught.value, pkg.APITimeoutError)


# -- the bounds of a call: how much the server sends, and how slowly --------------------------------


def test_a_body_that_decodes_past_the_limit_raises_our_error(server):
    """64 KiB of gzip that would decode to 64 MiB, against a limit of 1 MiB; a body within the
    limit is decoded and read."""
    server.script(
        Reply(200, gzip.compress(b"0" * (64 << 20)), headers={"Content-Encoding": "gzip"}),
        Reply(200, gzip.compress(json.dumps(operation()).encode()), {"Content-Encoding": "gzip"}),
    )
    with client_for("f4885bc38424", server, max_response_bytes=1 << 20) as client:
        with pytest.raises(runtime.APIResponseTooLargeError) as caught:
            client.get_optim_step_operation(SESSION, "op-1")
        assert client.get_optim_step_operation(SESSION, "op-1").id == "op-1"
    assert caught.value.limit == 1 << 20
    assert "over the limit of 1 MiB (1048576 bytes) (the client's max_response_bytes)" in str(
        caught.value
    )


# -- waiting ------------------------------------------------------------------------------------------


def test_wait_polls_until_completed(server):
    server.script(
        Reply(200, operation("TRAINING_OPERATION_STATUS_RUNNING")),
        Reply(200, operation("TRAINING_OPERATION_STATUS_COMPLETED", output={"step": "3"})),
    )
    with client_for("f4885bc38424", server) as client:
        pending = models("f4885bc38424").RLOptimStepOperation.from_dict(operation())
        done = client.wait_for_optim_step(SESSION, pending, interval=0.05)
    assert done.output.step == "3"
    assert [s.path for s in server.seen] == [f"{OPTIM_PATH}/op-1"] * 2
    assert server.seen[1].at - server.seen[0].at >= 0.09  # the interval doubled


def test_wait_raises_operation_failed_with_code_and_message(server):
    pkg = load("f4885bc38424")
    failed = operation(
        "TRAINING_OPERATION_STATUS_FAILED",
        error={"code": "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS", "message": "loss is nan"},
    )
    server.script(Reply(200, failed))
    with client_for("f4885bc38424", server) as client:
        with pytest.raises(pkg.OperationFailedError) as caught:
            client.wait_for_optim_step(SESSION, "op-1", interval=0.05)
    assert caught.value.code == "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS"
    assert caught.value.message == "loss is nan"


def test_a_waiter_given_only_an_id_times_out_with_no_operation(server):
    pkg = load("f4885bc38424")
    server.script(Reply(503, ERROR_BODY, headers={"Retry-After": "5"}))
    with client_for("f4885bc38424", server) as client:
        with pytest.raises(pkg.OperationTimeoutError) as caught:
            client.wait_for_optim_step(SESSION, "op-1", timeout=0.3)
    assert caught.value.operation is None
    assert "op-1 did not finish within 0.3 s" in str(caught.value)


# -- async ----------------------------------------------------------------------------------------------


def test_async_client_sends_and_waits(server):
    """The newest revision's (each other one's: tests/e2e/test_every_revision.py)."""
    async_client_sends_and_waits(NEWEST, server)


def test_async_retries_and_errors(server):
    pkg = load("f4885bc38424")
    server.script(Reply(503, ERROR_BODY), Reply(200, operation()), Reply(500, ERROR_BODY))

    async def main():
        async with pkg.AsyncClient(api_key=KEY, base_url=server.url) as client:
            await client.get_optim_step_operation(SESSION, "op-1")
            with pytest.raises(pkg.InternalServerError):
                await client.optim_step(SESSION)

    asyncio.run(main())
    assert [s.method for s in server.seen] == ["GET", "GET", "POST"]


def test_cancelling_an_async_call_leaves_the_client_usable(server):
    """A call cancelled while the server holds its answer; the next call on the same client is
    answered while the first answer is still held."""
    pkg = load("f4885bc38424")
    held = threading.Event()
    server.script(
        Reply(200, operation(), held=held),
        Reply(200, operation("TRAINING_OPERATION_STATUS_RUNNING")),
    )

    async def main():
        async with pkg.AsyncClient(api_key=KEY, base_url=server.url) as client:
            task = asyncio.create_task(client.optim_step(SESSION))
            while not server.seen:  # the request has reached the server
                await asyncio.sleep(0.005)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return await client.get_optim_step_operation(SESSION, "op-1")

    try:
        assert asyncio.run(main()).status == "TRAINING_OPERATION_STATUS_RUNNING"
        assert not held.is_set()
    finally:
        held.set()
    assert [s.method for s in server.seen] == ["POST", "GET"]


# -- configuration and logging --------------------------------------------------------------------------


def test_missing_api_key_is_a_clear_error_at_construction(monkeypatch):
    pkg = load("f4885bc38424")
    monkeypatch.delenv("TOGETHER_API_KEY", raising=False)
    with pytest.raises(
        pkg.ConfigurationError, match="no API key: pass api_key=... or set TOGETHER_API_KEY"
    ):
        pkg.Client()
    with pytest.raises(pkg.ConfigurationError):
        pkg.AsyncClient()


def test_environment_defaults_and_the_spec_server(monkeypatch, server):
    pkg = load("f4885bc38424")
    monkeypatch.setenv("TOGETHER_API_KEY", "from-env")
    monkeypatch.delenv("TOGETHER_BASE_URL", raising=False)
    assert pkg.Client().base_url == "https://api.together.ai"
    monkeypatch.setenv("TOGETHER_BASE_URL", server.url + "/")
    server.script(Reply(200, operation()))
    with pkg.Client(headers={"X-Team": "rl"}) as client:
        assert client.base_url == server.url and "from-env" not in repr(client)
        client.optim_step(SESSION)
    assert server.seen[0].headers["authorization"] == "Bearer from-env"
    assert server.seen[0].headers["x-team"] == "rl"


def test_an_injected_transport_serves_the_requests():
    pkg = load("f4885bc38424")
    seen = []

    def handler(request):
        seen.append(request)
        return httpx.Response(200, json=operation())

    with pkg.Client(api_key=KEY, transport=httpx.MockTransport(handler)) as client:
        client.optim_step(SESSION, adam_params={"eps": 1e-8})
    assert str(seen[0].url) == f"https://api.together.ai{OPTIM_PATH}"
    with pytest.raises(pkg.ConfigurationError, match="not both"):
        pkg.Client(api_key=KEY, transport=httpx.MockTransport(handler), http_client=httpx.Client())


def test_logs_requests_and_retries_but_never_the_api_key(server, caplog):
    server.script(Reply(503, ERROR_BODY), Reply(200, operation()))
    with caplog.at_level(logging.DEBUG, logger="together_rl"):
        with client_for("f4885bc38424", server) as client:
            client.get_optim_step_operation(SESSION, "op-1")
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "answered 503; retry 1 in" in text and f"GET {server.url}{OPTIM_PATH}/op-1" in text
    assert KEY not in text


def test_an_argument_of_an_earlier_revision_names_the_revision_that_removed_it(server):
    pkg = load("f4885bc38424")
    with client_for("f4885bc38424", server) as client:
        with pytest.raises(pkg.RevisionMismatchError) as caught:
            client.optim_step(SESSION, weight_sync_type="WEIGHT_SYNC_TYPE_SYNCHRONOUS")
    assert str(caught.value) == (
        "optim_step(): `weight_sync_type` was removed in revision f26a23fab8e0, 2026-08-08 "
        "(this package implements revision f4885bc38424)"
    )
    assert isinstance(caught.value, TypeError) and server.seen == []
    # the models say the same, from the constructor and from from_dict
    m = models("f4885bc38424")
    for make in (
        lambda: m.RLOptimStepBody(weight_sync_type="WEIGHT_SYNC_TYPE_SYNCHRONOUS"),
        lambda: m.RLOptimStepBody.from_dict({"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"}),
    ):
        with pytest.raises(pkg.RevisionMismatchError, match="removed in revision f26a23fab8e0"):
            make()


@pytest.mark.parametrize("revision", REVISIONS)
def test_each_argument_has_one_line_of_its_own_in_the_docstring(revision):
    import inspect

    doc = inspect.getdoc(load(revision).Client.optim_step)
    args = doc.split("Args:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    names = [line.split(":", 1)[0].strip() for line in args if not line.startswith("        ")]
    signature = inspect.signature(load(revision).Client.optim_step).parameters
    assert names == [name for name in signature if name != "self"]
