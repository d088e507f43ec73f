"""A typed client of the Together RL API, revision 0c4fdad77435 of 2026-07-26.

What does not depend on the revision (the client core, the models' base, the errors and the
local reference) is the runtime, ``together_rl_runtime``, a distribution of its own, whose
fixes reach this package without a new release of it (its README gives the pip command);
importing the package checks that the installed runtime is one it works with.
"""

from ._requirement import check_runtime

check_runtime()

from together_rl_runtime import (
    UNSET,
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
    Unset,
    ValidationError,
)

from ._client import AsyncClient, Client
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
