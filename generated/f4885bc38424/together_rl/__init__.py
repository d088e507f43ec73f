"""The Together RL training API, revision f4885bc38424: a typed client of its optim-step
operations.
"""

from ._client import AsyncClient, Client
from ._exceptions import (
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    ConflictError,
    IdempotencyKeyReusedError,
    InternalServerError,
    NotFoundError,
    OperationFailedError,
    OperationTimeoutError,
    PermissionDeniedError,
    RateLimitError,
    RevisionMismatchError,
    UnknownOperationError,
    UnprocessableEntityError,
    ValidationError,
)
from ._model import UNSET, Unset
from ._revision import SPEC_DATE, SPEC_REVISION, __version__

__all__ = [
    "SPEC_DATE",
    "SPEC_REVISION",
    "UNSET",
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncClient",
    "AuthenticationError",
    "BadRequestError",
    "Client",
    "ConfigurationError",
    "ConflictError",
    "IdempotencyKeyReusedError",
    "InternalServerError",
    "NotFoundError",
    "OperationFailedError",
    "OperationTimeoutError",
    "PermissionDeniedError",
    "RateLimitError",
    "RevisionMismatchError",
    "UnknownOperationError",
    "UnprocessableEntityError",
    "Unset",
    "ValidationError",
    "__version__",
]
