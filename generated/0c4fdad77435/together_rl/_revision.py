"""Which revision of the API this package implements."""

SPEC_REVISION = "0c4fdad77435"
"""The API revision this package was generated from."""

SPEC_DATE: str | None = "2026-07-26"
"""The date of that revision (ISO 8601), or None where it is not known."""

__version__ = "2.0.0"
"""The version of this package; see CHANGELOG.md for how it follows the revisions."""
