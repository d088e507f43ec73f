"""The errors the client raises.

Everything derives from :class:`APIError`. A response with an error status raises an
:class:`APIStatusError` subclass chosen by the status; a request that got no response raises
:class:`APIConnectionError` (or :class:`APITimeoutError`).
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from ._model import ValidationError
from .models import ErrorData

_BODY_EXCERPT = 200


class APIError(Exception):
    """The base of every error the client raises."""


class ConfigurationError(APIError):
    """The client is missing a setting it needs, such as the API key."""


class APIConnectionError(APIError):
    """The request got no response: the connection failed, or broke before the response came."""

    def __init__(self, message: str, *, request: httpx.Request) -> None:
        super().__init__(message)
        self.request = request


class APITimeoutError(APIConnectionError):
    """The request timed out."""


class APIResponseValidationError(APIError):
    """A success response whose body does not match the API's schema."""

    def __init__(self, message: str, *, response: httpx.Response) -> None:
        super().__init__(message)
        self.response = response
        self.status_code = response.status_code


class APIStatusError(APIError):
    """The server answered with an error status (4xx or 5xx).

    ``error`` is the parsed error body where the server sent one in the documented format (its
    ``type``, ``message``, ``param`` and ``code``), else ``None``; ``body`` is the raw body.
    """

    def __init__(
        self,
        message: str,
        *,
        response: httpx.Response,
        body: str,
        error: ErrorData | None,
    ) -> None:
        super().__init__(message)
        self.response = response
        self.status_code = response.status_code
        self.headers = response.headers
        self.body = body
        self.error = error


class BadRequestError(APIStatusError):
    """400: the request is malformed."""


class AuthenticationError(APIStatusError):
    """401: the API key is missing or wrong."""


class PermissionDeniedError(APIStatusError):
    """403: the API key may not do this."""


class NotFoundError(APIStatusError):
    """404: no such session or operation."""


class ConflictError(APIStatusError):
    """409: the request conflicts with the current state."""


class UnprocessableEntityError(APIStatusError):
    """422: the request is well-formed but invalid."""


class RateLimitError(APIStatusError):
    """429: too many requests; the client retries these after the server's Retry-After."""


class InternalServerError(APIStatusError):
    """5xx: the server failed."""


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
    error = None
    detail = None
    try:
        data: Any = json.loads(body)
    except ValueError:
        data = None
    if data is not None:
        try:
            error = ErrorData.from_dict(data)
        except ValidationError:
            error = None
    if error is not None:
        detail = error.to_dict().get("error", {}).get("message")
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


class OperationFailedError(APIError):
    """An operation the client waited for ended as FAILED; ``code`` and ``message`` say why."""

    def __init__(self, operation: Any) -> None:
        details = operation.to_dict().get("error", {})
        self.operation = operation
        self.code: str | None = details.get("code")
        self.message: str | None = details.get("message")
        super().__init__(
            f"operation {operation.id} failed: {self.code or 'no code'}: {self.message or 'no message'}"
        )


class OperationTimeoutError(APIError, TimeoutError):
    """An operation the client waited for did not finish before the deadline."""

    def __init__(self, operation: Any, timeout: float) -> None:
        self.operation = operation
        super().__init__(
            f"operation {operation.id} did not finish within {timeout:g} s (last status {operation.status})"
        )
