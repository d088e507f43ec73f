"""Which revision of the API this package implements."""

SPEC_REVISION = "ebd4756a41e4"
"""The API revision this package was generated from."""

SPEC_DATE: str | None = "2026-08-04"
"""The date of that revision (ISO 8601), or None where it is not known."""

__version__ = "4.0.0"
"""The version of this package; see CHANGELOG.md for how it follows the revisions."""
