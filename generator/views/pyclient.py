"""The Python view of a revision's operations: one client method per operation, and a waiter for
each operation that has a retrieve twin to poll."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

from .. import literals
from ..errors import SpecError, UnsupportedConstructError
from ..reading import ir
from ..reading.parser import FORM, MULTIPART, is_json, media_essence
from ..reading.runtime import CLIENT_HELPERS
from ..reading.statuses import Kind, StatusKinds, by_name
from ..reading.values import constraints_of
from .naming import Claim
from .pymodel import (
    Names,
    PyField,
    PyModule,
    PyType,
    attribute_name,
    body_fields,
    downloads,
    other_kind,
    primitive_type,
    streams,
    success_kind,
    success_response,
)

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
    style: str = "plain"
    """How the value travels: ``plain`` (a primitive as text, an array as a repeated query
    key), ``json`` (JSON text, for a parameter described by ``content``), or the parameter's
    OpenAPI style (``form``, ``deepObject``, ``simple``, ...) for arrays and objects."""
    explode: bool = False
    allow_reserved: bool = False
    """A query parameter's ``allowReserved`` (only styled parameters have it)."""

    @property
    def serializer(self) -> str:
        """The call that writes the value for the request (the arguments it takes follow)."""
        if self.idempotency_key and self.style == "plain":
            return "_idempotency_key_of"
        if self.style == "plain":
            return "_path_parameter" if self.location == "path" else "_parameter"
        return {
            "path": "_styled_path",
            "query": "_query",
            "header": "_styled",
            "cookie": "_cookie",
        }[self.location]

    @property
    def spreads(self) -> bool:
        """Whether the serializer makes pairs of its own (an exploded object's keys, a key
        repeated) that the call spreads into the location's mapping, rather than a value."""
        return self.serializer in ("_query", "_cookie")

    def call(self, quoted: Callable[[str], str] = literals.pyrepr) -> list[str]:
        """The serializer's arguments: the value, the name (for errors and the wire), the
        writer, and for styled values the style and explode (and ``allowReserved`` where it is
        set); strings written by ``quoted`` (double-quoted, as black writes them)."""
        arguments = [self.name, quoted(self.key), self.type.writer]
        if self.style != "plain":
            arguments += [quoted(self.style), str(self.explode)]
        if self.allow_reserved:
            arguments.append("True")
        return arguments

    def path_call(self) -> literals.Code:
        """The call that writes this path parameter into the path, with its strings
        single-quoted so that it can stand inside an f-string where they need no escape."""
        return literals.Code(f"{self.serializer}({', '.join(self.call(_argument))})")

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
        return self.type.optional_annotation


@dataclass(frozen=True)
class PyBodyField:
    """A body field, as a keyword argument of a client method."""

    field: PyField
    argument: str = ""
    """The argument's name (the field's own, unless another argument has it)."""

    @property
    def name(self) -> str:
        return self.argument or self.field.name

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
class PyBody:
    """An operation's request body, as the method takes it: a model's fields as keyword
    arguments (JSON, a form, multipart), or one ``body`` argument (any other JSON, raw bytes)."""

    kind: Literal["json", "form", "multipart", "bytes"]
    content_type: str
    model: str | None
    """The model whose fields are the keyword arguments."""
    fields: tuple[PyBodyField, ...]
    type: PyType | None
    """The type of the ``body`` argument, where there is no model (``None`` for raw bytes)."""
    required: bool
    parts: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    """A multipart body's fields' own headers (their ``Content-Type`` among them), by the
    field's key: the document's ``encoding``, and a file's ``contentMediaType``."""

    @property
    def sent_content_type(self) -> str | None:
        """The content type a JSON body is sent with where it is not plain ``application/json``
        (``application/merge-patch+json``): the document's, kept."""
        if self.kind == "json" and media_essence(self.content_type) != "application/json":
            return self.content_type
        return None

    @property
    def encoding(self) -> str:
        """The ``parts`` as the expression the runtime takes: ``{"file": {"Content-Type": ...}}``."""
        return literals.pyrepr({key: dict(headers) for key, headers in self.parts})

    @property
    def annotation(self) -> str:
        """The ``body`` argument's annotation."""
        if self.type is None:
            return "bytes" if self.required else "bytes | None"
        return self.type.annotation if self.required else self.type.optional_annotation


