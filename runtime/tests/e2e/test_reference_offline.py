"""The generated client served by the local reference: in process, and over HTTP on loopback."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
import torch
from torch import nn

from generator.reading.revisions import load_index
from generator.reading.values import sample
from support import facts
from support.packages import GENERATED, REVISIONS, load, reference
from support.paths import ROOT

torch.set_num_threads(1)


def required_fields(revision: str) -> dict:
    """The revision's required body fields, with sample values (the weight-sync type, where a
    revision requires one)."""
    doc = load_index(ROOT / "spec").get(revision).document
    return sample(doc, doc.operation("OptimStep").request_body.schema)


def tiny_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))


def train_step(model: nn.Module, step: int) -> None:
    generator = torch.Generator().manual_seed(step)
    inputs = torch.randn(16, 4, generator=generator)
    nn.functional.mse_loss(model(inputs), inputs.sum(dim=1, keepdim=True)).backward()


@pytest.mark.parametrize("revision", REVISIONS)
def test_a_training_loop_runs_through_the_client_with_no_network(revision):
    pkg, ref = load(revision), reference(revision)
    model = tiny_model()
    session = ref.LocalSession(model, "adam", learning_rate=1e-2)
    body = required_fields(revision)
    losses = []
    with pkg.Client(api_key="local", transport=ref.LocalTransport(session)) as client:
        for step in range(30):
            train_step(model, step)
            operation = client.optim_step("local-session", **body)
            done = client.wait_for_optim_step("local-session", operation)
            assert done.output.step == facts.step(revision, step + 1)
            with torch.no_grad():
                inputs = torch.randn(64, 4, generator=torch.Generator().manual_seed(99))
                losses.append(
                    nn.functional.mse_loss(model(inputs), inputs.sum(dim=1, keepdim=True)).item()
                )
        assert client.get_optim_step_operation("local-session", operation.id) == done
        with pytest.raises(pkg.NotFoundError) as caught:
            client.get_optim_step_operation("local-session", "optim-step-999")
        assert caught.value.error.error.type == "not_found_error"
    assert losses[-1] < losses[0] * 0.8


def test_the_async_client_runs_on_the_local_transport():
    pkg, ref = load("f4885bc38424"), reference("f4885bc38424")
    model = tiny_model()
    session = ref.LocalSession(model, "muon")

    async def main():
        async with pkg.AsyncClient(
            api_key="local", transport=ref.LocalTransport(session)
        ) as client:
            train_step(model, 0)
            operation = await client.optim_step(
                "s", muon_params={"momentum": 0.9, "adam": {"learning_rate": 1e-3}}
            )
            return await client.wait_for_optim_step("s", operation)

    assert asyncio.run(main()).output.step == "1"


def test_a_failed_step_reaches_the_client_as_operation_failed():
    pkg, ref = load("f4885bc38424"), reference("f4885bc38424")
    session = ref.LocalSession(tiny_model(), "adam")
    with pkg.Client(api_key="local", transport=ref.LocalTransport(session)) as client:
        operation = client.optim_step("s", adam_params={"beta2": 1.0})
        with pytest.raises(pkg.OperationFailedError) as caught:
            client.wait_for_optim_step("s", operation)
    assert caught.value.code == "TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT"
    assert caught.value.message == "adam_params.beta2: must be in [0, 1), got 1.0"


@pytest.fixture
def served():
    """``python -m together_rl.reference.serve`` of the newest revision on a free loopback port."""
    process = subprocess.Popen(
        [sys.executable, "-m", "together_rl.reference.serve", "--port", "0", "--optimizer", "adam"],
        cwd=GENERATED / "f4885bc38424",
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("serving revision f4885bc38424 on http://127.0.0.1:"), line
        assert "one adam session per session id, over the demonstration model" in line
        yield re.search(r"http://[\d.]+:\d+", line).group(0)
    finally:
        process.terminate()
        process.wait(timeout=10)


def post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_the_server_answers_as_the_api_does_over_real_http(served):
    base = f"{served}/v1/rl/training-sessions/s-1/operations/optim-step"
    status, operation = post(base, {"adam_params": {"learning_rate": 1e-3}})
    assert status == 200 and operation["status"] == "TRAINING_OPERATION_STATUS_COMPLETED"
    assert operation["output"] == {"step": "1"}
    assert get(f"{base}/{operation['id']}") == (200, operation)
    status, error = get(f"{base}/optim-step-404")
    assert status == 404 and error["error"]["type"] == "not_found_error"
    # Fields this revision does not know are ignored, as by the API's gateway.
    status, operation = post(
        base, {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS", "adam_params": {"future": 1}}
    )
    assert status == 200 and operation["output"] == {"step": "2"}
    status, operation = post(base, {"adam_params": {"eps": 0}})
    assert operation["status"] == "TRAINING_OPERATION_STATUS_FAILED"
    assert operation["error"] == {
        "code": "TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT",
        "message": "adam_params.eps: must be > 0, got 0",
    }


def test_the_generated_client_talks_to_the_server(served):
    pkg = load("f4885bc38424")
    with pkg.Client(api_key="local", base_url=served + "/v1") as client:
        operation = client.optim_step("s-2", adam_params={"weight_decay": 0.01})
        assert client.wait_for_optim_step("s-2", operation).output.step == "1"
