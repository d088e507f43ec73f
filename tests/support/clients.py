"""What the tests of the generated clients send and script: an API key and a session, the
operations and error bodies a server answers, the keyword arguments of a revision's
``optim_step``, and a client of a revision pointed at a server on loopback."""

from __future__ import annotations

import asyncio
from typing import Any

from generator.reading.values import sample
from generator.views.pymodel import attribute_name
from support import facts
from support.loopback import LoopbackServer, Reply
from support.packages import load

KEY = "sk-test-0123456789"
SESSION = "sess-1"
OPTIM_PATH = f"/v1/rl/training-sessions/{SESSION}/operations/optim-step"
ERROR_BODY = {
    "error": {
        "type": "invalid_request_error",
        "message": "beta1 out of range",
        "param": "beta1",
        "code": None,
    }
}


def operation(status: str = "TRAINING_OPERATION_STATUS_PENDING", **extra: Any) -> dict:
    """An operation as the API answers it (``op-1``)."""
    return {"id": "op-1", "status": status, **extra}


def body_kwargs(revision_id: str) -> dict:
    """Keyword arguments of ``optim_step`` for a revision: its required fields and a nested model
    (and the required query and header parameters, where a revision has any)."""
    doc = facts.document(revision_id)
    operation = doc.operation(facts.ROLES.operation)
    return sample(doc, operation.request_body.schema, optional_object=True)


def required_parameters(revision_id: str) -> dict:
    """Sample values of the required query and header parameters of ``optim_step``."""
    doc = facts.document(revision_id)
    return {
        attribute_name(p.name): sample(doc, p.schema)
        for p in doc.operation(facts.ROLES.operation).parameters
        if p.required and p.location in ("query", "header") and p.name.lower() != "idempotency-key"
    }


def client_for(revision_id: str, server: LoopbackServer, **options: Any):
    """The sync client of ``revision_id`` talking to ``server`` (two retries unless told)."""
    pkg = load(revision_id)
    options.setdefault("max_retries", 2)
    return pkg.Client(api_key=KEY, base_url=server.url, **options)


def async_client_sends_and_waits(revision_id: str, server: LoopbackServer) -> None:
    """The async client of ``revision_id`` sends a step with the revision's fields and waits for
    it until it completes."""
    pkg = load(revision_id)
    server.script(
        Reply(200, operation()),
        Reply(200, operation("TRAINING_OPERATION_STATUS_COMPLETED", output={"step": "1"})),
    )
    kwargs = body_kwargs(revision_id)

    async def main():
        async with pkg.AsyncClient(api_key=KEY, base_url=server.url) as client:
            submitted = await client.optim_step(
                SESSION, **kwargs, **required_parameters(revision_id)
            )
            return await client.wait_for_optim_step(SESSION, submitted, interval=0.01)

    assert asyncio.run(main()).output.step == "1"
    assert server.seen[0].json() == kwargs
