"""Together's own Python SDK (``together==3.1.1``) as a real client of the reference server, and
one ``TOGETHER_BASE_URL`` pointing both clients at the same URLs."""

from __future__ import annotations

import pytest
import together
from together.types.post_training import OptimStepOperation

from support import facts
from support.loopback import LoopbackServer, Reply
from support.packages import load
from support.serving import Served

# The SDK 3.1.1 sends Adam's settings as `adam_params`: its server is the newest revision that
# reads them there (whatever later revisions call them).
SERVER = facts.sdk_server("adam.learning_rate", "adam.eps")
(COMPLETED,) = facts.statuses(SERVER, "succeeded")
(FAILED,) = facts.statuses(SERVER, "failed")


@pytest.fixture(scope="module")
def served():
    with Served(SERVER) as server:
        yield server


@pytest.fixture
def sdk(served):
    with together.Together(api_key="local", base_url=served.url, max_retries=0) as client:
        yield client.post_training.operations


def test_a_step_with_an_idempotency_key_is_applied_once(sdk):
    first = sdk.optim_step("sdk-1", idempotency_key="k-1", adam_params={"learning_rate": 1e-3})
    again = sdk.optim_step("sdk-1", idempotency_key="k-1", adam_params={"learning_rate": 1e-3})
    assert isinstance(first, OptimStepOperation)
    assert again == first and first.status == COMPLETED
    assert first.output is not None and first.output.step == facts.step(SERVER, 1)  # as sent
    fetched = sdk.retrieve_optim_step(first.id, session_id="sdk-1")
    assert isinstance(fetched, OptimStepOperation) and fetched == first
    other = sdk.optim_step("sdk-1", idempotency_key="k-2")
    assert other.output.step == facts.step(SERVER, 2)


def test_a_failed_step_parses_into_the_sdk_s_types(sdk):
    failed = sdk.optim_step("sdk-2", idempotency_key="k-f", adam_params={"eps": 0})
    assert isinstance(failed, OptimStepOperation)
    assert failed.status == FAILED
    assert failed.error is not None
    assert failed.error.code == "TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT"
    assert failed.error.message == "adam_params.eps: must be > 0, got 0"


def test_an_unknown_operation_is_the_sdk_s_not_found_error(sdk):
    with pytest.raises(together.NotFoundError) as caught:
        sdk.retrieve_optim_step("no-such-operation", session_id="sdk-3")
    assert caught.value.status_code == 404
    assert caught.value.body["error"]["type"] == "not_found_error"


def test_a_reused_key_with_another_body_is_refused(sdk):
    sdk.optim_step("sdk-4", idempotency_key="k-r", adam_params={"beta1": 0.8})
    with pytest.raises(together.UnprocessableEntityError) as caught:
        sdk.optim_step("sdk-4", idempotency_key="k-r", adam_params={"beta1": 0.7})
    assert caught.value.body["error"]["code"] == "idempotency_key_reused"


def test_one_base_url_sends_both_clients_to_the_same_url(monkeypatch):
    operation = {"id": "op-1", "status": "TRAINING_OPERATION_STATUS_PENDING"}
    with LoopbackServer() as server:
        monkeypatch.setenv("TOGETHER_BASE_URL", server.url)
        monkeypatch.setenv("TOGETHER_API_KEY", "k")
        server.script(Reply(200, operation), Reply(200, operation))
        with together.Together(max_retries=0) as client:
            client.post_training.operations.optim_step("same", idempotency_key="k")
        with load(SERVER).Client(max_retries=0) as ours:
            ours.optim_step(
                "same", **facts.required_body(SERVER), **facts.required_arguments(SERVER)
            )
    theirs, mine = server.seen
    assert theirs.path == mine.path == "/v1/rl/training-sessions/same/operations/optim-step"
