"""The client core every generated client stands on: configuration, building requests, the
retry rule, reading responses and waiting for operations.

A generated ``Client`` subclasses :class:`SyncAPIClient` (``AsyncClient``
:class:`AsyncAPIClient`), names its API in a :class:`ClientSpec`, and has one short method per
operation that builds the request's path, parameters and body, then calls :meth:`_send` and
:meth:`_parse` (or :meth:`_wait` for a waiter).

The retry rule (the one place the runtime states it; the project README says the same):

- A call is retried at most ``max_retries`` times, after exponential backoff with jitter, or after
  the delay the server asks for (``retry-after-ms``, else ``Retry-After`` in seconds or as an HTTP
  date), where that is at most 60 s.
- A request the server may receive twice without harm (``resendable``: an idempotent method such
  as GET, or a call that carries an idempotency key, whose retries send the same key) is retried
  as the official SDK retries: the server's ``x-should-retry: true`` or ``false`` decides where
  it is sent; else a connection error, a timeout, 408, 409, 429 and 5xx are retried.
- Any other request (a POST without an idempotency key) is never sent again once the server may
  have received it, whatever the server's headers say, since the server would do its work twice
  (a training step applied twice silently corrupts the run): it is retried only when it provably
  was not processed, that is when the connection failed before the request was sent, or when the
  server answered 429 (and not even then with ``x-should-retry: false``).

The bounds of a call (the project README says the same), whatever the server sends and however
slowly:

- ``timeout`` bounds each attempt as a whole (one attempt is one request: connecting, sending it
  and reading its whole response) and, as httpx has it, each step within it: a number is the
  same for every step; an ``httpx.Timeout`` has its own for each, and the largest of them bounds
  the attempt. A server that sends its answer a byte at a time cannot hold an attempt longer.
- ``deadline`` (seconds; none by default) bounds the whole call: its attempts and the waits
  between them. A wait that would end past it is not taken, whatever the server asks for; a
  call that passes it raises APITimeoutError. A waiter's own ``timeout`` bounds each of its
  polls the same way (they raise OperationTimeoutError).
- ``max_response_bytes`` (64 MiB by default) bounds a response's body, counted as it is decoded
  (``gzip`` and ``deflate`` are read, within the bound): beyond it the call raises
  APIResponseTooLargeError; an event stream's lines and events are bounded each by the same. A
  download read in pieces (``_download``) is held at most 64 KiB at a time, whatever its size.
"""

from __future__ import annotations

import asyncio
import base64
import email.utils
import enum
import functools
import json
import logging
import mimetypes
import os
import random
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, ClassVar, Final, Literal, TypeVar, cast, overload
from urllib.parse import quote

import httpx

from . import _styles
from ._bounds import achunks, aevents, aread, attempt, chunks, events, hold_streams, read, within
from ._exceptions import (
    APIConnectionError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    OperationCancelledError,
    OperationFailedError,
    OperationTimeoutError,
    PermissionDeniedError,
    RateLimitError,
    RevisionMismatchError,
    UnprocessableEntityError,
    ValidationError,
)
from ._model import Model, as_json
from ._pool import DEFAULT_CONNECTION_LIMITS, async_pool, checked_limits, slot, verified_tls
from ._streaming import ServerSentEvent
from ._styles import text as _text

__all__ = [
    "DEFAULT_CONNECTION_LIMITS",
    "AsyncAPIClient",
    "AuthScheme",
    "ClientSpec",
    "SyncAPIClient",
    "cookie",
    "form",
    "idempotency_key_of",
    "joined",
    "parameter",
    "path_parameter",
    "query",
    "rejecting_removed_fields",
    "status_error",
    "styled",
    "styled_path",
    "wire",
]

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
"""The most a response's body may hold once decoded, unless the client is told otherwise."""
DEFAULT_WAIT = 300.0
"""How long a waiter waits, in seconds, unless told otherwise."""
FIRST_POLL_INTERVAL = 0.5
MAX_POLL_INTERVAL = 5.0
_FIRST_RETRY_DELAY = 0.5
_MAX_RETRY_DELAY = 8.0
_MAX_RETRY_AFTER = 60.0
_BODY_EXCERPT = 200
# Statuses after which a request that may be sent again is retried.
_RETRIED_STATUSES = frozenset({408, 409, 429})
# Failures that happen before the request leaves: the server cannot have processed it.
_NOT_SENT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)

T = TypeVar("T")
M = TypeVar("M", bound=Model)
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class AuthScheme:
    """How the client's API key travels for one security scheme of the API: ``bearer``
    (``Authorization: Bearer KEY``), ``basic`` (the key is ``user:password``, sent as
    ``Authorization: Basic ...``), or as the header, query parameter or cookie ``name``."""

    kind: Literal["bearer", "basic", "header", "query", "cookie"]
    name: str = "Authorization"


_BEARER = {"bearer": AuthScheme("bearer")}


@dataclass(frozen=True)
class ClientSpec:
    """What a generated client says of its API."""

    package: str
    """The generated package's import name (its logger's name)."""
    user_agent: str
    base_url: str
    """The API's host, where ``base_url=`` and the environment give none."""
    prefix: str = ""
    """Put between the base URL and every operation's path (``/v1``); a base URL that already
    ends in it is taken as it is."""
    api_key_env: str = ""
    """The environment variable that holds the API key (where ``api_key=`` gives none)."""
    base_url_env: str = ""
    """The environment variable that holds the base URL."""
    revision: str = ""
    """The API revision the package implements ("" for a package of one document)."""
    not_applied_by: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """For each other revision of the API, the request fields a server of that revision does not
    apply as this package means them (by JSON path, with why); ``"(request)"`` where it rejects
    every request."""
    schemes: Mapping[str, AuthScheme] = field(default_factory=lambda: dict(_BEARER))
    """How the API key travels, by the name of the security scheme an operation names."""
    default_auth: str | None = "bearer"
    """The scheme of a request whose method names none (``None``: no credentials)."""
    key_required: bool = True
    """Whether the client needs an API key when it is made (else only an operation that
    requires one needs it, when it is called)."""


