"""Which version of the API's document this package implements."""

SPEC_REVISION = "1.0.0"
"""The version of the OpenAPI document this package was generated from."""

SPEC_DATE: str | None = None
"""The date of that version, where it is known (a document does not say)."""

__version__ = "1.0.0"
"""The version of this package."""

NOT_APPLIED_BY: dict[str, dict[str, str]] = {}
"""Other versions of the API whose servers do not apply fields this package sends: none known
(the package knows one version of the document)."""