@dataclass(frozen=True)
class PyResponse:
    """What a method returns: a JSON value read by ``type``'s reader, bytes, text, an iterator
    of server-sent events, or nothing."""

    kind: Literal["json", "bytes", "text", "events", "chunks", "none"]
    type: PyType | None = None
    other: Literal["bytes", "text"] | None = None
    """For a JSON response that the operation also offers as another media type: what a
    response of another type is returned as (the response's ``Content-Type`` says which)."""

    @property
    def model(self) -> str | None:
        """The model a JSON response is, where it is one."""
        if self.type is not None and self.type.kind == "model" and not self.type.nullable:
            return self.type.name
        return None

    def annotation(self, is_async: bool) -> str:
        if self.kind == "json":
            assert self.type is not None
            if self.other is not None:
                return f"{self.type.read_annotation} | {_PYTHON_OF[self.other]}"
            return self.type.read_annotation
        if self.kind in ("events", "chunks"):
            item = "ServerSentEvent" if self.kind == "events" else "bytes"
            return f"AsyncIterator[{item}]" if is_async else f"Iterator[{item}]"
        return _PYTHON_OF[self.kind]


_PYTHON_OF = {"bytes": "bytes", "text": "str", "none": "None"}


ERRORS_BY_STATUS_SINCE = "1.2"
"""The runtime release from which ``status_error`` takes the error models by status."""
MEDIA_TYPES_SINCE = "1.3"
"""The runtime release that sends multipart bodies part by part (``encoding=``), reads a
response by its media type (``_parse_or``) and streams a download (``_download``)."""


@dataclass(frozen=True)
class PyOperation:
    key: str
    """The operation's ``"METHOD /path"``, as the IR names it."""
    method_name: str
    http_method: str
    template: str
    """The path as the document writes it, placeholders named by their parameters."""
    summary: str | None
    description: str | None
    path_parameters: tuple[PyParameter, ...]
    query_parameters: tuple[PyParameter, ...]
    header_parameters: tuple[PyParameter, ...]
    cookie_parameters: tuple[PyParameter, ...]
    body: PyBody | None
    response: PyResponse
    error_models: tuple[tuple[str, str], ...] = ()
    """The models of the operation's error responses, by status (``"409"``, ``"4XX"``,
    ``"default"``), where they have one."""
    removed_fields: tuple[tuple[str, str], ...] = ()
    """``(argument name, "was removed in revision ...")`` for body fields of earlier revisions:
    passing one raises RevisionMismatchError rather than Python's bare TypeError."""
    auth: str | None = None
    """The security scheme whose credentials the call sends (``None``: none)."""
    auth_optional: bool = False
    """Whether the operation also takes calls without credentials."""

    @property
    def body_model(self) -> str | None:
        return self.body.model if self.body is not None else None

    @property
    def body_fields(self) -> tuple[PyBodyField, ...]:
        return self.body.fields if self.body is not None else ()

    @property
    def response_model(self) -> str | None:
        return self.response.model

    @property
    def error_model(self) -> str | None:
        """What the call reads error bodies with, as an expression: the one model of every
        error response, or a dict of the models by status where the responses differ
        (``{"409": Conflict, "default": ErrorData}``)."""
        names = {name for _, name in self.error_models}
        if len(names) <= 1:
            return next(iter(names), None)
        return (
            "{"
            + ", ".join(f"{literals.pyrepr(status)}: {name}" for status, name in self.error_models)
            + "}"
        )

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
    def path(self) -> str:
        """The path with each placeholder named by its argument:
        ``/rl/training-sessions/{session_id}/...``."""
        by_key = {p.key: p.name for p in self.path_parameters}
        return _PLACEHOLDER.sub(lambda m: "{" + by_key[m[1]] + "}", self.template)

    @property
    def path_expression(self) -> str:
        """The path as a Python expression: the document's literal text percent-encoded as a
        URL's path requires, each path parameter checked and escaped by the runtime."""
        by_key = {p.key: p for p in self.path_parameters}
        parts: list[str | literals.Code] = []
        for number, piece in enumerate(_PLACEHOLDER.split(self.template)):
            parts.append(by_key[piece].path_call() if number % 2 else _path_text(piece))
        return literals.fstring(parts)

    def joins(self, location: str) -> bool:
        """Whether the pairs of the ``location``'s parameters are joined (``_joined``) rather
        than spread into one mapping: where one of them makes pairs of its own and another
        parameter is there too, a key both write (two exploded objects that share a field name)
        is then sent for each, not for the last alone."""
        here = [p for p in self.keyword_parameters if p.location == location]
        return len(here) > 1 and any(p.spreads for p in here)

    @property
    def helpers(self) -> frozenset[str]:
        """The functions of ``_model`` the parameters' checks and the body and response use."""
        return self._checks(lambda kind, reading: kind.helpers_of(reading=reading))

    @property
    def functions(self) -> frozenset[str]:
        """The readers and writers of recursive aliases its checks call (see :attr:`helpers`)."""
        return self._checks(lambda kind, reading: kind.functions_of(reading=reading))

    def _checks(self, used_by: Callable[[PyType, bool], frozenset[str]]) -> frozenset[str]:
        """What ``used_by`` finds in the writers of the parameters and the body and in the
        response's reader (a model's body or response is its class's to read and write)."""
        every = self.path_parameters + self.keyword_parameters
        used = frozenset().union(*(used_by(p.type, False) for p in every))
        if self.body is not None and self.body.model is None and self.body.type is not None:
            used |= used_by(self.body.type, False)
        if self.response.type is not None and self.response.model is None:
            used |= used_by(self.response.type, True)
        return used

    @property
    def classes(self) -> frozenset[str]:
        """The generated classes the method's arguments and result name, and the functions of
        recursive aliases that write its arguments and read its result."""
        used: set[str] = set(self.functions)
        if self.body is not None:
            used |= {self.body.model} if self.body.model else set()
            used |= frozenset().union(*(f.classes for f in self.body.fields))
            if self.body.type is not None:
                used |= self.body.type.classes
        if self.response.type is not None:
            used |= self.response.type.classes
        for p in self.path_parameters + self.keyword_parameters:
            used |= p.type.classes
        return frozenset(used)

    @property
    def doc(self) -> str:
        """The method's docstring: summary, description, and the arguments (one line each)."""
        parts = [self.summary or f"{self.http_method} {self.path}"]
        if self.description:
            parts.append(self.description)
        args = [(p.name, p.description or p.key) for p in self.path_parameters]
        args += [(f.name, f.description or f.key) for f in self.body_fields]
        if self.body is not None and self.body.model is None:
            args.append(("body", "The request body."))
        for p in self.keyword_parameters:
            text = p.description or p.key
            if p.idempotency_key:
                text += " The operation's idempotency key (see the module's docstring)."
            args.append((p.name, text))
        if args:
            lines = [f"{name}: {' '.join(text.split())}" for name, text in args]
            parts.append("\n".join(["Args:", *lines]))
        if self.response.model and self.response.other:
            parts.append(
                f"Returns the {self.response.model}, or the response's {self.response.other}"
                " where the server answers with another media type than JSON."
            )
        elif self.response.model:
            parts.append(f"Returns the {self.response.model}.")
        elif self.response.kind == "events":
            parts.append("Returns the server-sent events as they arrive.")
        elif self.response.kind == "chunks":
            parts.append(
                "Returns the response's bytes in pieces as they arrive: a download of any"
                " size, which ``max_response_bytes`` does not bound."
            )
        elif self.response.kind in ("bytes", "text"):
            parts.append(f"Returns the response's {self.response.kind}.")
        return "\n\n".join(parts)


