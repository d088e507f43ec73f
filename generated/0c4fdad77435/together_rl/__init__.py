"""The Together RL training API, revision 0c4fdad77435 of 2026-07-26: a typed client of its
optim-step operations.
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
    InternalServerError,
    NotFoundError,
    OperationFailedError,
    OperationTimeoutError,
    PermissionDeniedError,
    RateLimitError,
    UnprocessableEntityError,
)
from ._model import UNSET, RevisionMismatchError, Unset, ValidationError

SPEC_REVISION = "0c4fdad77435"
"""The API revision this package was generated from."""

SPEC_DATE: str | None = "2026-07-26"
"""The date of that revision (ISO 8601), or None where it is not known."""

__version__ = "2.0.0"

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
    "InternalServerError",
    "NotFoundError",
    "OperationFailedError",
    "OperationTimeoutError",
    "PermissionDeniedError",
    "RateLimitError",
    "RevisionMismatchError",
    "UnprocessableEntityError",
    "Unset",
    "ValidationError",
    "__version__",
]
