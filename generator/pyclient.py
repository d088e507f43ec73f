"""The Python view of a revision's operations: one client method per operation, and a waiter for
each operation that has a retrieve twin to poll."""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import ir
from .errors import UnsupportedConstructError
from .pymodel import PyField, PyModule, attribute_name, class_name


@dataclass(frozen=True)
class PyParameter:
    name: str
    """The Python argument name."""
    key: str
    """The name on the wire."""
    location: str
    required: bool
    description: str | None


@dataclass(frozen=True)
class PyBodyField:
    """A body field, as a keyword argument of a client method."""

    field: PyField

    @property
    def name(self) -> str:
        return self.field.name

    @property
    def key(self) -> str:
        return self.field.key

    @property
    def required(self) -> bool:
        return self.field.required

    @property
    def model(self) -> str | None:
        """The model class a plain dict is read as, for fields that hold a model."""
        return self.field.model

    @property
    def description(self) -> str | None:
        return self.field.doc

    @property
    def classes(self) -> frozenset[str]:
        """The generated classes the argument's annotation names."""
        return self.field.type.classes

    @property
    def annotation(self) -> str:
        """What the keyword argument accepts: the field's own type, and a plain dict in the wire
        format where the field holds a model."""
        if self.model is None:
            return self.field.annotation
        optional = "" if self.required else " | Unset"
        return f"{self.field.type.annotation} | Mapping[str, Any]{optional}"


@dataclass(frozen=True)
class PyOperation:
    key: str
    """The operation's ``"METHOD /path"``, as the IR names it."""
    method_name: str
    http_method: str
    path: str
    """The path as an f-string body: ``/rl/training-sessions/{session_id}/...``."""
    summary: str | None
    description: str | None
    path_parameters: tuple[PyParameter, ...]
    query_parameters: tuple[PyParameter, ...]
    header_parameters: tuple[PyParameter, ...]
    body_model: str | None
    body_fields: tuple[PyBodyField, ...]
    response_model: str | None

    @property
    def path_expression(self) -> str:
        """The path as a Python f-string, each path parameter checked and escaped."""
        expression = self.path
        for p in self.path_parameters:
            expression = expression.replace(
                "{" + p.name + "}", "{_path_parameter(" + p.name + ", '" + p.key + "')}"
            )
        return f'f"{expression}"' if self.path_parameters else f'"{expression}"'

    @property
    def doc(self) -> str:
        """The method's docstring: summary, description, and the arguments."""
        parts = [self.summary or f"{self.http_method} {self.path}"]
        if self.description:
            parts.append(self.description)
        args = [f"{p.name}: {p.description or p.key}" for p in self.path_parameters]
        args += [f"{f.name}: {f.description or f.key}" for f in self.body_fields]
        args += [
            f"{p.name}: {p.description or p.key}"
            for p in self.query_parameters + self.header_parameters
        ]
        if args:
            parts.append("\n".join(["Args:", *args]))
        if self.response_model:
            parts.append(f"Returns the {self.response_model}.")
        return "\n\n".join(parts)


@dataclass(frozen=True)
class PyWaiter:
    """``wait_for_<submit>``: polls ``retrieve`` until the operation completes or fails."""

    method_name: str
    submit: PyOperation
    retrieve: PyOperation
    model: str
    status_enum: str
    completed: str
    """Member names of the terminal statuses."""
    failed: str
    id_parameter: str
    """The retrieve operation's path parameter that takes the operation id."""

    @property
    def doc(self) -> str:
        status = self.completed.rsplit("_", 1)[0]
        return (
            f"Wait for an operation submitted with ``{self.submit.method_name}`` to finish.\n\n"
            f"Polls ``{self.retrieve.method_name}``, first after ``interval`` seconds, the interval "
            f"doubling up to 5 s and never sleeping past the deadline.\n\n"
            f"Returns the operation once its status is {status}_COMPLETED. Raises OperationFailedError "
            f"(with the error's code and message) when it is {status}_FAILED, and OperationTimeoutError "
            f"(a TimeoutError) when it has not finished after ``timeout`` seconds."
        )


@dataclass(frozen=True)
class PyClient:
    operations: tuple[PyOperation, ...]
    waiters: tuple[PyWaiter, ...]
    server: str
    error_model: str | None
    """The model of the ``default`` (error) response, shared by the operations."""
    models: tuple[str, ...]
    """Model classes the client module uses."""

    @property
    def waiter_models(self) -> list[str]:
        """The models of the operations the waiters wait for, sorted."""
        return sorted({w.model for w in self.waiters})

    @property
    def exception_models(self) -> list[str]:
        """The models the exceptions hold: the waited-for operations and the error body."""
        return sorted(set(self.waiter_models) | ({self.error_model} if self.error_model else set()))


