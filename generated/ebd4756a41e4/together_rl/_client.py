"""The HTTP client of the Together RL API, revision ebd4756a41e4: Client and AsyncClient.

Retries. A call is retried up to ``max_retries`` times, with exponential backoff and jitter,
or after the delay the server asks for (``retry-after-ms``, or ``Retry-After`` in seconds or
as an HTTP date, where it is at most 60 s); a server's ``x-should-retry: true`` or ``false``
decides on its own. A request the server may receive twice without harm is retried on a
connection error, a timeout, 408, 409, 429 and 5xx: a GET. In this revision ``optim_step``
carries no idempotency key, so such a call is never sent twice when the server may have
received it (an optimizer step applied twice silently corrupts a training run): it is retried
only when it provably was not processed, that is when the connection failed before the request
was sent, or on 429.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import json
import logging
import os
import random
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from types import TracebackType
from typing import Any, TypeVar, cast
from urllib.parse import quote

import httpx

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
    OperationFailedError,
    OperationTimeoutError,
    PermissionDeniedError,
    RateLimitError,
    RevisionMismatchError,
    UnprocessableEntityError,
    ValidationError,
)
from ._model import UNSET, Model, Unset, check_string
from ._revision import NOT_APPLIED_BY, SPEC_REVISION
from .models import (
    ErrorData,
    RLAdamParams,
    RLMuonParams,
    RLOptimStepBody,
    RLOptimStepOperation,
    RLTrainingOperationStatus,
    RLWeightSyncType,
)

__all__ = ["AsyncClient", "Client"]

logger = logging.getLogger("together_rl")

DEFAULT_BASE_URL = "https://api.together.ai"
"""The API's host; ``TOGETHER_BASE_URL`` and ``base_url`` replace it, as for the official SDK."""
API_PREFIX = "/v1"
"""Put between the base URL and every operation's path (a base URL that ends in it is taken as
it is)."""
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2

_USER_AGENT = "together-rl/4.0.0 (API revision ebd4756a41e4)"
_FIRST_RETRY_DELAY = 0.5
_MAX_RETRY_DELAY = 8.0
_MAX_RETRY_AFTER = 60.0
_MAX_POLL_INTERVAL = 5.0
_BODY_EXCERPT = 200
# Statuses after which a request that may be sent again is retried.
_RETRIED_STATUSES = frozenset({408, 409, 429})
# Failures that happen before the request leaves: the server cannot have processed it.
_NOT_SENT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)

_OPTIM_STEP_STATUSES: dict[str, str] = {
    RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_UNSPECIFIED: "in-progress",
    RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_PENDING: "in-progress",
    RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_RUNNING: "in-progress",
    RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_COMPLETED: "succeeded",
    RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_FAILED: "failed",
}
"""What each status of an operation means to ``wait_for_optim_step``, from the project's status
data (spec/statuses.yaml).
"""

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


class _DeadlinePassed(Exception):
    """A waiter's deadline came before the request could be sent or sent again."""


def _rejecting_removed_fields(removed: Mapping[str, str]) -> Callable[[F], F]:
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


def _form(payload: Mapping[str, Any]) -> dict[str, str | list[str]]:
    """A form's fields as they are sent: each value as text, a list as repeated fields."""
    return {
        key: [_text(v) for v in value] if isinstance(value, list) else _text(value)
        for key, value in payload.items()
    }