class _Default(enum.Enum):
    DEFAULT = "DEFAULT"


_DEFAULT: Final = _Default.DEFAULT


class _DeadlinePassed(Exception):
    """A waiter's deadline came before the request could be sent, sent again or answered."""


def rejecting_removed_fields(removed: Mapping[str, str]) -> Callable[[F], F]:
    """A method that raises RevisionMismatchError, naming the revision, for an argument that an
    earlier revision had and this one removed (rather than Python's bare TypeError)."""

    def decorate(method: F) -> F:
        @functools.wraps(method)
        def checked(*args: Any, **kwargs: Any) -> Any:
            for name in kwargs:
                if name in removed:
                    raise RevisionMismatchError(f"{method.__name__}()", name, removed[name])
            return method(*args, **kwargs)

        return cast(F, checked)

    return decorate


def _paths(data: Mapping[str, Any], prefix: str = "") -> Iterator[str]:
    """The JSON paths of the fields set in ``data``, nested objects' fields included."""
    for key, value in data.items():
        path = f"{prefix}.{key}" if prefix else key
        yield path
        if isinstance(value, Mapping):
            yield from _paths(value, path)


def form(payload: Mapping[str, Any]) -> dict[str, str | list[str]]:
    """A form's fields as they are sent: each value as text, a list as repeated fields."""
    return {
        key: [_text(v) for v in value] if isinstance(value, list) else _text(value)
        for key, value in payload.items()
    }


Part = tuple[str, tuple[str | None, Any, str | None, dict[str, str]]]
"""One part of a multipart body as httpx sends it: ``(name, (filename, content, content type,
headers))``; a part without a filename is a field, one with a filename a file."""


def _is_file(value: object) -> bool:
    return isinstance(value, (bytes, bytearray)) or callable(getattr(value, "read", None))


def _is_json_type(content_type: str) -> bool:
    essence = content_type.split(";")[0].strip().lower()
    return essence == "application/json" or essence.endswith("+json")


def _file_part(name: str, value: Any, headers: dict[str, str]) -> Part:
    """A file's part: its file object's name as the filename (``upload`` for bytes), and the
    content type the document gives, else the one its name suggests, else
    ``application/octet-stream`` (RFC 7578, 4.4)."""
    named = getattr(value, "name", None)
    filename = os.path.basename(named) if isinstance(named, str) and named else "upload"
    content_type = headers.pop("Content-Type", None)
    if content_type is None:
        content_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
    content = bytes(value) if isinstance(value, bytearray) else value
    return name, (filename, content, content_type, headers)


def _parts(name: str, value: Any, declared: Mapping[str, str], whole: bool = True) -> list[Part]:
    """The parts of one field: a file as a file; a list as one part per item (RFC 7578, 4.3),
    but as one JSON part where the document says the field is JSON; an object as a JSON part
    (``application/json``, OpenAPI's default for one); a scalar as text, JSON text where the
    document gives the part a JSON type. ``None`` sends nothing."""
    headers = dict(declared)
    content_type = headers.get("Content-Type")
    if value is None:
        return []
    if _is_file(value):
        return [_file_part(name, value, headers)]
    if isinstance(value, list) and whole and not (content_type and _is_json_type(content_type)):
        return [part for item in value for part in _parts(name, item, declared, False)]
    if isinstance(value, (dict, list)) or (content_type and _is_json_type(content_type)):
        headers.setdefault("Content-Type", "application/json")
        text = json.dumps(value, separators=(",", ":"))
    else:
        text = _text(value)
    content_type = headers.pop("Content-Type", None)
    return [(name, (None, text.encode("utf-8"), content_type, headers))]


def multipart_parts(
    payload: Mapping[str, Any], encoding: Mapping[str, Mapping[str, str]] | None = None
) -> list[Part]:
    """A multipart/form-data body's parts (RFC 7578), each field's as :func:`_parts` says,
    with the headers the document's ``encoding`` gives each field (its ``Content-Type``
    among them), refused where a header cannot hold one (a line break, a control character)."""
    checked = {
        key: {name: _styles.header_value(f"{key}: {name}", text) for name, text in given.items()}
        for key, given in (encoding or {}).items()
    }
    return [
        part for key, value in payload.items() for part in _parts(key, value, checked.get(key, {}))
    ]


def parameter(
    value: object, name: str, write: Callable[[Any, str], object]
) -> str | list[str] | None:
    """A query, header or cookie parameter, checked against its schema; ``None`` leaves it out."""
    if value is None:
        return None
    checked = write(value, name)
    return [_text(item) for item in checked] if isinstance(checked, list) else _text(checked)


def path_parameter(value: object, name: str, write: Callable[[Any, str], object]) -> str:
    """A path parameter, checked and escaped for a path segment. A value that would change the
    URL's path rather than fill the segment (empty, ``.`` or ``..``, which URLs read as "this
    folder" and "the folder above") is refused before anything is sent."""
    text = _text(write(value, name))
    if not text:
        raise ValidationError(name, "must not be empty", value)
    if text in (".", ".."):
        raise ValidationError(
            name, "must not be '.' or '..', which would change the URL's path", value
        )
    return quote(text, safe="")


