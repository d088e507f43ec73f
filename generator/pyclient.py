"""The Python view of a revision's operations: one client method per operation, and a waiter for
each operation that has a retrieve twin to poll."""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass

from . import ir
from .errors import UnsupportedConstructError
from .pymodel import PyField, PyModule, PyType, attribute_name, class_name, constraints_of

IDEMPOTENCY_HEADER = "idempotency-key"
"""The header that makes a POST safe to send again (compared without case)."""
_IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


@dataclass(frozen=True)
class PyParameter:
    name: str
    """The Python argument name."""
    key: str
    """The name on the wire."""
    location: str
    required: bool
    description: str | None
    type: PyType

    @property
    def idempotency_key(self) -> bool:
        """Whether this is the header that lets the client send the request again safely: the
        client then makes a key per call where the caller gives none."""
        return self.location == "header" and self.key.lower() == IDEMPOTENCY_HEADER

    @property
    def annotation(self) -> str:
        """Optional in Python where the spec makes it optional, and for the idempotency key."""
        if self.required and not self.idempotency_key:
            return self.type.annotation
        return f"{self.type.annotation} | None"


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
    cookie_parameters: tuple[PyParameter, ...]
    body_model: str | None
    body_fields: tuple[PyBodyField, ...]
    response_model: str | None
    removed_fields: tuple[tuple[str, str], ...] = ()
    """``(argument name, "was removed in revision ...")`` for body fields of earlier revisions:
    passing one raises RevisionMismatchError rather than Python's bare TypeError."""

    @property
    def keyword_parameters(self) -> tuple[PyParameter, ...]:
        """The query, header and cookie parameters: keyword arguments, required ones first (the
        idempotency key last, since the client makes one where the caller gives none)."""
        every = self.query_parameters + self.header_parameters + self.cookie_parameters
        return tuple(
            sorted(
                every, key=lambda p: (p.idempotency_key, not (p.required and not p.idempotency_key))
            )
        )

    @property
    def idempotency_key(self) -> PyParameter | None:
        """The operation's idempotency-key header, where it declares one."""
        return next((p for p in self.header_parameters if p.idempotency_key), None)

    @property
    def resendable(self) -> bool:
        """Whether a request the server may have received can be sent again: an idempotent
        method, or a request that carries an idempotency key."""
        return self.http_method in _IDEMPOTENT_METHODS or self.idempotency_key is not None

    @property
    def path_expression(self) -> str:
        """The path as a Python f-string, each path parameter checked and escaped."""
        expression = self.path
        for p in self.path_parameters:
            call = f"_path_parameter({p.name}, {_quoted(p.key)}, {p.type.writer})"
            expression = expression.replace("{" + p.name + "}", "{" + call + "}")
        return f'f"{expression}"' if self.path_parameters else f'"{expression}"'

    @property
    def helpers(self) -> frozenset[str]:
        """The functions of ``_model`` the parameters' checks use."""
        every = self.path_parameters + self.keyword_parameters
        return frozenset().union(*(p.type.helpers for p in every))

    @property
    def doc(self) -> str:
        """The method's docstring: summary, description, and the arguments (one line each)."""
        parts = [self.summary or f"{self.http_method} {self.path}"]
        if self.description:
            parts.append(self.description)
        args = [(p.name, p.description or p.key) for p in self.path_parameters]
        args += [(f.name, f.description or f.key) for f in self.body_fields]
        for p in self.keyword_parameters:
            text = p.description or p.key
            if p.idempotency_key:
                text += (
                    " A new key is made for each call where none is given; retries send it again."
                )
            args.append((p.name, text))
        if args:
            lines = [f"{name}: {' '.join(text.split())}" for name, text in args]
            parts.append("\n".join(["Args:", *lines]))
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
    def id_name(self) -> str:
        """The Python name of the retrieve operation's id parameter."""
        return next(p.name for p in self.retrieve.path_parameters if p.key == self.id_parameter)

    @property
    def doc(self) -> str:
        status = self.completed.rsplit("_", 1)[0]
        return (
            f"Wait for an operation submitted with ``{self.submit.method_name}`` to finish.\n\n"
            f"Polls it as ``{self.retrieve.method_name}`` does, first after ``interval`` seconds "
            "where an operation is given (at once for an id), the interval doubling up to 5 s. "
            "Nothing runs past the deadline: not a poll, a retry of one, or a wait.\n\n"
            f"Returns the operation once its status is {status}_COMPLETED. Raises "
            "OperationFailedError (with the error's code and message) when it is "
            f"{status}_FAILED, and OperationTimeoutError (a TimeoutError) when it has not "
            "finished after ``timeout`` seconds."
        )