@dataclass(frozen=True)
class PyWaiter:
    """``wait_for_<submit>``: polls ``retrieve`` until the operation's status is terminal."""

    method_name: str
    submit: PyOperation
    retrieve: PyOperation
    model: str
    status_enum: str
    statuses: tuple[tuple[str, str, Kind | None], ...]
    """Every member of the status enum: ``(member name, value, kind)``; the kind is ``None``
    for a value the status data has no entry for (polled on, as in progress)."""
    statuses_source: str
    """Where the kinds come from (the data file, or the values' names)."""
    id_parameter: str
    """The retrieve operation's path parameter that takes the operation id."""

    def members(self, kind: Kind | None) -> tuple[str, ...]:
        """The member names of the status values of one kind."""
        return tuple(member for member, _, k in self.statuses if k == kind)

    @property
    def constant(self) -> str:
        """The client module's table of the statuses' kinds for this waiter."""
        return f"_{self.submit.method_name.upper()}_STATUSES"

    @property
    def id_name(self) -> str:
        """The Python name of the retrieve operation's id parameter."""
        return next(p.name for p in self.retrieve.path_parameters if p.key == self.id_parameter)

    def listed(self, kind: Kind, quote: str = "``") -> str:
        """The status values of one kind, quoted and joined: ```A``, ``B`` or ``C```."""
        names = [f"{quote}{value}{quote}" for _, value, k in self.statuses if k == kind]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]

    def doc(self, behaviour: str) -> str:
        """The waiter's docstring: what it waits for, and which statuses end the wait how, in
        this revision; how it polls is the client core's, which ``behaviour`` names."""
        values = self.listed
        raises = []
        if self.members("failed"):
            raises.append(
                f"OperationFailedError (with the error's code and message) when it is "
                f"{values('failed')}"
            )
        if self.members("cancelled"):
            raises.append(f"OperationCancelledError when it is {values('cancelled')}")
        raises.append(
            "OperationTimeoutError (a TimeoutError) when it has not finished after ``timeout`` "
            "seconds"
        )
        listed = ", ".join(raises[:-1]) + ", and " + raises[-1] if len(raises) > 1 else raises[0]
        return (
            f"Wait for an operation submitted with ``{self.submit.method_name}`` to finish, "
            f"reading it as ``{self.retrieve.method_name}`` does.\n\n"
            f"Returns the operation once its status is {values('succeeded')}. Raises {listed}. "
            "How it polls (from ``interval`` seconds on), its deadline and a status this package "
            f"does not know (one a later revision of the API added) are the runtime's: {behaviour}."
        )