def _multipart(payload: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A multipart body's files (bytes or binary file objects) and its other fields as text."""
    files = {k: v for k, v in payload.items() if isinstance(v, bytes) or hasattr(v, "read")}
    return files, _form({k: v for k, v in payload.items() if k not in files})


def _text(value: object) -> str:
    """A checked parameter value as it travels: strings as they are, booleans as ``true`` and
    ``false``, numbers as JSON writes them."""
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _parameter(
    value: object, name: str, write: Callable[[Any, str], object]
) -> str | list[str] | None:
    """A query, header or cookie parameter, checked against its schema; ``None`` leaves it out."""
    if value is None:
        return None
    checked = write(value, name)
    return [_text(item) for item in checked] if isinstance(checked, list) else _text(checked)


def _path_parameter(value: object, name: str, write: Callable[[Any, str], object]) -> str:
    """A path parameter, checked and escaped for a path segment; an empty value is refused
    before anything is sent."""
    text = _text(write(value, name))
    if not text:
        raise ValidationError(name, "must not be empty", value)
    return quote(text, safe="")


def _idempotency_key(given: object, name: str, write: Callable[[Any, str], object]) -> str:
    """The caller's idempotency key, checked, or a new one for this call (its retries send the
    same key again)."""
    if given is None:
        return str(uuid.uuid4())
    text = _parameter(given, name, write)
    if not isinstance(text, str) or not text:
        raise ValidationError(name, "must be a non-empty string", given)
    return text


def _wire(value: Any) -> Any:
    """Arguments in the wire format: models as the dicts they write, UNSET fields left out;
    the body's model then reads (and so checks) them, plain dicts and models alike."""
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {key: _wire(item) for key, item in value.items() if item is not UNSET}
    if isinstance(value, (list, tuple)):
        return [_wire(item) for item in value]
    return value


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


def status_error(response: httpx.Response, error_model: type[Model] | None) -> APIStatusError:
    """The error for an error response, with the most useful message its body allows; the body
    is read as ``error_model`` where it is in the documented format."""
    body = response.text
    error: Any = None
    if error_model is not None:
        try:
            error = error_model.from_json(body)
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


def _connection_error(request: httpx.Request, exc: httpx.HTTPError) -> APIConnectionError:
    message = f"{request.method} {request.url}: {exc or type(exc).__name__}"
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError(message, request=request)
    return APIConnectionError(message, request=request)


class _BaseClient:
    """Configuration, request building and the retry rule, shared by both clients."""

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str | None,
        timeout: float | httpx.Timeout,
        max_retries: int,
        headers: Mapping[str, str] | None,
        server_revision: str | None,
    ) -> None:
        api_key = api_key if api_key is not None else os.environ.get("TOGETHER_API_KEY")
        if not api_key:
            raise ConfigurationError("no API key: pass api_key=... or set TOGETHER_API_KEY")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigurationError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        self.base_url = (
            base_url or os.environ.get("TOGETHER_BASE_URL") or DEFAULT_BASE_URL
        ).rstrip("/")
        if not self.base_url:
            raise ConfigurationError("no base URL: pass base_url=... or set TOGETHER_BASE_URL")
        root = self.base_url if self.base_url.endswith(API_PREFIX) else self.base_url + API_PREFIX
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
        self.max_retries = max_retries
        self.server_revision = server_revision
        if server_revision not in (None, SPEC_REVISION, *NOT_APPLIED_BY):
            logger.warning(
                "the server's revision %s is not known to this package (revision %s): which of "
                "the fields it sends that server ignores cannot be told; see the project's "
                "compatibility matrix (python -m generator compat)",
                server_revision,
                SPEC_REVISION,
            )
        self._headers = {
            "Authorization": f"Bearer {api_key}",
            "Accept": "application/json",
            "User-Agent": _USER_AGENT,
            **(headers or {}),
        }

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
        content: bytes | None = None,
        content_type: str | None = None,
        accept: str | None = None,
        params: Mapping[str, str | list[str] | None] | None = None,
        headers: Mapping[str, str | list[str] | None] | None = None,
        cookies: Mapping[str, str | list[str] | None] | None = None,
    ) -> httpx.Request:
        given_headers = {k: str(v) for k, v in (headers or {}).items() if v is not None}
        given_cookies = {k: v for k, v in (cookies or {}).items() if isinstance(v, str)}
        if given_cookies:
            pairs = "; ".join(f"{name}={value}" for name, value in given_cookies.items())
            given_headers["Cookie"] = pairs
        if content_type is not None:
            given_headers["Content-Type"] = content_type
        if accept is not None:
            given_headers["Accept"] = accept
        files, fields = _multipart(multipart) if multipart is not None else (None, None)
        return httpx.Request(
            method,
            self._root + path,
            json=json,
            data=data if data is not None else fields,
            files=files,
            content=content,
            params={k: v for k, v in (params or {}).items() if v is not None},
            headers={**self._headers, **given_headers},
            extensions={"timeout": self.timeout.as_dict()},
        )

    def _warn_not_applied(self, payload: Mapping[str, Any]) -> None:
        """Warn of the fields of ``payload`` that a server of ``server_revision`` does not apply
        as this package means them (it ignores or rejects them)."""
        known = NOT_APPLIED_BY.get(self.server_revision or "")
        if not known:
            return
        sent = set(_paths(payload))
        found = [
            f"{path}: {why}" for path, why in known.items() if path in sent or path == "(request)"
        ]
        if found:
            logger.warning(
                "a server of revision %s does not apply what this client (revision %s) sends: %s",
                self.server_revision,
                SPEC_REVISION,
                "; ".join(found),
            )

    def _fit_timeout(self, request: httpx.Request, deadline: float | None) -> None:
        """Hold the request's timeouts to what is left before ``deadline``."""
        if deadline is None:
            return
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _DeadlinePassed
        limits = {
            name: remaining if value is None else min(value, remaining)
            for name, value in self.timeout.as_dict().items()
        }
        request.extensions["timeout"] = limits

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
        asked = response.headers.get("x-should-retry")
        if asked in ("true", "false"):
            return bool(asked == "true")
        if response.status_code == 429:
            return True
        return resendable and (
            response.status_code in _RETRIED_STATUSES or response.status_code >= 500
        )

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
        error_model: type[Model] | None,
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