def query(
    value: object,
    name: str,
    write: Callable[[Any, str], object],
    style: str,
    explode: bool,
    allow_reserved: bool = False,
) -> dict[str, str | list[str]]:
    """A query parameter of an array, an object or JSON content (or one with
    ``allowReserved``), checked against its schema, as the pairs of the query its style makes
    (``None`` leaves it out): ``json`` as JSON text; ``form`` an array as a repeated key
    (``ids=1&ids=2``) or, without explode, ``ids=1,2``, an object as its own keys (``R=1&G=2``)
    or ``color=R,1,G,2``; ``deepObject`` as ``color[R]=1``; ``spaceDelimited`` and
    ``pipeDelimited`` joined with a space or ``|``. The style table: :mod:`._styles`."""
    if value is None:
        return {}
    return _styles.in_query(write(value, name), name, style, explode, allow_reserved)


def joined(
    *parts: Mapping[str, str | list[str] | None],
) -> dict[str, str | list[str] | None]:
    """The pairs of a location's parameters, ``parts`` in order (the plain parameters' mapping,
    then what :func:`query` or :func:`cookie` made of each other one): a key that two of them
    write (two exploded objects that share a field name) is sent once for each, repeated, as
    their styles write it; none is dropped."""
    result: dict[str, str | list[str] | None] = {}
    for part in parts:
        for key, value in part.items():
            had = result.get(key)
            if value is None or had is None:
                result[key] = value if had is None else had
                continue
            result[key] = [
                *(had if isinstance(had, list) else [had]),
                *(value if isinstance(value, list) else [value]),
            ]
    return result


def cookie(
    value: object, name: str, write: Callable[[Any, str], object], style: str, explode: bool
) -> dict[str, str | list[str]]:
    """A cookie parameter of an array, an object or JSON content, checked against its schema,
    as the cookies its style makes (``None`` leaves it out): ``form`` an array as
    ``ids=1,2`` or, exploded, the cookie repeated, an object as ``color=R,1,G,2`` or, exploded,
    a cookie per field; ``json`` as JSON text. The style table: :mod:`._styles`."""
    if value is None:
        return {}
    return _styles.in_cookie(write(value, name), name, style, explode)


def styled(
    value: object, name: str, write: Callable[[Any, str], object], style: str, explode: bool
) -> str | None:
    """A header parameter of an array, an object or JSON content, checked against its schema,
    as its style writes it (``None`` leaves it out): ``json`` as JSON text; ``simple`` an array
    joined with commas, an object as ``R,1,G,2`` (``R=1,G=2`` with explode). The style table:
    :mod:`._styles`."""
    if value is None:
        return None
    return _styles.in_header(write(value, name), name, style, explode)


def styled_path(
    value: object, name: str, write: Callable[[Any, str], object], style: str, explode: bool
) -> str:
    """A path parameter of an array, an object or JSON content, or in the style ``label`` or
    ``matrix``, checked against its schema and written as its segment (``simple``
    ``R,1,G,2``, ``label`` ``.R,1,G,2``, ``matrix`` ``;color=R,1,G,2``; see :mod:`._styles`).
    A segment that would change the URL's path rather than fill it (empty, ``.`` or ``..``) is
    refused before anything is sent."""
    segment = _styles.in_path(write(value, name), name, style, explode)
    if not segment:
        raise ValidationError(name, "must not be empty", value)
    if segment in (".", ".."):
        raise ValidationError(
            name, f"must not be written as {segment!r}, which would change the URL's path", value
        )
    return segment


def idempotency_key_of(given: object, name: str, write: Callable[[Any, str], object]) -> str:
    """The caller's idempotency key, checked, or a new one for this call (its retries send the
    same key again)."""
    if given is None:
        return str(uuid.uuid4())
    text = parameter(given, name, write)
    if not isinstance(text, str) or not text:
        raise ValidationError(name, "must be a non-empty string", given)
    return text


def wire(value: Any) -> Any:
    """Arguments in the wire format: models as the dicts they write, UNSET fields left out;
    the body's model then reads (and so checks) them, plain dicts and models alike."""
    return as_json(value)