@dataclass(frozen=True)
class PyClient:
    operations: tuple[PyOperation, ...]
    waiters: tuple[PyWaiter, ...]
    server: str
    """The spec's first server URL (``https://api.together.ai/v1``)."""
    error_model: str | None
    """The model of the ``default`` (error) response, shared by the operations."""
    models: tuple[str, ...]
    """Model classes the client module uses."""

    @property
    def base_url(self) -> str:
        """The default base URL: the server's scheme and host (``https://api.together.ai``), as
        the official SDK's ``TOGETHER_BASE_URL`` holds it."""
        parts = urllib.parse.urlsplit(self.server)
        return f"{parts.scheme}://{parts.netloc}" if parts.netloc else self.server

    @property
    def path_prefix(self) -> str:
        """The server URL's path (``/v1``), put before every operation's path."""
        return (
            urllib.parse.urlsplit(self.server).path.rstrip("/")
            if self.base_url != self.server
            else ""
        )

    @property
    def retry_doc(self) -> str:
        """The module docstring's account of the retry rule, for this revision's operations."""
        keyed = [op.method_name for op in self.operations if op.idempotency_key is not None]
        unsafe = [op.method_name for op in self.operations if not op.resendable]
        text = (
            "A call is retried up to ``max_retries`` times, with exponential backoff "
            "and jitter, or after the delay the server asks for (``retry-after-ms``, or "
            "``Retry-After`` in seconds or as an HTTP date, where it is at most 60 s); a "
            "server's ``x-should-retry: true`` or ``false`` decides on its own. A request the "
            "server may receive twice without harm is retried on a connection error, a timeout, "
            "408, 409, 429 and 5xx: a GET"
        )
        if keyed:
            text += (
                ", and a call that carries an idempotency key ("
                + ", ".join(f"``{name}``" for name in keyed)
                + "; the client makes one for each call where none is given, and sends the same "
                "key with every retry, so that the server applies the call once)"
            )
        text += "."
        if unsafe:
            names = ", ".join(f"``{name}``" for name in unsafe)
            text += (
                f" In this revision {names} {'carries' if len(unsafe) == 1 else 'carry'} no "
                "idempotency key, so such a call is never sent twice when the server may have "
                "received it (an optimizer step applied twice silently corrupts a training run): "
                "it is retried only when it provably was not processed, that is when the "
                "connection failed before the request was sent, or on 429."
            )
        return text

    @property
    def helpers(self) -> list[str]:
        """What the client module imports from ``_model`` for its parameters, sorted."""
        return sorted(frozenset().union(*(op.helpers for op in self.operations)))

    @property
    def rejects_removed_fields(self) -> bool:
        """Whether an operation takes body fields of earlier revisions that this one removed."""
        return any(op.removed_fields for op in self.operations)

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


def _quoted(text: str) -> str:
    """A single-quoted Python string (it goes inside a double-quoted f-string)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _parameter(doc: ir.Document, module: PyModule, param: ir.Parameter) -> PyParameter:
    return PyParameter(
        name=attribute_name(param.name),
        key=param.name,
        location=param.location,
        required=param.required,
        description=param.description,
        type=_parameter_type(doc, module, param.schema, param.pointer),
    )


def _parameter_type(doc: ir.Document, module: PyModule, schema: ir.Schema, pointer: str) -> PyType:
    """How a parameter's value is checked before it is sent: a primitive, an enum of the
    models, or a list of those, with the schema's constraints."""
    resolved = doc.resolve(schema)
    enums = {e.name for e in module.enums}
    if isinstance(resolved, ir.Primitive) and resolved.type != "null":
        kind = PyType("primitive", resolved.type)
    elif (
        isinstance(resolved, ir.Enum)
        and isinstance(schema, ir.Ref)
        and class_name(schema.name) in enums
    ):
        kind = PyType("enum", class_name(schema.name))
    elif isinstance(resolved, ir.Enum):
        base = "string" if resolved.type == "string" else "integer"
        kind = PyType("primitive", base, constraints=(("values", resolved.values),))
    elif isinstance(resolved, ir.Array):
        item = _parameter_type(doc, module, resolved.items, pointer)
        if item.kind == "list":
            raise UnsupportedConstructError(pointer, "a parameter that is a list of lists")
        kind = PyType("list", args=(item,))
    else:
        raise UnsupportedConstructError(pointer, "a parameter that is an object or a union")
    limits = constraints_of(resolved) + constraints_of(schema) + kind.constraints
    return PyType(kind.kind, kind.name, kind.args, constraints=tuple(dict(limits).items()))


def _operation(doc: ir.Document, module: PyModule, op: ir.Operation) -> PyOperation:
    if not op.operation_id:
        raise UnsupportedConstructError(
            op.pointer, "an operation without an operationId in a client"
        )
    body_model = None
    fields: tuple[PyBodyField, ...] = ()
    removed: tuple[tuple[str, str], ...] = ()
    if op.request_body and op.request_body.schema:
        body_model = _model_of(op.request_body.schema, op.request_body.pointer)
        model = module.model(body_model)
        removed = tuple((attribute_name(key), note) for key, note in model.other_revisions)
        fields = tuple(PyBodyField(f) for f in model.fields)
    success = next((r for r in op.responses if r.status.startswith("2")), None)
    response_model = None
    if success is not None and success.schema is not None:
        response_model = _model_of(success.schema, success.pointer)
    params = [_parameter(doc, module, p) for p in op.parameters]
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
        cookie_parameters=tuple(p for p in params if p.location == "cookie"),
        body_model=body_model,
        body_fields=fields,
        removed_fields=removed,
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
