"""The view of the usage example in a revision package's README: submit and wait for the first
operation that can be waited for, and build its request body and read its answer as models."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import GeneratorError
from ..literals import pyrepr
from ..reading import ir
from ..reading.values import sample
from .pyclient import PyClient
from .pymodel import PyModule


class ExampleError(GeneratorError):
    """The document has nothing the README's example can show."""


@dataclass(frozen=True)
class Example:
    imports: tuple[str, ...]
    lines: tuple[str, ...]
    submit: str
    call_args: str
    required_args: str
    """The submit call's arguments with only the required body fields."""
    wait: str
    wait_args: str


def example(doc: ir.Document, module: PyModule, client: PyClient) -> Example:
    """README usage: submit and wait for the first operation that has a waiter; build its request
    body and read its success response as models."""
    operation = next(
        (op for op in doc.operations if op.request_body and op.request_body.schema), None
    )
    if operation is None or operation.request_body is None or operation.request_body.schema is None:
        raise ExampleError("the README example needs an operation with a request body")
    body_schema = operation.request_body.schema
    response = next(
        (r for r in operation.responses if r.status.startswith("2") and r.schema is not None), None
    )
    if response is None or response.schema is None:
        raise ExampleError(
            f"the README example needs a success response with a body for {operation.key}"
            f" ({operation.pointer})"
        )
    body, reply = _model_name(body_schema, module), _model_name(response.schema, module)
    body_json = sample(doc, body_schema, optional_object=True)
    reply_json = sample(doc, response.schema)
    waiter = client.waiters[0] if client.waiters else None
    if waiter is None:
        raise ExampleError("the README example needs an operation that can be waited for")
    path_args = ", ".join(
        pyrepr(f"{p.name.replace('_id', '')}-1") for p in waiter.submit.path_parameters
    )
    keywords = ", ".join(f"{k}={pyrepr(v)}" for k, v in body_json.items())
    required = ", ".join(f"{k}={pyrepr(v)}" for k, v in sample(doc, body_schema).items())
    return Example(
        submit=waiter.submit.method_name,
        call_args=", ".join(a for a in (path_args, keywords) if a),
        required_args=", ".join(a for a in (path_args, required) if a),
        wait=waiter.method_name,
        wait_args=", ".join(a for a in (path_args, "operation") if a),
        imports=tuple(sorted({body, reply})),
        lines=(
            f"body = {body}.from_dict({pyrepr(body_json)})",
            "print(body.to_json())",
            "",
            f"reply = {reply}.from_dict({pyrepr(reply_json)})",
            "print(reply)",
        ),
    )


def _model_name(schema: ir.Schema, module: PyModule) -> str:
    if not isinstance(schema, ir.Ref):
        raise ExampleError(
            "the README example needs request and response bodies that are named schemas"
        )
    return module.classes[schema.name]
