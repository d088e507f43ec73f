"""The HTTP client of the Together RL API, revision f26a23fab8e0: Client and AsyncClient.

Retries. Requests that may be sent again are retried up to ``max_retries`` times, with
exponential backoff and jitter, or after the delay the server asks for in ``Retry-After``. A
GET is retried on a connection error, a timeout, 408, 429 and 5xx. A POST is not idempotent in
this API (optim-step carries no idempotency key), so a POST that the server may have received
is never sent twice: it is retried only when the request provably was not processed, that is
when the connection failed before the request was sent, or on 429.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import os
import random
import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any, TypeVar
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
    UnprocessableEntityError,
    ValidationError,
)
from ._model import UNSET, Model, Unset
from .models import (
    ErrorData,
    RLAdamParams,
    RLMuonParams,
    RLOptimStepBody,
    RLOptimStepOperation,
    RLTrainingOperationStatus,
)

__all__ = ["AsyncClient", "Client"]

logger = logging.getLogger("together_rl")

DEFAULT_BASE_URL = "https://api.together.ai/v1"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2

_USER_AGENT = "together-rl/5.0.0 (API revision f26a23fab8e0)"
_FIRST_RETRY_DELAY = 0.5
_MAX_RETRY_DELAY = 8.0
_MAX_RETRY_AFTER = 60.0
_MAX_POLL_INTERVAL = 5.0
_BODY_EXCERPT = 200
# Methods the server may receive twice without harm.
_IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})
# Failures that happen before the request leaves: the server cannot have processed it.
_NOT_SENT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)

M = TypeVar("M", bound=Model)


def _path_parameter(value: str, name: str) -> str:
    """``value`` escaped for a path segment; empty values are refused before anything is sent."""
    if not isinstance(value, str) or not value:
        raise ValidationError(name, "must be a non-empty string", value)
    return quote(value, safe="")


def _coerce(value: M | Mapping[str, Any] | Unset, model: type[M], path: str) -> M | Unset:
    """A model argument given as the model, or as a dict in the wire format."""
    if value is UNSET or isinstance(value, model):
        return value
    if isinstance(value, Mapping):
        return model.from_dict(value, path)
    raise ValidationError(path, f"expected a {model.__name__} or a dict", value)


def _retry_after(response: httpx.Response) -> float | None:
    """The delay the server asks for, in seconds: ``Retry-After`` as seconds or an HTTP date."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    when = email.utils.parsedate_to_datetime(value) if email.utils.parsedate_tz(value) else None
    return None if when is None else max(0.0, when.timestamp() - time.time())


_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def status_error(response: httpx.Response) -> APIStatusError:
    """The error for an error response, with the most useful message its body allows."""
    body = response.text
    try:
        error: ErrorData | None = ErrorData.from_json(body)
    except ValidationError:
        error = None
    details = error.to_dict().get("error") if error is not None else None
    detail = details.get("message") if isinstance(details, dict) else None
    if detail is None:
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


def _connection_error(request: httpx.Request, exc: httpx.TransportError) -> APIConnectionError:
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
    ) -> None:
        api_key = api_key if api_key is not None else os.environ.get("TOGETHER_API_KEY")
        if not api_key:
            raise ConfigurationError("no API key: pass api_key=... or set TOGETHER_API_KEY")
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {max_retries}")
        self.base_url = (
            base_url or os.environ.get("TOGETHER_BASE_URL") or DEFAULT_BASE_URL
        ).rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
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
        params: Mapping[str, str | None] | None = None,
        headers: Mapping[str, str | None] | None = None,
    ) -> httpx.Request:
        extra = {k: v for k, v in (headers or {}).items() if v is not None}
        return httpx.Request(
            method,
            self.base_url + path,
            json=json,
            params={k: v for k, v in (params or {}).items() if v is not None},
            headers={**self._headers, **extra},
            extensions={"timeout": httpx.Timeout(self.timeout).as_dict()},
        )

    def _should_retry(
        self,
        request: httpx.Request,
        attempt: int,
        *,
        response: httpx.Response | None = None,
        error: httpx.TransportError | None = None,
    ) -> bool:
        if attempt >= self.max_retries:
            return False
        idempotent = request.method in _IDEMPOTENT_METHODS
        if error is not None:
            return idempotent or isinstance(error, _NOT_SENT_ERRORS)
        assert response is not None
        if response.status_code == 429:
            return True
        return idempotent and (response.status_code == 408 or response.status_code >= 500)

    def _retry_delay(self, attempt: int, response: httpx.Response | None) -> float:
        asked = _retry_after(response) if response is not None else None
        if asked is not None:
            return min(asked, _MAX_RETRY_AFTER)
        backoff = min(_FIRST_RETRY_DELAY * 2.0**attempt, _MAX_RETRY_DELAY)
        return backoff * (1 - 0.25 * random.random())

    def _parse(self, response: httpx.Response, model: type[M]) -> M:
        if response.is_error:
            raise status_error(response)
        try:
            return model.from_json(response.content)
        except ValidationError as exc:
            raise APIResponseValidationError(
                f"the {response.status_code} response is not a valid {model.__name__}: {exc}",
                response=response,
            ) from exc