def _retry_after(response: httpx.Response) -> float | None:
    """The delay the server asks for, in seconds, as the official SDK reads it:
    ``retry-after-ms``, else ``Retry-After`` as seconds or an HTTP date."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return float(response.headers[name]) * scale
        except (KeyError, ValueError, OverflowError):
            continue
    value = response.headers.get("retry-after")
    parsed = email.utils.parsedate_tz(value) if value else None
    return None if parsed is None else email.utils.mktime_tz(parsed) - time.time()


_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


ErrorModels = type[Model] | Mapping[str, type[Model]] | None
"""What an operation reads its error bodies with: one model for every status, or the models by
status as the document declares them (``"409"``, a range ``"4XX"``, ``"default"``)."""


def error_model_for(error_models: ErrorModels, status: int) -> type[Model] | None:
    """The model an error of ``status`` is read with: its status's, else its range's, else the
    ``default`` one."""
    if error_models is None or isinstance(error_models, type):
        return error_models
    for key in (str(status), f"{status // 100}XX", "default"):
        if key in error_models:
            return error_models[key]
    return None


def status_error(response: httpx.Response, error_model: ErrorModels) -> APIStatusError:
    """The error for an error response, with the most useful message its body allows; the body
    is read as the model of its status (:func:`error_model_for`: ``error_model`` is one model,
    or the models by status, as :class:`ErrorModels` says) where it is in the documented
    format."""
    body = response.text
    error: Any = None
    model = error_model_for(error_model, response.status_code)
    if model is not None:
        try:
            error = model.from_json(body)
        except ValidationError:
            error = None
        if error is not None and getattr(error, "problems", None):  # not the documented format
            error = None
    details = error.to_dict().get("error") if error is not None else None
    detail = details.get("message") if isinstance(details, dict) else None
    if not isinstance(detail, str):
        excerpt = " ".join(body.split())
        detail = (
            excerpt[:_BODY_EXCERPT] + ("…" if len(excerpt) > _BODY_EXCERPT else "") or "no body"
        )
    status = response.status_code
    message = f"{status} {response.reason_phrase}: {detail}"
    if status >= 500:
        return InternalServerError(message, response=response, body=body, error=error)
    return _BY_STATUS.get(status, APIStatusError)(
        message, response=response, body=body, error=error
    )


def _events_of(response: httpx.Response, limit: int) -> Iterator[ServerSentEvent]:
    """The events of a streamed response, with the failures of reading them as our errors."""
    try:
        yield from events(response, limit)
    except httpx.HTTPError as exc:
        raise _connection_error(response.request, exc) from exc


def _chunks_of(response: httpx.Response) -> Iterator[bytes]:
    """The body of a streamed download as it arrives, with the failures of reading it as our
    errors."""
    try:
        yield from chunks(response)
    except httpx.HTTPError as exc:
        raise _connection_error(response.request, exc) from exc


async def _achunks_of(response: httpx.Response) -> AsyncIterator[bytes]:
    """:func:`_chunks_of`, read asynchronously."""
    try:
        async for piece in achunks(response):
            yield piece
    except httpx.HTTPError as exc:
        raise _connection_error(response.request, exc) from exc


async def _aevents_of(response: httpx.Response, limit: int) -> AsyncIterator[ServerSentEvent]:
    """:func:`_events_of`, read asynchronously."""
    try:
        async for event in aevents(response, limit):
            yield event
    except httpx.HTTPError as exc:
        raise _connection_error(response.request, exc) from exc


_WHAT_FAILED: tuple[tuple[type[httpx.HTTPError], str], ...] = (
    (httpx.ConnectTimeout, "connecting to the server timed out"),
    (httpx.ReadTimeout, "the server did not answer within the timeout"),
    (httpx.WriteTimeout, "sending the request timed out"),
    (httpx.PoolTimeout, "no connection of the pool was free within the timeout"),
    (httpx.TimeoutException, "the request timed out"),
    (httpx.ConnectError, "could not connect to the server"),
    (httpx.ReadError, "the connection broke while reading the answer"),
    (httpx.WriteError, "the connection broke while sending the request"),
    (httpx.RemoteProtocolError, "the server closed the connection or broke HTTP"),
    (httpx.LocalProtocolError, "the request could not be sent as HTTP"),
    (httpx.ProxyError, "the proxy failed"),
    (httpx.UnsupportedProtocol, "the URL's scheme is not supported"),
    (httpx.DecodingError, "the answer could not be decoded"),
    (httpx.TooManyRedirects, "too many redirects"),
    (httpx.NetworkError, "the network failed"),
    (httpx.TransportError, "the transport failed"),
)


def _connection_error(request: httpx.Request, exc: httpx.HTTPError) -> APIConnectionError:
    """Our error for an httpx one; its message always says what happened: a description, the
    exception's type and httpx's own message where it has one."""
    what = next((text for kind, text in _WHAT_FAILED if isinstance(exc, kind)), "the call failed")
    detail = str(exc).strip()
    cause = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    message = f"{request.method} {request.url}: {what} ({cause})"
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError(message, request=request)
    return APIConnectionError(message, request=request)


class _Waiting:
    """One wait for an operation: what its statuses mean, its deadline and its polling interval."""

    def __init__(
        self,
        client: _BaseClient,
        operation_or_id: Any,
        model: type[Model],
        statuses: Mapping[str, str],
        timeout: float,
        interval: float,
    ) -> None:
        self.client = client
        self.statuses = statuses
        self.timeout = timeout
        self.interval = interval
        self.deadline = time.monotonic() + timeout
        self.unknown: set[str] = set()
        if isinstance(operation_or_id, model):
            self.operation: Any = operation_or_id
            self.operation_id = str(operation_or_id.id)  # type: ignore[attr-defined]
        else:
            self.operation, self.operation_id = None, str(operation_or_id)

    def settled(self) -> bool:
        """Whether the operation's status is terminal (then it returns, or this raises); else
        how long to sleep next is in :attr:`delay`."""
        operation = self.operation
        if operation is None:
            self.delay = 0.0
            return False
        kind = self.statuses.get(operation.status)
        if kind == "succeeded":
            return True
        if kind == "failed":
            raise OperationFailedError(operation)
        if kind == "cancelled":
            raise OperationCancelledError(operation)
        if kind is None and operation.status not in self.unknown:
            self.unknown.add(operation.status)
            self.client._logger.warning(
                (
                    "operation %s has the status %s, which the document of this package (API "
                    "revision %s) lists without a meaning (spec/statuses.yaml had no entry for it "
                    "when the package was generated); polling on until it changes or the "
                    "deadline passes"
                    if isinstance(operation.status, enum.Enum)  # a value of its own enum
                    else "operation %s has the status %s, which this package (API revision %s) "
                    "does not know; polling on until it changes or the deadline passes"
                ),
                self.operation_id,
                operation.status,
                self.client._spec.revision,
            )
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise self.timed_out()
        self.delay = min(self.interval, remaining)
        self.client._logger.debug(
            "operation %s is %s; polling again in %.2f s",
            self.operation_id,
            operation.status,
            self.delay,
        )
        self.interval = min(self.interval * 2, MAX_POLL_INTERVAL)
        return False

    def timed_out(self) -> OperationTimeoutError:
        return OperationTimeoutError(self.operation, self.timeout, operation_id=self.operation_id)


class _Call:
    """One call's attempts under the retry rule: when each must end, what the last one did, and
    the call's end (the client's ``deadline``, or a waiter's, whichever comes first)."""

    def __init__(
        self, client: _BaseClient, request: httpx.Request, resendable: bool, until: float | None
    ) -> None:
        self.client, self.request, self.resendable = client, request, resendable
        self.until = until
        """The waiter's deadline (``time.monotonic()``), where a waiter makes the call."""
        now = time.monotonic()
        self.by_deadline = None if client.deadline is None else now + client.deadline
        self.ends = _earliest(until, self.by_deadline)
        self.attempt = 0
        self.attempt_ends: float | None = None
        self.delay = 0.0
        self.last = ""
        """What the last attempt did (``answered 503``), for the error at the deadline."""
        self.queued = False
        """Whether the attempt under way waits for a connection of the client's pool."""

    def start(self) -> float | None:
        """Begin an attempt: when it must end, the request's timeouts fitted to that; past the
        call's end, raise."""
        now = time.monotonic()
        if self.ends is not None and now >= self.ends:
            raise self.passed()
        bound = self.client._attempt_bound
        self.attempt_ends = _earliest(None if bound is None else now + bound, self.ends)
        if self.attempt_ends is not None:
            left = self.attempt_ends - now
            self.request.extensions["timeout"] = {
                name: left if value is None else min(value, left)
                for name, value in self.client.timeout.as_dict().items()
            }
        self.client._logger.debug("sending %s %s", self.request.method, self.request.url)
        return self.attempt_ends

    def answered(self, response: httpx.Response) -> bool:
        """Whether the call ends with ``response`` (else it is retried after :attr:`delay`)."""
        client, request = self.client, self.request
        client._logger.debug("%s %s answered %d", request.method, request.url, response.status_code)
        if not client._should_retry(self.attempt, self.resendable, response=response):
            return True
        self.last = f"answered {response.status_code}"
        self._retry_after(response)
        return False

    def failed(self, exc: httpx.TransportError) -> None:
        """After an attempt that got no (whole) answer: raise, or set :attr:`delay` for the
        retry the rule allows. A timeout of an attempt that the call's end cut short is the
        call's."""
        self.last = f"failed ({type(exc).__name__})"
        if self.ends is not None and (
            time.monotonic() >= self.ends
            or (isinstance(exc, httpx.TimeoutException) and self.attempt_ends == self.ends)
        ):
            raise self.passed() from exc
        if not self.client._should_retry(self.attempt, self.resendable, error=exc):
            raise _connection_error(self.request, exc) from exc
        self._retry_after(None)

    def _retry_after(self, response: httpx.Response | None) -> None:
        self.delay = self.client._retry_delay(self.attempt, response)
        request = self.request
        self.client._logger.info(
            "%s %s %s; retry %d in %.2f s",
            request.method,
            request.url,
            self.last,
            self.attempt + 1,
            self.delay,
        )

    def wait(self) -> float:
        """How long to wait before the next attempt; where the wait would end past the call's
        end, raise instead."""
        if self.ends is not None and time.monotonic() + self.delay >= self.ends:
            raise self.passed()
        self.attempt += 1
        return self.delay

    def passed(self) -> Exception:
        """The error for a call past its end: the waiter's (which raises its own), or the
        client's ``deadline``."""
        if self.until is not None and (self.by_deadline is None or self.until <= self.by_deadline):
            return _DeadlinePassed()
        last = f"; the last attempt {self.last}" if self.last else ""
        return APITimeoutError(
            f"{self.request.method} {self.request.url}: the call did not finish within its "
            f"deadline of {self.client.deadline:g} s (the client's deadline){last}",
            request=self.request,
        )