class Client(_BaseClient):
    """A client of the Together RL API, revision ebd4756a41e4.

    ``api_key`` defaults to ``TOGETHER_API_KEY``; ``base_url`` to ``TOGETHER_BASE_URL``, else
    https://api.together.ai/v1. ``timeout`` (seconds, or an ``httpx.Timeout``) applies to each
    request; ``max_retries`` bounds the retries of one call (see the module's retry rule);
    ``headers`` are sent with every request. Pass ``transport`` to serve requests another way
    (a test double, a local session), or ``http_client`` to bring a configured
    ``httpx.Client``, which the client then does not close. ``server_revision`` names the API
    revision of the server, where it is not this package's: the client then logs a warning for
    each request with fields that server would ignore or reject. Use it as a context manager,
    or call :meth:`close`.
    """

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
    ) -> None:
        super().__init__(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            headers=headers,
            server_revision=server_revision,
        )
        if http_client is not None and transport is not None:
            raise ConfigurationError("pass http_client or transport, not both")
        self._owns_http = http_client is None
        self._http = (
            http_client
            if http_client is not None
            else httpx.Client(transport=transport, timeout=timeout)
        )

    def close(self) -> None:
        """Close the connection pool (not that of an ``http_client`` passed in)."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
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
        """Send ``request``, retrying as the module's retry rule allows; with a ``deadline``
        (``time.monotonic()``), no attempt or wait runs past it. With ``stream``, the body of
        the response returned is left to be read."""
        attempt = 0
        while True:
            self._fit_timeout(request, deadline)
            logger.debug("sending %s %s", request.method, request.url)
            try:
                response = self._http.send(request, stream=stream)
            except httpx.TransportError as exc:
                if not self._should_retry(attempt, resendable, error=exc):
                    raise _connection_error(request, exc) from exc
                delay = self._retry_delay(attempt, None)
                logger.info(
                    "%s %s failed (%s); retry %d in %.2f s",
                    request.method,
                    request.url,
                    type(exc).__name__,
                    attempt + 1,
                    delay,
                )
            except httpx.HTTPError as exc:  # the response could not be read (decoding, ...)
                raise _connection_error(request, exc) from exc
            else:
                logger.debug("%s %s answered %d", request.method, request.url, response.status_code)
                if not self._should_retry(attempt, resendable, response=response):
                    return response
                response.close()
                delay = self._retry_delay(attempt, response)
                logger.info(
                    "%s %s answered %d; retry %d in %.2f s",
                    request.method,
                    request.url,
                    response.status_code,
                    attempt + 1,
                    delay,
                )
            if deadline is not None and time.monotonic() + delay >= deadline:
                raise _DeadlinePassed
            time.sleep(delay)
            attempt += 1

    @_rejecting_removed_fields(
        {
            "adamw_params": "was removed in revision 9ccc57e5e4b9, 2026-07-31",
            "learning_rate": "was removed in revision 0c4fdad77435, 2026-07-26",
            "max_grad_norm": "was removed in revision 9ccc57e5e4b9, 2026-07-31",
        }
    )
    def optim_step(
        self,
        session_id: str,
        *,
        adam_params: RLAdamParams | Mapping[str, Any] | Unset = UNSET,
        muon_params: RLMuonParams | Mapping[str, Any] | Unset = UNSET,
        weight_sync_type: RLWeightSyncType,
    ) -> RLOptimStepOperation:
        """Optimizer step

        Submits an optimizer step operation that will asynchronously apply accumulated
        gradients to update model parameters.

        Args:
            session_id: Training session ID
            adam_params: Per-step Adam optimizer overrides.
            muon_params: Per-step Muon optimizer overrides
            weight_sync_type: How the trainer's updated weights are propagated to the
                generator after this optimizer step.

        Returns the RLOptimStepOperation.
        """
        _payload = RLOptimStepBody.from_dict(
            _wire(
                {
                    "adam_params": adam_params,
                    "muon_params": muon_params,
                    "weight_sync_type": weight_sync_type,
                }
            )
        ).to_dict()
        self._warn_not_applied(_payload)
        _request = self._build_request(
            "POST",
            f"/rl/training-sessions/{_path_parameter(session_id, 'session_id', check_string)}/operations/optim-step",
            json=_payload,
        )
        return self._parse(
            self._send(_request, resendable=False), RLOptimStepOperation.from_dict, ErrorData
        )

    def get_optim_step_operation(
        self,
        session_id: str,
        operation_id: str,
    ) -> RLOptimStepOperation:
        """Get optim-step operation

        Retrieves the current status and result of an optim-step operation.

        Args:
            session_id: Training session ID
            operation_id: Operation ID

        Returns the RLOptimStepOperation.
        """
        _request = self._build_request(
            "GET",
            f"/rl/training-sessions/{_path_parameter(session_id, 'session_id', check_string)}/operations/optim-step/{_path_parameter(operation_id, 'operation_id', check_string)}",
        )
        return self._parse(
            self._send(_request, resendable=True), RLOptimStepOperation.from_dict, ErrorData
        )

    def wait_for_optim_step(
        self,
        session_id: str,
        operation_or_id: RLOptimStepOperation | str,
        *,
        timeout: float = 300.0,
        interval: float = 0.5,
    ) -> RLOptimStepOperation:
        """Wait for an operation submitted with ``optim_step`` to finish.

        Polls it as ``get_optim_step_operation`` does, first after ``interval`` seconds where
        an operation is given (at once for an id), the interval doubling up to 5 s. Nothing
        runs past the deadline: not a poll, a retry of one, or a wait.

        Returns the operation once its status is ``TRAINING_OPERATION_STATUS_COMPLETED``.
        Raises OperationFailedError (with the error's code and message) when it is
        ``TRAINING_OPERATION_STATUS_FAILED``, and OperationTimeoutError (a TimeoutError) when
        it has not finished after ``timeout`` seconds. A status this package does not know
        (one a later revision of the API added) is polled on, with a warning logged once: if
        it is terminal, the wait ends at its deadline with OperationTimeoutError naming it.
        """
        deadline = time.monotonic() + timeout
        if isinstance(operation_or_id, RLOptimStepOperation):
            operation: RLOptimStepOperation | None = operation_or_id
            operation_id = operation_or_id.id
        else:
            operation, operation_id = None, operation_or_id
        unknown: set[str] = set()
        while True:
            if operation is not None:
                kind = _OPTIM_STEP_STATUSES.get(operation.status)
                if kind == "succeeded":
                    return operation
                if kind == "failed":
                    raise OperationFailedError(operation)
                if kind is None and operation.status not in unknown:
                    unknown.add(operation.status)
                    logger.warning(
                        "operation %s has the status %s, which this package (API revision %s) "
                        "does not know; polling on until it changes or the deadline passes",
                        operation_id,
                        operation.status,
                        SPEC_REVISION,
                    )
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise OperationTimeoutError(operation, timeout, operation_id=operation_id)
                delay = min(interval, remaining)
                logger.debug(
                    "operation %s is %s; polling again in %.2f s",
                    operation_id,
                    operation.status,
                    delay,
                )
                time.sleep(delay)
                interval = min(interval * 2, _MAX_POLL_INTERVAL)
            request = self._build_request(
                "GET",
                f"/rl/training-sessions/{_path_parameter(session_id, 'session_id', check_string)}/operations/optim-step/{_path_parameter(operation_id, 'operation_id', check_string)}",
            )
            try:
                response = self._send(request, resendable=True, deadline=deadline)
            except _DeadlinePassed:
                raise OperationTimeoutError(operation, timeout, operation_id=operation_id) from None
            operation = self._parse(response, RLOptimStepOperation.from_dict, ErrorData)


class AsyncClient(_BaseClient):
    """The asyncio twin of :class:`Client`: the same configuration and methods, awaited.

    Cancelling a call (``task.cancel()``) abandons its request; the client stays usable. Use it as
    an async context manager, or call :meth:`aclose`.
    """

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
    ) -> None:
        super().__init__(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            headers=headers,
            server_revision=server_revision,
        )
        if http_client is not None and transport is not None:
            raise ConfigurationError("pass http_client or transport, not both")
        self._owns_http = http_client is None
        self._http = (
            http_client
            if http_client is not None
            else httpx.AsyncClient(transport=transport, timeout=timeout)
        )

    async def aclose(self) -> None:
        """Close the connection pool (not that of an ``http_client`` passed in)."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
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
        """Send ``request``, retrying as the module's retry rule allows; with a ``deadline``
        (``time.monotonic()``), no attempt or wait runs past it. With ``stream``, the body of
        the response returned is left to be read."""
        attempt = 0
        while True:
            self._fit_timeout(request, deadline)
            logger.debug("sending %s %s", request.method, request.url)
            try:
                response = await self._http.send(request, stream=stream)
            except httpx.TransportError as exc:
                if not self._should_retry(attempt, resendable, error=exc):
                    raise _connection_error(request, exc) from exc
                delay = self._retry_delay(attempt, None)
                logger.info(
                    "%s %s failed (%s); retry %d in %.2f s",
                    request.method,
                    request.url,
                    type(exc).__name__,
                    attempt + 1,
                    delay,
                )
            except httpx.HTTPError as exc:  # the response could not be read (decoding, ...)
                raise _connection_error(request, exc) from exc
            else:
                logger.debug("%s %s answered %d", request.method, request.url, response.status_code)
                if not self._should_retry(attempt, resendable, response=response):
                    return response
                await response.aclose()
                delay = self._retry_delay(attempt, response)
                logger.info(
                    "%s %s answered %d; retry %d in %.2f s",
                    request.method,
                    request.url,
                    response.status_code,
                    attempt + 1,
                    delay,
                )
            if deadline is not None and time.monotonic() + delay >= deadline:
                raise _DeadlinePassed
            await asyncio.sleep(delay)
            attempt += 1

    @_rejecting_removed_fields(
        {
            "adamw_params": "was removed in revision 9ccc57e5e4b9, 2026-07-31",
            "learning_rate": "was removed in revision 0c4fdad77435, 2026-07-26",
            "max_grad_norm": "was removed in revision 9ccc57e5e4b9, 2026-07-31",
        }
    )
    async def optim_step(
        self,
        session_id: str,
        *,
        adam_params: RLAdamParams | Mapping[str, Any] | Unset = UNSET,
        muon_params: RLMuonParams | Mapping[str, Any] | Unset = UNSET,
        weight_sync_type: RLWeightSyncType,
    ) -> RLOptimStepOperation:
        """Optimizer step

        Submits an optimizer step operation that will asynchronously apply accumulated
        gradients to update model parameters.

        Args:
            session_id: Training session ID
            adam_params: Per-step Adam optimizer overrides.
            muon_params: Per-step Muon optimizer overrides
            weight_sync_type: How the trainer's updated weights are propagated to the
                generator after this optimizer step.

        Returns the RLOptimStepOperation.
        """
        _payload = RLOptimStepBody.from_dict(
            _wire(
                {
                    "adam_params": adam_params,
                    "muon_params": muon_params,
                    "weight_sync_type": weight_sync_type,
                }
            )
        ).to_dict()
        self._warn_not_applied(_payload)
        _request = self._build_request(
            "POST",
            f"/rl/training-sessions/{_path_parameter(session_id, 'session_id', check_string)}/operations/optim-step",
            json=_payload,
        )
        return self._parse(
            await self._send(_request, resendable=False), RLOptimStepOperation.from_dict, ErrorData
        )

    async def get_optim_step_operation(
        self,
        session_id: str,
        operation_id: str,
    ) -> RLOptimStepOperation:
        """Get optim-step operation

        Retrieves the current status and result of an optim-step operation.

        Args:
            session_id: Training session ID
            operation_id: Operation ID

        Returns the RLOptimStepOperation.
        """
        _request = self._build_request(
            "GET",
            f"/rl/training-sessions/{_path_parameter(session_id, 'session_id', check_string)}/operations/optim-step/{_path_parameter(operation_id, 'operation_id', check_string)}",
        )
        return self._parse(
            await self._send(_request, resendable=True), RLOptimStepOperation.from_dict, ErrorData
        )

    async def wait_for_optim_step(
        self,
        session_id: str,
        operation_or_id: RLOptimStepOperation | str,
        *,
        timeout: float = 300.0,
        interval: float = 0.5,
    ) -> RLOptimStepOperation:
        """Wait for an operation submitted with ``optim_step`` to finish.

        Polls it as ``get_optim_step_operation`` does, first after ``interval`` seconds where
        an operation is given (at once for an id), the interval doubling up to 5 s. Nothing
        runs past the deadline: not a poll, a retry of one, or a wait.

        Returns the operation once its status is ``TRAINING_OPERATION_STATUS_COMPLETED``.
        Raises OperationFailedError (with the error's code and message) when it is
        ``TRAINING_OPERATION_STATUS_FAILED``, and OperationTimeoutError (a TimeoutError) when
        it has not finished after ``timeout`` seconds. A status this package does not know
        (one a later revision of the API added) is polled on, with a warning logged once: if
        it is terminal, the wait ends at its deadline with OperationTimeoutError naming it.
        """
        deadline = time.monotonic() + timeout
        if isinstance(operation_or_id, RLOptimStepOperation):
            operation: RLOptimStepOperation | None = operation_or_id
            operation_id = operation_or_id.id
        else:
            operation, operation_id = None, operation_or_id
        unknown: set[str] = set()
        while True:
            if operation is not None:
                kind = _OPTIM_STEP_STATUSES.get(operation.status)
                if kind == "succeeded":
                    return operation
                if kind == "failed":
                    raise OperationFailedError(operation)
                if kind is None and operation.status not in unknown:
                    unknown.add(operation.status)
                    logger.warning(
                        "operation %s has the status %s, which this package (API revision %s) "
                        "does not know; polling on until it changes or the deadline passes",
                        operation_id,
                        operation.status,
                        SPEC_REVISION,
                    )
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise OperationTimeoutError(operation, timeout, operation_id=operation_id)
                delay = min(interval, remaining)
                logger.debug(
                    "operation %s is %s; polling again in %.2f s",
                    operation_id,
                    operation.status,
                    delay,
                )
                await asyncio.sleep(delay)
                interval = min(interval * 2, _MAX_POLL_INTERVAL)
            request = self._build_request(
                "GET",
                f"/rl/training-sessions/{_path_parameter(session_id, 'session_id', check_string)}/operations/optim-step/{_path_parameter(operation_id, 'operation_id', check_string)}",
            )
            try:
                response = await self._send(request, resendable=True, deadline=deadline)
            except _DeadlinePassed:
                raise OperationTimeoutError(operation, timeout, operation_id=operation_id) from None
            operation = self._parse(response, RLOptimStepOperation.from_dict, ErrorData)
