"""Which revision of the API this package implements."""

SPEC_REVISION = "baseline"
"""The API revision this package was generated from."""

SPEC_DATE: str | None = None
"""The date of that revision (ISO 8601), or None where it is not known."""

__version__ = "1.0.0.post1"
"""The version of this package; see CHANGELOG.md for how it follows the revisions."""

NOT_APPLIED_BY: dict[str, dict[str, str]] = {}
"""For each earlier revision of the API, the optim-step request fields of this package that a
server of that revision does not apply as this package means them (it ignores or rejects them),
by JSON path, with why; under ``"(request)"`` where it rejects every request. A client told its
server's revision (``server_revision=``) warns of those it sends."""
