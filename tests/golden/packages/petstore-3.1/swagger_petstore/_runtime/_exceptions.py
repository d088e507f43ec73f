"""The errors a generated package raises (and re-exports).

Every error it raises on purpose derives from :class:`APIError`, so ``except APIError`` catches
them all::

    APIError
    ├── ConfigurationError            a setting is missing or wrong: the client's API key, ...
    ├── ValidationError (ValueError)  a value does not match the API's schema: JSON path and value
    │   └── RevisionMismatchError (TypeError)
    │                                 a field of an earlier revision that this one removed
    ├── APIConnectionError            the request got no response
    │   └── APITimeoutError           ... because it timed out
    ├── APIResponseValidationError    a success response that does not match the API's schema
    ├── APIResponseTooLargeError      a response's body over the client's max_response_bytes
    ├── APIStatusError                the server answered with an error status (4xx, 5xx)
    │   ├── BadRequestError           400
    │   ├── AuthenticationError       401
    │   ├── PermissionDeniedError     403
    │   ├── NotFoundError             404
    │   ├── ConflictError             409
    │   ├── UnprocessableEntityError  422
    │   ├── RateLimitError            429
    │   └── InternalServerError       5xx
    ├── OperationFailedError          an operation that was waited for failed
    ├── OperationCancelledError       an operation that was waited for was cancelled
    ├── OperationTimeoutError (TimeoutError)
    │                                 an operation that was waited for did not finish in time
    ├── UnknownOperationError (LookupError)
    │                                 the local reference has no operation with this id
    └── IdempotencyKeyReusedError     the local reference got a key again with another body
"""

from __future__ import annotations

import enum
from typing import Any, Final

import httpx

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponseTooLargeError",
    "APIResponseValidationError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigurationError",
    "ConflictError",
    "IdempotencyKeyReusedError",
    "InternalServerError",
    "NotFoundError",
    "OperationCancelledError",
    "OperationFailedError",
    "OperationTimeoutError",
    "PermissionDeniedError",
    "RateLimitError",
    "RevisionMismatchError",
    "UnknownOperationError",
    "UnprocessableEntityError",
    "ValidationError",
]

_REPR_LIMIT = 80


class _Missing(enum.Enum):
    MISSING = "MISSING"


_MISSING: Final = _Missing.MISSING


def _shown(value: object) -> str:
    """``repr(value)``, shortened; an int too long to print is described by its size."""
    try:
        shown = repr(value)
    except ValueError:  # an int over the interpreter's limit of digits
        return f"an integer of {value.bit_length()} bits" if isinstance(value, int) else "a value"
    return shown if len(shown) <= _REPR_LIMIT else shown[: _REPR_LIMIT - 3] + "..."


class APIError(Exception):
    """The base of every error the package raises."""


class ConfigurationError(APIError):
    """A setting is missing or wrong: the client's API key or base URL, a local session's
    options, ..."""


class ValidationError(APIError, ValueError):
    """A value that does not match the API's schema.

    ``path`` is the JSON path of the value (``params.inner.beta1``; empty for the whole body),
    ``problem`` what is wrong with it, and ``value`` the value itself.
    """

    def __init__(self, path: str, problem: str, value: object = _MISSING) -> None:
        self.path = path
        self.problem = problem
        self.value = None if value is _MISSING else value
        where = path or "(body)"
        if value is _MISSING:
            super().__init__(f"{where}: {problem}")
        else:
            super().__init__(f"{where}: {problem}, got {_shown(value)}")


class RevisionMismatchError(ValidationError, TypeError):
    """A field of an earlier revision, used with the package of a revision that removed it.

    ``history`` says in which revision the field was removed, and which revision the package
    implements, for example ``Body: `old_field` was removed in revision r2, 2026-08-08 (this
    package implements revision r3)``.
    """

    def __init__(self, path: str, field: str, history: str, value: object = _MISSING) -> None:
        self.field = field
        super().__init__(path, f"`{field}` {history}", value)


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


class APIResponseTooLargeError(APIError):
    """A response whose body, once decoded, is over the client's ``max_response_bytes`` (for an
    event stream: one of its lines or events); reading stopped at the limit.

    ``limit`` is the limit in bytes, and ``response`` the response, its body not read.
    """

    def __init__(self, message: str, *, response: httpx.Response, limit: int) -> None:
        super().__init__(message)
        self.response = response
        self.status_code = response.status_code
        self.limit = limit


class APIStatusError(APIError):
    """The server answered with an error status (4xx or 5xx).

    ``error`` is the parsed error body (the operation's error model) where the server sent one in
    the documented format, else ``None``; ``body`` is the raw body.
    """

    def __init__(
        self,
        message: str,
        *,
        response: httpx.Response,
        body: str,
        error: Any,
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


class OperationFailedError(APIError):
    """An operation the client waited for failed; ``code`` and ``message`` say why, and
    ``operation`` is the operation (a model of the generated package)."""

    def __init__(self, operation: Any) -> None:
        details: dict[str, Any] = operation.to_dict().get("error", {})
        self.operation = operation
        self.code: str | None = details.get("code")
        self.message: str | None = details.get("message")
        super().__init__(
            f"operation {operation.id} failed: {self.code or 'no code'}: "
            f"{self.message or 'no message'}"
        )


class OperationCancelledError(APIError):
    """An operation the client waited for was cancelled before it finished."""

    def __init__(self, operation: Any) -> None:
        self.operation = operation
        super().__init__(f"operation {operation.id} was cancelled (status {operation.status})")


class OperationTimeoutError(APIError, TimeoutError):
    """An operation the client waited for did not finish before the deadline; ``operation`` is
    its last known state (``None`` where no poll answered in time)."""

    def __init__(self, operation: Any, timeout: float, *, operation_id: str = "") -> None:
        self.operation = operation
        if operation is None:
            state = "no answer"
        else:
            operation_id = str(operation.id)
            state = f"last status {operation.status}"
        super().__init__(f"operation {operation_id} did not finish within {timeout:g} s ({state})")


class UnknownOperationError(APIError, LookupError):
    """The local reference has no operation with this id."""


class IdempotencyKeyReusedError(APIError):
    """The local reference got an idempotency key again, with another request body: a key
    names one request, and its retries; a changed body needs a new key."""

    def __init__(self, key: str, operation_id: str) -> None:
        self.key = key
        self.operation_id = operation_id
        super().__init__(
            f"the idempotency key {key!r} was used for another request body (operation "
            f"{operation_id}); use a new key for a changed request"
        )
