"""The Together RL training API, revision ebd4756a41e4 of 2026-08-04: typed models of its optim-step
operations.
"""

from ._model import UNSET, RevisionMismatchError, Unset, ValidationError

SPEC_REVISION = "ebd4756a41e4"
"""The API revision this package was generated from."""

SPEC_DATE: str | None = "2026-08-04"
"""The date of that revision (ISO 8601), or None where it is not known."""

__version__ = "4.0.0"

__all__ = [
    "SPEC_DATE",
    "SPEC_REVISION",
    "UNSET",
    "RevisionMismatchError",
    "Unset",
    "ValidationError",
    "__version__",
]