def _earliest(*moments: float | None) -> float | None:
    """The earliest of the moments given, None where none is."""
    given = [moment for moment in moments if moment is not None]
    return min(given) if given else None


class _BaseClient:
    """Configuration, request building and the retry rule, shared by both clients."""

    _spec: ClassVar[ClientSpec]
    """What the generated client says of its API (set by each generated client class)."""

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str | None,
        timeout: float | httpx.Timeout,
        max_retries: int,
        deadline: float | None,
        max_response_bytes: int,
        headers: Mapping[str, str] | None,
        server_revision: str | None,
    ) -> None:
        spec = self._spec
        self._logger = logging.getLogger(spec.package)
        if api_key is None and spec.api_key_env:
            api_key = os.environ.get(spec.api_key_env)
        self._api_key = api_key or None
        if spec.key_required and self._api_key is None:
            raise ConfigurationError(f"no API key: pass api_key=...{self._key_hint()}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigurationError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        from_env = os.environ.get(spec.base_url_env) if spec.base_url_env else None
        self.base_url = (base_url or from_env or spec.base_url).rstrip("/")
        if not self.base_url:
            where = f" or set {spec.base_url_env}" if spec.base_url_env else ""
            raise ConfigurationError(f"no base URL: pass base_url=...{where}")
        prefix = spec.prefix
        root = self.base_url if self.base_url.endswith(prefix) else self.base_url + prefix
        try:
            url = httpx.URL(root)
        except httpx.InvalidURL as exc:
            raise ConfigurationError(f"base_url {self.base_url!r} is not a URL: {exc}") from None
        if url.scheme not in ("http", "https") or not url.host:
            raise ConfigurationError(f"base_url {self.base_url!r} is not an http(s) URL")
        self._root = root
        try:
            self.timeout = httpx.Timeout(timeout)
        except (TypeError, ValueError) as exc:
            raise ConfigurationError(f"timeout {timeout!r} is not a timeout: {exc}") from None
        steps = [value for value in self.timeout.as_dict().values() if value is not None]
        self._attempt_bound = max(steps) if steps else None
        """How long one attempt may take as a whole, in seconds (None: no bound)."""
        if deadline is not None and (
            isinstance(deadline, bool)
            or not isinstance(deadline, (int, float))
            or not 0 < deadline < float("inf")
        ):
            raise ConfigurationError(
                f"deadline must be a number of seconds > 0, or None, got {deadline!r}"
            )
        self.deadline = deadline
        if (
            isinstance(max_response_bytes, bool)
            or not isinstance(max_response_bytes, int)
            or max_response_bytes < 1
        ):
            raise ConfigurationError(
                f"max_response_bytes must be an integer >= 1, got {max_response_bytes!r}"
            )
        self.max_response_bytes = max_response_bytes
        self.max_retries = max_retries
        self.server_revision = server_revision
        if server_revision not in (None, spec.revision, *spec.not_applied_by):
            self._logger.warning(
                "the server's revision %s is not known to this package (revision %s): which of "
                "the fields it sends that server ignores cannot be told",
                server_revision,
                spec.revision,
            )
        self._headers = {
            "Accept": "application/json",
            "User-Agent": spec.user_agent,
            **(headers or {}),
        }

    def _key_hint(self) -> str:
        env = self._spec.api_key_env
        return f" or set {env}" if env else ""

    def _credentials(
        self,
        scheme: str | None,
        optional: bool,
        headers: dict[str, str],
        params: dict[str, str | list[str]],
        cookies: dict[str, str],
        what: str,
    ) -> None:
        """Put the API key where ``scheme`` sends it; without a key, an operation that requires
        one is refused before anything is sent."""
        if scheme is None:
            return
        if self._api_key is None:
            if optional:
                return
            raise ConfigurationError(f"{what} needs an API key: pass api_key=...{self._key_hint()}")
        auth = self._spec.schemes[scheme]
        if auth.kind == "bearer":
            headers["Authorization"] = f"Bearer {self._api_key}"
        elif auth.kind == "basic":
            if ":" not in self._api_key:
                raise ConfigurationError(
                    f"{what} takes basic credentials: the API key is user:password"
                )
            token = base64.b64encode(self._api_key.encode()).decode("ascii")
            headers["Authorization"] = f"Basic {token}"
        elif auth.kind == "header":
            headers[auth.name] = self._api_key
        elif auth.kind == "query":
            params[auth.name] = self._api_key
        else:
            cookies[auth.name] = self._api_key

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    def _build_request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        data: Mapping[str, str | list[str]] | None = None,
        multipart: Mapping[str, Any] | None = None,
        encoding: Mapping[str, Mapping[str, str]] | None = None,
        content: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
        params: Mapping[str, str | list[str] | None] | None = None,
        headers: Mapping[str, str | list[str] | None] | None = None,
        cookies: Mapping[str, str | list[str] | None] | None = None,
        auth: str | None | _Default = _DEFAULT,
        auth_optional: bool = False,
    ) -> httpx.Request:
        """The request of one call: the client's headers, the operation's parameters and body,
        and the API key as the operation's security scheme (``auth``; the spec's default where
        the method names none) sends it. A ``multipart`` body is sent as
        :func:`multipart_parts` makes it, each field with its ``encoding`` headers."""
        given_headers = {
            k: _styles.header_value(k, str(v)) for k, v in (headers or {}).items() if v is not None
        }
        given_cookies = {k: v for k, v in (cookies or {}).items() if v is not None}
        given_params = {k: v for k, v in (params or {}).items() if v is not None}
        scheme = self._spec.default_auth if isinstance(auth, _Default) else auth
        key_cookie: dict[str, str] = {}
        self._credentials(
            scheme, auth_optional, given_headers, given_params, key_cookie, f"{method} {path}"
        )
        pairs = [p for p in _styles.cookie_pairs(given_cookies) if p[0] not in key_cookie]
        pairs += key_cookie.items()
        if pairs:
            given_headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in pairs)
        query = _styles.query_text(given_params)
        if content_type is not None:
            given_headers["Content-Type"] = content_type
        if accept is not None:
            given_headers["Accept"] = accept
        files = multipart_parts(multipart, encoding) if multipart is not None else None
        if multipart is not None and not files:  # no part: still a multipart body, an empty one
            boundary = os.urandom(16).hex()
            given_headers["Content-Type"] = f"multipart/form-data; boundary={boundary}"
            content = f"--{boundary}--\r\n".encode("ascii")
        return httpx.Request(
            method,
            self._root + path + (f"?{query}" if query else ""),
            json=json,
            data=data,
            files=files or None,
            content=content,
            headers={**self._headers, **given_headers},
            extensions={"timeout": self.timeout.as_dict()},
        )

    def _warn_not_applied(self, payload: Mapping[str, Any]) -> None:
        """Warn of the fields of ``payload`` that a server of ``server_revision`` does not apply
        as this package means them (it ignores or rejects them)."""
        known = self._spec.not_applied_by.get(self.server_revision or "")
        if not known:
            return
        sent = set(_paths(payload))
        found = [
            f"{path}: {why}" for path, why in known.items() if path in sent or path == "(request)"
        ]
        if found:
            self._logger.warning(
                "a server of revision %s does not apply what this client (revision %s) sends: %s",
                self.server_revision,
                self._spec.revision,
                "; ".join(found),
            )

    def _should_retry(
        self,
        attempt: int,
        resendable: bool,
        *,
        response: httpx.Response | None = None,
        error: httpx.TransportError | None = None,
    ) -> bool:
        """The retry rule of the module's docstring."""
        if attempt >= self.max_retries:
            return False
        if error is not None:
            return resendable or isinstance(error, _NOT_SENT_ERRORS)
        assert response is not None
        asked: str | None = response.headers.get("x-should-retry")
        status: int = response.status_code
        if not resendable:  # the server has it: only a refusal by rate limit is sent again
            return status == 429 and asked != "false"
        if asked in ("true", "false"):
            return asked == "true"
        return status in _RETRIED_STATUSES or status >= 500

    def _retry_delay(self, attempt: int, response: httpx.Response | None) -> float:
        asked = _retry_after(response) if response is not None else None
        if asked is not None and 0 < asked <= _MAX_RETRY_AFTER:
            return asked
        backoff = min(_FIRST_RETRY_DELAY * 2.0**attempt, _MAX_RETRY_DELAY)
        return backoff * (1 - 0.25 * random.random())

    def _parse(
        self,
        response: httpx.Response,
        read: Callable[[object, str], T],
        error_model: ErrorModels,
    ) -> T:
        """The JSON of a success response, read by ``read``; an error response raises."""
        if response.is_error:
            raise status_error(response, error_model)
        try:
            try:
                data = json.loads(response.content)
            except ValueError as exc:
                raise ValidationError("", f"not valid JSON ({exc})") from None
            except RecursionError:
                raise ValidationError("", "not readable JSON: nested too deeply") from None
            return read(data, "")
        except ValidationError as exc:
            raise APIResponseValidationError(
                f"the {response.status_code} response is not as the API describes it: {exc}",
                response=response,
            ) from exc

    @overload
    def _parse_or(
        self,
        response: httpx.Response,
        read: Callable[[object, str], T],
        error_model: ErrorModels,
        other: Literal["bytes"],
    ) -> T | bytes: ...

    @overload
    def _parse_or(
        self,
        response: httpx.Response,
        read: Callable[[object, str], T],
        error_model: ErrorModels,
        other: Literal["text"],
    ) -> T | str: ...

    def _parse_or(
        self,
        response: httpx.Response,
        read: Callable[[object, str], T],
        error_model: ErrorModels,
        other: Literal["bytes", "text"],
    ) -> T | bytes | str:
        """A success response of an operation that offers JSON and another media type, read
        as its ``Content-Type`` says: JSON (or no type) by ``read``, as :meth:`_parse` reads
        it; any other type as its bytes (``other="bytes"``) or its text. The body is bounded
        as every response's is (``max_response_bytes``)."""
        declared = response.headers.get("content-type")
        if response.is_error or declared is None or _is_json_type(declared):
            return self._parse(response, read, error_model)
        return response.content if other == "bytes" else response.text