class Client(_BaseClient):
    """A client of the Together RL API, revision f26a23fab8e0.

    ``api_key`` defaults to ``TOGETHER_API_KEY``; ``base_url`` to ``TOGETHER_BASE_URL``, else
    https://api.together.ai/v1. ``timeout`` (seconds, or an ``httpx.Timeout``) applies to each request;
    ``max_retries`` bounds the retries of one call (see the module's retry rule); ``headers`` are
    sent with every request. Pass ``transport`` to serve requests another way (a test double, a
    local session), or ``http_client`` to bring a configured ``httpx.Client``, which the client
    then does not close. Use it as a context manager, or call :meth:`close`.
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
    ) -> None:
        super().__init__(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            headers=headers,
        )
        if http_client is not None and transport is not None:
            raise ValueError("pass http_client or transport, not both")
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

    def _send(self, request: httpx.Request) -> httpx.Response:
        """Send ``request``, retrying as the module's retry rule allows."""
        attempt = 0
        while True:
            logger.debug("sending %s %s", request.method, request.url)
            try:
                response = self._http.send(request)
            except httpx.TransportError as exc:
                if not self._should_retry(request, attempt, error=exc):
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
            else:
                logger.debug("%s %s answered %d", request.method, request.url, response.status_code)
                if not self._should_retry(request, attempt, response=response):
                    return response
                delay = self._retry_delay(attempt, response)
                logger.info(
                    "%s %s answered %d; retry %d in %.2f s",
                    request.method,
                    request.url,
                    response.status_code,
                    attempt + 1,
                    delay,
                )
            time.sleep(delay)
            attempt += 1

    def optim_step(
        self,
        session_id: str,
        *,
        adam_params: RLAdamParams | Mapping[str, Any] | Unset = UNSET,
        muon_params: RLMuonParams | Mapping[str, Any] | Unset = UNSET,
    ) -> RLOptimStepOperation:
        """Optimizer step

        Submits an optimizer step operation that will asynchronously apply accumulated
        gradients to update model parameters. Does not make the updated parameters available
        for sampling; call `weights-sync` afterwards when you want subsequent samples to use
        the updated policy.

        Args:
            session_id: Training session ID
            adam_params: Per-step Adam optimizer overrides.
            muon_params: Per-step Muon optimizer overrides

        Returns the RLOptimStepOperation.
        """
        body = RLOptimStepBody(
            adam_params=_coerce(adam_params, RLAdamParams, "adam_params"),
            muon_params=_coerce(muon_params, RLMuonParams, "muon_params"),
        )
        request = self._build_request(
            "POST",
            f"/rl/training-sessions/{_path_parameter(session_id, 'session_id')}/operations/optim-step",
            json=body.to_dict(),
        )
        return self._parse(self._send(request), RLOptimStepOperation)

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
        request = self._build_request(
            "GET",
            f"/rl/training-sessions/{_path_parameter(session_id, 'session_id')}/operations/optim-step/{_path_parameter(operation_id, 'operation_id')}",
        )
        return self._parse(self._send(request), RLOptimStepOperation)

    def wait_for_optim_step(
        self,
        session_id: str,
        operation_or_id: RLOptimStepOperation | str,
        *,
        timeout: float = 300.0,
        interval: float = 0.5,
    ) -> RLOptimStepOperation:
        """Wait for an operation submitted with ``optim_step`` to finish.

        Polls ``get_optim_step_operation``, first after ``interval`` seconds, the interval
        doubling up to 5 s and never sleeping past the deadline.

        Returns the operation once its status is TRAINING_OPERATION_STATUS_COMPLETED. Raises
        OperationFailedError (with the error's code and message) when it is
        TRAINING_OPERATION_STATUS_FAILED, and OperationTimeoutError (a TimeoutError) when it
        has not finished after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        if isinstance(operation_or_id, RLOptimStepOperation):
            operation = operation_or_id
        else:
            operation = self.get_optim_step_operation(session_id, operation_or_id)
        while True:
            if operation.status == RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_COMPLETED:
                return operation
            if operation.status == RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_FAILED:
                raise OperationFailedError(operation)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise OperationTimeoutError(operation, timeout)
            delay = min(interval, remaining)
            logger.debug(
                "operation %s is %s; polling again in %.2f s", operation.id, operation.status, delay
            )
            time.sleep(delay)
            interval = min(interval * 2, _MAX_POLL_INTERVAL)
            operation = self.get_optim_step_operation(session_id, operation.id)


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
    ) -> None:
        super().__init__(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            headers=headers,
        )
        if http_client is not None and transport is not None:
            raise ValueError("pass http_client or transport, not both")
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

    async def _send(self, request: httpx.Request) -> httpx.Response:
        """Send ``request``, retrying as the module's retry rule allows."""
        attempt = 0
        while True:
            logger.debug("sending %s %s", request.method, request.url)
            try:
                response = await self._http.send(request)
            except httpx.TransportError as exc:
                if not self._should_retry(request, attempt, error=exc):
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
            else:
                logger.debug("%s %s answered %d", request.method, request.url, response.status_code)
                if not self._should_retry(request, attempt, response=response):
                    return response
                delay = self._retry_delay(attempt, response)
                logger.info(
                    "%s %s answered %d; retry %d in %.2f s",
                    request.method,
                    request.url,
                    response.status_code,
                    attempt + 1,
                    delay,
                )
            await asyncio.sleep(delay)
            attempt += 1

    async def optim_step(
        self,
        session_id: str,
        *,
        adam_params: RLAdamParams | Mapping[str, Any] | Unset = UNSET,
        muon_params: RLMuonParams | Mapping[str, Any] | Unset = UNSET,
    ) -> RLOptimStepOperation:
        """Optimizer step

        Submits an optimizer step operation that will asynchronously apply accumulated
        gradients to update model parameters. Does not make the updated parameters available
        for sampling; call `weights-sync` afterwards when you want subsequent samples to use
        the updated policy.

        Args:
            session_id: Training session ID
            adam_params: Per-step Adam optimizer overrides.
            muon_params: Per-step Muon optimizer overrides

        Returns the RLOptimStepOperation.
        """
        body = RLOptimStepBody(
            adam_params=_coerce(adam_params, RLAdamParams, "adam_params"),
            muon_params=_coerce(muon_params, RLMuonParams, "muon_params"),
        )
        request = self._build_request(
            "POST",
            f"/rl/training-sessions/{_path_parameter(session_id, 'session_id')}/operations/optim-step",
            json=body.to_dict(),
        )
        return self._parse(await self._send(request), RLOptimStepOperation)

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
        request = self._build_request(
            "GET",
            f"/rl/training-sessions/{_path_parameter(session_id, 'session_id')}/operations/optim-step/{_path_parameter(operation_id, 'operation_id')}",
        )
        return self._parse(await self._send(request), RLOptimStepOperation)

    async def wait_for_optim_step(
        self,
        session_id: str,
        operation_or_id: RLOptimStepOperation | str,
        *,
        timeout: float = 300.0,
        interval: float = 0.5,
    ) -> RLOptimStepOperation:
        """Wait for an operation submitted with ``optim_step`` to finish.

        Polls ``get_optim_step_operation``, first after ``interval`` seconds, the interval
        doubling up to 5 s and never sleeping past the deadline.

        Returns the operation once its status is TRAINING_OPERATION_STATUS_COMPLETED. Raises
        OperationFailedError (with the error's code and message) when it is
        TRAINING_OPERATION_STATUS_FAILED, and OperationTimeoutError (a TimeoutError) when it
        has not finished after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        if isinstance(operation_or_id, RLOptimStepOperation):
            operation = operation_or_id
        else:
            operation = await self.get_optim_step_operation(session_id, operation_or_id)
        while True:
            if operation.status == RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_COMPLETED:
                return operation
            if operation.status == RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_FAILED:
                raise OperationFailedError(operation)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise OperationTimeoutError(operation, timeout)
            delay = min(interval, remaining)
            logger.debug(
                "operation %s is %s; polling again in %.2f s", operation.id, operation.status, delay
            )
            await asyncio.sleep(delay)
            interval = min(interval * 2, _MAX_POLL_INTERVAL)
            operation = await self.get_optim_step_operation(session_id, operation.id)