@dataclass(frozen=True)
class PyAuthScheme:
    """A security scheme of the document, as the runtime's ``AuthScheme`` sends the key."""

    name: str
    """The scheme's name in the document (what an operation's requirement names)."""
    kind: Literal["bearer", "basic", "header", "query", "cookie"]
    parameter: str = "Authorization"


@dataclass(frozen=True)
class PyClient:
    operations: tuple[PyOperation, ...]
    waiters: tuple[PyWaiter, ...]
    server: str
    """The spec's first server URL (``https://api.together.ai/v1``)."""
    error_models: tuple[str, ...]
    """The models of the operations' error responses."""
    models: tuple[str, ...]
    """Model classes the client module uses."""
    schemes: tuple[PyAuthScheme, ...] = ()
    """The security schemes the operations send credentials by."""
    revision_package: bool = False
    """A package of the Together RL API's stream of revisions (whose docs speak of training),
    rather than of one document of any API."""

    @property
    def key_required(self) -> bool:
        """Whether every operation needs the API key (then the client needs it when made)."""
        return all(op.auth is not None and not op.auth_optional for op in self.operations)

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
    def behaviour(self) -> str:
        """Where what a client does (its options, retries, bounds and waits) is told, once: the
        runtime's docs, or the copy of the client core that a package of one document carries."""
        if self.revision_package:
            return (
                "see the runtime's README (``together-rl-runtime`` on the package index) and "
                "the docstring of ``together_rl_runtime._client``"
            )
        return "see the docstring of ``_runtime._client``, this package's copy of the client core"

    @property
    def behaviour_owner(self) -> str:
        """Whose that behaviour is, as the packages' text names it."""
        return "the runtime's" if self.revision_package else "the client core's"

    @property
    def retry_doc(self) -> str:
        """The module docstring's account of what this revision's operations are to the retry
        rule: idempotent, carrying an idempotency key, or neither. The rule is the runtime's."""
        facts = []
        for op in self.operations:
            key = op.idempotency_key
            if key is not None:
                facts.append(
                    f"``{op.method_name}`` carries an idempotency key (the ``{key.key}`` header)"
                )
            elif op.resendable:
                facts.append(
                    f"``{op.method_name}`` is a {op.http_method}, idempotent as HTTP defines it"
                )
            else:
                facts.append(
                    f"``{op.method_name}`` is a {op.http_method} that carries no idempotency key"
                )
        return (
            "What this revision defines of its operations for the retry rule: "
            + "; ".join(facts)
            + ". A call that is idempotent or carries a key may be sent again once the server may "
            "have received it, any other call never is; the rule itself (which failures are "
            f"retried, how often, after which waits) is {self.behaviour_owner}: {self.behaviour}."
        )

    @property
    def runtime_imports(self) -> list[str]:
        """What the client module imports from the runtime: the client bases, and the helpers
        and checks its methods use (sorted: constants, classes, functions). The helpers the
        methods call are imported under a leading underscore (``wire as _wire``), so that no
        argument can shadow them."""
        ops = self.operations
        used = {"AsyncAPIClient", "ClientSpec", "SyncAPIClient"}
        if self.schemes:
            used.add("AuthScheme")
        used |= frozenset().union(*(op.helpers for op in ops))
        if any(not f.required for op in ops for f in op.body_fields):
            used |= {"UNSET", "Unset"}
        called = {p.serializer.removeprefix("_") for op in ops for p in op.path_parameters} | {
            p.serializer.removeprefix("_") for op in ops for p in op.keyword_parameters
        }
        wanted = {
            "wire": any(op.body_model for op in ops),
            "form": any(op.body is not None and op.body.kind == "form" for op in ops),
            "status_error": any(op.response.kind in ("bytes", "text", "none") for op in ops),
            "joined": any(op.joins(where) for op in ops for where in ("query", "cookie")),
        }
        called |= {name for name, needed in wanted.items() if needed}
        if any(op.removed_fields for op in ops):
            used.add("rejecting_removed_fields")
        if self.streams:
            used.add("ServerSentEvent")
        assert called <= CLIENT_HELPERS
        names = sorted(used | called, key=lambda n: (not n.isupper(), n[0].islower(), n))
        return [f"{name} as _{name}" if name in called else name for name in names]

    @property
    def annotations(self) -> str:
        """Every annotation the client's methods write, joined (to find what they name)."""
        texts = [
            op.response.annotation(is_async) for op in self.operations for is_async in (False, True)
        ]
        for op in self.operations:
            texts += [f.annotation for f in op.body_fields]
            texts += [p.annotation for p in op.path_parameters + op.keyword_parameters]
            if op.body is not None and op.body.model is None:
                texts.append(op.body.annotation)
        return " ".join(texts)

    def names(self, *candidates: str) -> list[str]:
        """Those of ``candidates`` that the methods' annotations name."""
        found = set(re.findall(r"\w+", self.annotations))
        return [name for name in candidates if name in found]

    @property
    def rejects_removed_fields(self) -> bool:
        """Whether an operation takes body fields of earlier revisions that this one removed."""
        return any(op.removed_fields for op in self.operations)

    @property
    def waiter_errors(self) -> list[str]:
        """The errors the waiters raise, sorted."""
        kinds = {k for w in self.waiters for _, _, k in w.statuses}
        errors = {"OperationTimeoutError"} if self.waiters else set()
        errors |= {"OperationFailedError"} if "failed" in kinds else set()
        errors |= {"OperationCancelledError"} if "cancelled" in kinds else set()
        return sorted(errors)

    @property
    def waiter_models(self) -> list[str]:
        """The models of the operations the waiters wait for, sorted."""
        return sorted({w.model for w in self.waiters})

    @property
    def runtime_releases(self) -> tuple[str, ...]:
        """The runtime releases (``major.minor``) the client needs beyond its major version's
        first: reading error bodies by status needs 1.2; multipart bodies and responses read
        by their media type need 1.3."""
        by_status = any(
            op.error_model is not None and op.error_model.startswith("{") for op in self.operations
        )
        media = any(
            op.response.other is not None
            or op.response.kind == "chunks"
            or (op.body is not None and op.body.kind == "multipart")
            for op in self.operations
        )
        return (
            *((ERRORS_BY_STATUS_SINCE,) if by_status else ()),
            *((MEDIA_TYPES_SINCE,) if media else ()),
        )

    @property
    def error_annotation(self) -> str:
        """The type of ``APIStatusError.error``: the error models, or ``Any`` where none."""
        return " | ".join(self.error_models) or "Any"

    @property
    def exception_models(self) -> list[str]:
        """The models the exceptions hold: the waited-for operations and the error bodies."""
        return sorted(set(self.waiter_models) | set(self.error_models))

    @property
    def files(self) -> bool:
        """Whether a method takes files (so that the module imports ``IO``)."""
        return any(
            (op.body.type is not None and op.body.type.files)
            or any(f.field.type.files for f in op.body_fields)
            for op in self.operations
            if op.body is not None
        )

    @property
    def streams(self) -> bool:
        """Whether a method returns server-sent events."""
        return any(op.response.kind == "events" for op in self.operations)


