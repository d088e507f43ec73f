"""What the tests of the local reference's inputs share, those of the newest revision
(runtime/tests/unit) and those of a revision appended to a copy of the project
(runtime/tests/e2e): a query parameter and a header no revision has, the places of a revision's
document, a tiny model, and steps sent through a transport."""

from __future__ import annotations

import httpx
import torch
import yaml

from generator.reading import ir
from support import facts
from support.nextrevision import Places
from support.paths import SPEC_DIR

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


def tiny_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))


def post(transport, path: str, body: dict, headers: dict | None = None) -> dict:
    """A step through ``transport`` as the API's clients send it; the answer's JSON."""
    request = httpx.Request("POST", f"http://reference{path}", json=body, headers=headers or {})
    response = transport.handle_request(request)
    assert response.status_code == 200, response.text
    return response.json()


def code(operation: dict) -> str:
    return operation["error"]["code"].rpartition("_ERROR_CODE_")[2] if "error" in operation else ""


def backward_of(session) -> None:
    for p in session._params.values():
        p.grad = torch.ones_like(p)