def _pool_limits(http_client: object, transport: object, limits: object) -> httpx.Limits:
    """The limits of the client's own pool: ``limits``, else the default; ConfigurationError
    where they cannot be the client's (an ``http_client`` or a ``transport`` has its own)."""
    if http_client is not None and transport is not None:
        raise ConfigurationError("pass http_client or transport, not both")
    if limits is None:
        return DEFAULT_CONNECTION_LIMITS
    if http_client is not None or transport is not None:
        given = "http_client" if http_client is not None else "transport"
        raise ConfigurationError(
            f"limits sizes the client's own connection pool, and the {given} passed has its "
            f"own: pass limits or {given}, not both"
        )
    return checked_limits(limits)


class SyncAPIClient(_BaseClient):
    """The base of a generated ``Client``: the configuration of the client's docstring, and
    ``deadline`` and ``max_response_bytes`` (the bounds of the module's docstring), an
    ``httpx.Client``, and sending with the retry rule."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        headers: Mapping[str, str] | None = None,
        http_client: httpx.Client | None = None,
        transport: httpx.BaseTransport | None = None,
        server_revision: str | None = None,
        deadline: float | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        limits: httpx.Limits | None = None,
    ) -> None:
        super().__init__(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            deadline=deadline,
            max_response_bytes=max_response_bytes,
            headers=headers,
            server_revision=server_revision,
        )
        pool = _pool_limits(http_client, transport, limits)
        self._owns_http = http_client is None
        self._http = (
            http_client
            if http_client is not None
            else httpx.Client(
                transport=transport,
                timeout=timeout,
                limits=pool,
                verify=verified_tls() if transport is None else True,
            )
        )

    def close(self) -> None:
        """Close the connection pool (not that of an ``http_client`` passed in)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self: T) -> T:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _send(
        self,
        request: httpx.Request,
        *,
        resendable: bool,
        deadline: float | None = None,
        stream: bool = False,
    ) -> httpx.Response:
        """Send ``request``, retrying as the retry rule allows, within the bounds of the module's
        docstring, and with a waiter's ``deadline`` (``time.monotonic()``) too. The response
        returned has its body read; with ``stream``, a success response's body is left to be
        read."""
        call = _Call(self, request, resendable, deadline)
        request.extensions["trace"] = hold_streams
        while True:
            ends = call.start()
            try:
                with attempt(ends):
                    response = self._attempt(request, call, ends, stream)
            except httpx.TransportError as exc:
                call.failed(exc)
            except httpx.HTTPError as exc:  # the response could not be read (decoding, ...)
                raise _connection_error(request, exc) from exc
            else:
                if response is not None:
                    return response
            time.sleep(call.wait())

    def _attempt(
        self, request: httpx.Request, call: _Call, ends: float | None, stream: bool
    ) -> httpx.Response | None:
        """One attempt: the response the call ends with, or None where it is to be retried."""
        response = self._http.send(request, stream=True)
        if not call.answered(response):
            response.close()
            return None
        if stream and not response.is_error:
            return response
        return read(response, self.max_response_bytes, ends)

    def _events(
        self, request: httpx.Request, *, resendable: bool, error: ErrorModels
    ) -> Iterator[ServerSentEvent]:
        """Send ``request`` and return the events of its response as they arrive."""
        response = self._send(request, resendable=resendable, stream=True)
        if response.is_error:
            raise status_error(response, error)
        return _events_of(response, self.max_response_bytes)

    def _download(
        self, request: httpx.Request, *, resendable: bool, error: ErrorModels
    ) -> Iterator[bytes]:
        """Send ``request`` and return its response's body in pieces as they arrive (a
        download of any size, which ``max_response_bytes`` does not bound; an error response
        is read within it and raises)."""
        response = self._send(request, resendable=resendable, stream=True)
        if response.is_error:
            raise status_error(response, error)
        return _chunks_of(response)

    def _wait(
        self,
        operation_or_id: M | str,
        model: type[M],
        statuses: Mapping[str, str],
        retrieve: Callable[[str], httpx.Request],
        error: ErrorModels,
        *,
        timeout: float,
        interval: float,
    ) -> M:
        """Poll the operation (``retrieve(id)`` builds the request) until its status is terminal,
        as ``statuses`` say (``"succeeded"``, ``"failed"``, ``"cancelled"``, ``"in-progress"``):
        first after ``interval`` seconds where an operation is given, at once for an id, the
        interval doubling up to 5 s; nothing runs past the deadline."""
        waiting = _Waiting(self, operation_or_id, model, statuses, timeout, interval)
        while not waiting.settled():
            if waiting.delay:
                time.sleep(waiting.delay)
            try:
                response = self._send(
                    retrieve(waiting.operation_id), resendable=True, deadline=waiting.deadline
                )
            except _DeadlinePassed:
                raise waiting.timed_out() from None
            waiting.operation = self._parse(response, model.from_dict, error)
        return waiting.operation  # type: ignore[no-any-return]