def build_client(
    doc: ir.Document,
    module: PyModule,
    statuses: StatusKinds | None = None,
    *,
    revision_package: bool = False,
) -> PyClient:
    """The client of ``doc``, its methods and arguments named as ``module.names`` says;
    ``statuses`` says what each status value means to a waiter (``None``: read from the values'
    names). A package of one document names how each operation sends the API key; a revision's
    package (``revision_package``) sends it as a bearer token on every request, the runtime's
    default and the API's scheme."""
    names = module.names
    assert names is not None
    operations: list[PyOperation] = []
    for source in doc.operations:
        operations += _operations(doc, module, names, source)
    # a waiter pairs a POST with the GET of its path plus "/{id}": the GETs by their parent path
    gets: dict[str, list[PyOperation]] = {}
    for op in operations:
        parent = re.fullmatch(r"(.*)/\{\w+\}", op.path)
        if op.http_method == "GET" and parent:
            gets.setdefault(parent.group(1), []).append(op)
    pairs = ((submit, retrieve) for submit in operations for retrieve in gets.get(submit.path, []))
    waiters = tuple(w for w in (_waiter(module, a, b, statuses) for a, b in pairs) if w)
    used = frozenset().union(*(op.classes for op in operations))
    used |= {w.status_enum for w in waiters}
    errors = {name for op in operations for _, name in op.error_models}
    schemes = auth_schemes(doc)
    named = {op.auth for op in operations if op.auth is not None}
    return PyClient(
        operations=tuple(operations),
        waiters=waiters,
        server=doc.servers[0] if doc.servers else "",
        error_models=tuple(sorted(errors)),
        models=tuple(sorted(used | errors)),
        schemes=(
            () if revision_package else tuple(schemes[name] for name in schemes if name in named)
        ),
        revision_package=revision_package,
    )