def build_client(doc: ir.Document, module: PyModule) -> PyClient:
    operations = tuple(_operation(doc, module, op) for op in doc.operations)
    waiters = tuple(w for w in (_waiter(module, a, b) for a in operations for b in operations) if w)
    used = {name for op in operations for name in (op.body_model, op.response_model) if name}
    used |= {name for op in operations for f in op.body_fields for name in f.classes}
    used |= {w.status_enum for w in waiters}
    errors = {
        _model_of(r.schema, r.pointer)
        for op in doc.operations
        for r in op.responses
        if r.schema is not None and not r.status.startswith("2")
    }
    used |= errors
    if len(errors) > 1:
        raise UnsupportedConstructError(
            "/paths", f"several error response models ({', '.join(sorted(errors))})"
        )
    return PyClient(
        operations=operations,
        waiters=waiters,
        server=doc.servers[0] if doc.servers else "",
        error_model=next(iter(errors), None),
        models=tuple(sorted(used)),
    )


def _parameter(param: ir.Parameter) -> PyParameter:
    return PyParameter(
        attribute_name(param.name), param.name, param.location, param.required, param.description
    )


def _operation(doc: ir.Document, module: PyModule, op: ir.Operation) -> PyOperation:
    if not op.operation_id:
        raise UnsupportedConstructError(
            op.pointer, "an operation without an operationId in a client"
        )
    body_model = None
    fields: tuple[PyBodyField, ...] = ()
    if op.request_body and op.request_body.schema:
        body_model = _model_of(op.request_body.schema, op.request_body.pointer)
        model = module.model(body_model)
        fields = tuple(PyBodyField(f) for f in model.fields)
    success = next((r for r in op.responses if r.status.startswith("2")), None)
    response_model = None
    if success is not None and success.schema is not None:
        response_model = _model_of(success.schema, success.pointer)
    params = [_parameter(p) for p in op.parameters]
    path = op.path
    for p in params:
        if p.location == "path":
            path = path.replace("{" + p.key + "}", "{" + p.name + "}")
    return PyOperation(
        key=op.key,
        method_name=attribute_name(op.operation_id),
        http_method=op.method.upper(),
        path=path,
        summary=op.summary,
        description=op.description,
        path_parameters=tuple(p for p in params if p.location == "path"),
        query_parameters=tuple(p for p in params if p.location == "query"),
        header_parameters=tuple(p for p in params if p.location == "header"),
        body_model=body_model,
        body_fields=fields,
        response_model=response_model,
    )


def _model_of(schema: ir.Schema, pointer: str) -> str:
    if not isinstance(schema, ir.Ref):
        raise UnsupportedConstructError(pointer, "an inline request or response schema in a client")
    return class_name(schema.name)


def _waiter(module: PyModule, submit: PyOperation, retrieve: PyOperation) -> PyWaiter | None:
    """A waiter when ``retrieve`` GETs ``submit``'s path plus ``/{id}`` and both return the same
    model, whose ``status`` enum has ``..._COMPLETED`` and ``..._FAILED`` values."""
    if (
        submit.http_method != "POST"
        or retrieve.http_method != "GET"
        or submit.response_model is None
    ):
        return None
    match = re.fullmatch(re.escape(submit.path) + r"/\{(\w+)\}", retrieve.path)
    if not match or retrieve.response_model != submit.response_model:
        return None
    model = module.model(submit.response_model)
    status = next((f for f in model.fields if f.key == "status"), None)
    if (
        status is None
        or model.fields[0].key != "id"
        or status.type.kind != "enum"
        or status.type.strict
        or status.type.nullable
    ):
        return None
    enum_name = status.type.name
    members = [m for m, _ in next(e for e in module.enums if e.name == enum_name).members]
    completed = next((m for m in members if m.endswith("_COMPLETED")), None)
    failed = next((m for m in members if m.endswith("_FAILED")), None)
    if completed is None or failed is None:
        return None
    return PyWaiter(
        method_name=f"wait_for_{submit.method_name}",
        submit=submit,
        retrieve=retrieve,
        model=submit.response_model,
        status_enum=enum_name,
        completed=completed,
        failed=failed,
        id_parameter=match.group(1),
    )
