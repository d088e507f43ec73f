"""The Together RL training API, revision baseline: typed models of its optim-step operations."""

from ._model import UNSET, RevisionMismatchError, Unset, ValidationError

SPEC_REVISION = "baseline"
"""The API revision this package was generated from."""

SPEC_DATE: str | None = None
"""The date of that revision (ISO 8601), or None where it is not known."""

__version__ = "1.0.0"

__all__ = [
    "SPEC_DATE",
    "SPEC_REVISION",
    "UNSET",
    "RevisionMismatchError",
    "Unset",
    "ValidationError",
    "__version__",
]