def _argument(text: str) -> str:
    """A string argument of a path parameter's call: single-quoted where it can stand inside
    an f-string as it is, else double-quoted (the path is then not an f-string)."""
    quoted = literals.fstring_argument(text)
    return quoted if quoted is not None else literals.pyrepr(text)


_PLACEHOLDER = re.compile(r"\{([^}]*)\}")
"""A path template's placeholder; ``split`` gives the literal text and the names by turns."""

_PCHAR = "!$&'()*+,;=:@/-._~"
"""What a URL's path holds as it is besides letters and digits (RFC 3986: ``pchar`` and ``/``)."""


def _path_text(text: str) -> str:
    """The literal text of a path as it travels: every character a URL's path cannot hold
    percent-encoded (RFC 3986), an escape the document already wrote (``%20``) kept."""
    return re.sub(
        r"%(?![0-9A-Fa-f]{2})|[^%]+",
        lambda m: urllib.parse.quote(m[0], safe=_PCHAR),
        text,
    )


def _parameter(
    doc: ir.Document, module: PyModule, names: Names, op: ir.Operation, param: ir.Parameter
) -> PyParameter:
    given = module.operations[op.route].parameters.get((param.location, param.name))
    if given is None:
        kind, style, explode = (
            _parameter_type(doc, module, param.schema, param.pointer),
            "plain",
            False,
        )
    else:
        style, explode = ("json", False) if param.content_type else param.how
        kind = given
    return PyParameter(
        name=names.arguments_of(op.route).get((param.location, param.name)),
        key=param.name,
        location=param.location,
        required=param.required,
        description=param.description,
        type=kind,
        style=style,
        explode=explode,
        allow_reserved=param.allow_reserved and given is not None,
    )


def _parameter_type(doc: ir.Document, module: PyModule, schema: ir.Schema, pointer: str) -> PyType:
    """How a plain parameter's value is checked before it is sent: a primitive, an enum of the
    models, or a list of those, with the schema's constraints."""
    resolved = doc.resolve(schema)
    if isinstance(resolved, ir.Primitive) and resolved.type != "null":
        kind = primitive_type(resolved)
    elif (
        isinstance(resolved, ir.Enum)
        and isinstance(schema, ir.Ref)
        and module.is_enum(module.classes.get(schema.name))
    ):
        kind = PyType("enum", module.classes[schema.name], integer=resolved.type == "integer")
    elif isinstance(resolved, ir.Enum):
        kind = PyType("primitive", resolved.type, constraints=(("values", resolved.values),))
    elif isinstance(resolved, ir.Array):
        item = _parameter_type(doc, module, resolved.items, pointer)
        if item.kind == "list":
            raise UnsupportedConstructError(pointer, "a parameter that is a list of lists")
        kind = PyType("list", args=(item,))
    else:  # pragma: no cover - pymodel.plain_parameter says which parameters are plain
        raise UnsupportedConstructError(pointer, "a parameter that is an object or a union")
    limits = constraints_of(resolved) + constraints_of(schema) + kind.constraints
    return PyType(kind.kind, kind.name, kind.args, constraints=tuple(dict(limits).items()))