class AsyncAPIClient(_BaseClient):
    """The asyncio twin of :class:`SyncAPIClient`. Cancelling a call (``task.cancel()``)
    abandons its request; the client stays usable."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        headers: Mapping[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        server_revision: str | None = None,
        deadline: float | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        limits: httpx.Limits | None = None,
    ) -> None:
        super().__init__(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            deadline=deadline,
            max_response_bytes=max_response_bytes,
            headers=headers,
            server_revision=server_revision,
        )
        pool = _pool_limits(http_client, transport, limits)
        self._owns_http = http_client is None
        self._slots = None
        """What keeps the requests handed to the client's own pool to its size (see
        ``_pool``); None where the pool is not the client's own or has no bound."""
        if http_client is None and transport is None:
            transport, self._slots = async_pool(pool)
        self._http = (
            http_client
            if http_client is not None
            else httpx.AsyncClient(transport=transport, timeout=timeout, limits=pool)
        )

    async def aclose(self) -> None:
        """Close the connection pool (not that of an ``http_client`` passed in)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self: T) -> T:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _send(
        self,
        request: httpx.Request,
        *,
        resendable: bool,
        deadline: float | None = None,
        stream: bool = False,
    ) -> httpx.Response:
        """:meth:`SyncAPIClient._send`, awaited: an attempt is cancelled at its end."""
        call = _Call(self, request, resendable, deadline)
        while True:
            ends = call.start()
            try:
                response = await within(ends, self._attempt(request, call, ends, stream))
            except httpx.TransportError as exc:
                if call.queued and not isinstance(exc, httpx.PoolTimeout):  # never sent
                    exc = httpx.PoolTimeout(f"no connection of the pool was free in time ({exc})")
                call.failed(exc)
            except httpx.HTTPError as exc:  # the response could not be read (decoding, ...)
                raise _connection_error(request, exc) from exc
            else:
                if response is not None:
                    return response
            await asyncio.sleep(call.wait())

    async def _attempt(
        self, request: httpx.Request, call: _Call, ends: float | None, stream: bool
    ) -> httpx.Response | None:
        """:meth:`SyncAPIClient._attempt`, awaited, holding a slot of the client's own pool
        (see ``_pool``) while it runs, or, for an event stream returned, until it is closed."""
        if self._slots is None:
            return await self._exchange(request, call, ends, stream)
        call.queued = True
        async with slot(self._slots, request.extensions["timeout"].get("pool")) as held:
            call.queued = False
            response = await self._exchange(request, call, ends, stream)
            if stream and response is not None and not response.is_error:
                held.keep(response)  # its connection is busy until the stream is closed
            return response

    async def _exchange(
        self, request: httpx.Request, call: _Call, ends: float | None, stream: bool
    ) -> httpx.Response | None:
        response = await self._http.send(request, stream=True)
        if not call.answered(response):
            await response.aclose()
            return None
        if stream and not response.is_error:
            return response
        return await aread(response, self.max_response_bytes, ends)

    async def _events(
        self, request: httpx.Request, *, resendable: bool, error: ErrorModels
    ) -> AsyncIterator[ServerSentEvent]:
        """Send ``request`` and return the events of its response as they arrive."""
        response = await self._send(request, resendable=resendable, stream=True)
        if response.is_error:
            raise status_error(response, error)
        return _aevents_of(response, self.max_response_bytes)

    async def _download(
        self, request: httpx.Request, *, resendable: bool, error: ErrorModels
    ) -> AsyncIterator[bytes]:
        """:meth:`SyncAPIClient._download`, awaited."""
        response = await self._send(request, resendable=resendable, stream=True)
        if response.is_error:
            raise status_error(response, error)
        return _achunks_of(response)

    async def _wait(
        self,
        operation_or_id: M | str,
        model: type[M],
        statuses: Mapping[str, str],
        retrieve: Callable[[str], httpx.Request],
        error: ErrorModels,
        *,
        timeout: float,
        interval: float,
    ) -> M:
        """:meth:`SyncAPIClient._wait`, awaited."""
        waiting = _Waiting(self, operation_or_id, model, statuses, timeout, interval)
        while not waiting.settled():
            if waiting.delay:
                await asyncio.sleep(waiting.delay)
            try:
                response = await self._send(
                    retrieve(waiting.operation_id), resendable=True, deadline=waiting.deadline
                )
            except _DeadlinePassed:
                raise waiting.timed_out() from None
            waiting.operation = self._parse(response, model.from_dict, error)
        return waiting.operation  # type: ignore[no-any-return]
