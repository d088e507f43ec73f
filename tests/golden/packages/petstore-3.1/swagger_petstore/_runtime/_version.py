"""The runtime's version (semantic versioning: see CHANGELOG.md) and the date of its release."""

__version__ = "1.3.0"

RELEASE_DATE: str | None = "2026-12-02"
"""The day this version was released (its artifacts' timestamps)."""