def _operations(
    doc: ir.Document, module: PyModule, names: Names, op: ir.Operation
) -> list[PyOperation]:
    """The methods of an operation: one, and a ``_stream`` twin where a JSON response can also
    come as server-sent events."""
    types = module.operations[op.route]
    params = [_parameter(doc, module, names, op, p) for p in op.parameters]
    declared = {p.key for p in params if p.location == "path"}
    template = set(_PLACEHOLDER.findall(op.path))
    if declared != template:
        missing = sorted(template - declared)
        extra = sorted(declared - template)
        problem = (
            f"the path's placeholders {missing} have no path parameter"
            if missing
            else f"the path parameters {extra} are not in the path"
        )
        raise SpecError(op.pointer, problem)
    try:
        op.path.encode("utf-8")
    except UnicodeEncodeError:
        raise SpecError(op.pointer, "the path holds a lone surrogate, which no URL can carry")
    body, removed = _body(op, module, names, types.body)
    if body is not None and body.kind == "multipart":
        body = replace(body, parts=_parts(doc, op))
    kind = success_kind(op)
    response = PyResponse(kind, types.response if kind == "json" else None, other_kind(op))
    method = PyOperation(
        key=op.key,
        method_name=names.methods.get(op.route),
        http_method=op.method.upper(),
        template=op.path,
        summary=op.summary,
        description=op.description,
        path_parameters=tuple(p for p in params if p.location == "path"),
        query_parameters=tuple(p for p in params if p.location == "query"),
        header_parameters=tuple(p for p in params if p.location == "header"),
        cookie_parameters=tuple(p for p in params if p.location == "cookie"),
        body=body,
        response=response,
        error_models=_error_models(op, module),
        removed_fields=removed,
        **_auth(doc, op),
    )
    if kind == "json" and streams(op) and success_response(op) is not None:
        stream = PyOperation(
            **{
                **method.__dict__,
                "method_name": names.methods.get((op.route, "stream")),
                "response": PyResponse("events"),
                "summary": (op.summary or method.method_name) + ", as server-sent events",
            }
        )
        return [method, stream]
    if downloads(op):
        download = PyOperation(
            **{
                **method.__dict__,
                "method_name": names.methods.get((op.route, "stream")),
                "response": PyResponse("chunks"),
                "summary": (op.summary or method.method_name) + ", in pieces as it arrives",
            }
        )
        return [method, download]
    return [method]


def auth_schemes(doc: ir.Document) -> dict[str, PyAuthScheme]:
    """The document's security schemes that a client can send an API key by: an HTTP bearer or
    basic scheme, an API key in a header, query parameter or cookie, and OAuth 2 and OpenID
    Connect (whose access token the client sends as a bearer token)."""
    found: dict[str, PyAuthScheme] = {}
    for scheme in doc.security_schemes:
        kind = scheme.type.lower()
        http = (scheme.scheme or "").lower()
        if kind in ("oauth2", "openidconnect") or (kind == "http" and http == "bearer"):
            found[scheme.name] = PyAuthScheme(scheme.name, "bearer")
        elif kind == "http" and http == "basic":
            found[scheme.name] = PyAuthScheme(scheme.name, "basic")
        elif kind == "apikey" and scheme.location in ("header", "query", "cookie"):
            location = cast(Literal["header", "query", "cookie"], scheme.location)
            found[scheme.name] = PyAuthScheme(scheme.name, location, scheme.parameter or "")
    return found


def _auth(doc: ir.Document, op: ir.Operation) -> dict[str, Any]:
    """The scheme an operation's call sends its credentials by: the first of its requirements
    (its own, else the document's) that names a scheme the client can send; and whether the
    operation also takes calls without any (an empty requirement, or none at all)."""
    requirements = op.security if op.security is not None else doc.requirements
    known = auth_schemes(doc)
    scheme = next((n for req in requirements for n in req if n in known), None)
    optional = not requirements or any(not req for req in requirements)
    return {"auth": scheme, "auth_optional": optional and scheme is not None}


