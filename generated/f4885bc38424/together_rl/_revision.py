"""Which revision of the API this package implements."""

SPEC_REVISION = "f4885bc38424"
"""The API revision this package was generated from."""

SPEC_DATE: str | None = None
"""The date of that revision (ISO 8601), or None where it is not known."""

__version__ = "5.0.1"
"""The version of this package; see CHANGELOG.md for how it follows the revisions."""
