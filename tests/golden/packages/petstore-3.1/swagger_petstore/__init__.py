"""A typed client of the Swagger Petstore API, revision 1.0.0."""

from ._runtime import (
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
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    RevisionMismatchError,
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
    "InternalServerError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "RevisionMismatchError",
    "UnprocessableEntityError",
    "Unset",
    "ValidationError",
    "__version__",
]