def _body(
    op: ir.Operation, module: PyModule, names: Names, kind: PyType | None
) -> tuple[PyBody | None, tuple[tuple[str, str], ...]]:
    body = op.request_body
    if body is None:
        return None, ()
    essence = media_essence(body.content_type)
    form: Literal["json", "form", "multipart", "bytes"] = (
        "form" if essence == FORM else "multipart" if essence == MULTIPART else "json"
    )
    if kind is None:  # not JSON or a form: raw bytes
        return PyBody("bytes", body.content_type, None, (), None, body.required), ()
    model_name = body_fields(kind)
    if model_name is not None:
        model = module.model(model_name)
        arguments = names.arguments_of(op.route)
        removed = tuple(
            (arguments.names.get(("field", key)) or attribute_name(key), note)
            for key, note in model.other_revisions
        )
        fields = tuple(PyBodyField(f, arguments.get(("field", f.key))) for f in model.fields)
        return PyBody(form, body.content_type, model_name, fields, None, body.required), removed
    if form != "json" and kind.kind in ("dict", "any") and not kind.nullable:
        # fields the schema does not name: a mapping of them (files, in a multipart body)
        value = (
            PyType("union", args=(PyType("file"), PyType("any")))
            if form == "multipart"
            else PyType("any")
        )
        fields_type = PyType("dict", args=(value,))
        return PyBody(form, body.content_type, None, (), fields_type, body.required), ()
    if form != "json":
        raise UnsupportedConstructError(
            body.pointer, "a form or multipart body that is not an object of fields"
        )
    return PyBody("json", body.content_type, None, (), kind, body.required), ()


def _parts(
    doc: ir.Document, op: ir.Operation
) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """The headers of a multipart body's fields: the document's ``encoding`` of each, and for a
    file (or a list of files) that it gives none, the file's ``contentMediaType``."""
    body = op.request_body
    assert body is not None
    found: dict[str, tuple[tuple[str, str], ...]] = {}
    for entry in body.encoding:
        typed = (("Content-Type", entry.content_type),) if entry.content_type else ()
        if typed or entry.headers:
            found[entry.name] = typed + entry.headers
    schema = doc.resolve(body.schema) if body.schema is not None else None
    for prop in schema.properties if isinstance(schema, ir.Object) else ():
        value = doc.resolve(prop.schema)
        value = doc.resolve(value.items) if isinstance(value, ir.Array) else value
        declared = value.content_media_type if isinstance(value, ir.Primitive) else None
        if not (isinstance(value, ir.Primitive) and value.binary and declared):
            continue
        if "*" in declared or "," in declared:
            continue
        headers = found.get(prop.name, ())
        if not any(name.lower() == "content-type" for name, _ in headers):
            found[prop.name] = (("Content-Type", declared), *headers)
    return tuple(found.items())


def _error_models(op: ir.Operation, module: PyModule) -> tuple[tuple[str, str], ...]:
    """The models of the operation's error responses with a JSON model, by status: ``default``
    first, then the others in the document's order."""
    errors = sorted(
        (r for r in op.responses if not r.status.startswith("2")),
        key=lambda r: r.status != "default",
    )
    found = []
    for response in errors:
        if (
            isinstance(response.schema, ir.Ref)
            and response.content_type
            and is_json(response.content_type)
        ):
            name = module.classes.get(response.schema.name)
            if name is not None and any(m.name == name for m in module.models):
                found.append((response.status, name))
    return tuple(found)


# What a waiter names itself beside the retrieve operation's path parameters.
_WAITER_NAMES = frozenset({"operation_or_id", "timeout", "interval"})


def _waiter(
    module: PyModule, submit: PyOperation, retrieve: PyOperation, statuses: StatusKinds | None
) -> PyWaiter | None:
    """A waiter when ``retrieve`` GETs ``submit``'s path plus ``/{id}``, both return the same
    model, and its ``status`` enum has a value that means success: in ``statuses``, or read from
    the values' names where there is no status data (see :func:`~generator.reading.statuses.by_name`).
    """
    if (
        submit.http_method != "POST"
        or retrieve.http_method != "GET"
        or submit.response_model is None
    ):
        return None
    match = re.fullmatch(re.escape(submit.path) + r"/\{(\w+)\}", retrieve.path)
    if not match or retrieve.response_model != submit.response_model:
        return None
    if {p.name for p in retrieve.path_parameters} & _WAITER_NAMES:
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
    members = module.enum(enum_name).members
    kinds = statuses or by_name(str(value) for _, value in members)
    classified = tuple((member, str(value), kinds.kind(str(value))) for member, value in members)
    if not any(kind == "succeeded" for _, _, kind in classified):
        return None
    assert module.names is not None
    name = module.names.methods.claim(
        Claim(
            ("wait", submit.key),
            f"wait_for_{submit.method_name}",
            "",
            f"the waiter of {submit.key}",
        )
    )
    return PyWaiter(
        method_name=name,
        submit=submit,
        retrieve=retrieve,
        model=submit.response_model,
        status_enum=enum_name,
        statuses=classified,
        statuses_source=(
            "from the values' names, as the document comes with no status data"
            if kinds.from_names
            else "as the generator's status data classifies them"
        ),
        id_parameter=match.group(1),
    )
