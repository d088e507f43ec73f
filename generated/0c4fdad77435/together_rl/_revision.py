"""Which revision of the API this package implements."""

SPEC_REVISION = "0c4fdad77435"
"""The API revision this package was generated from."""

SPEC_DATE: str | None = "2026-07-26"
"""The date of that revision (ISO 8601), or None where it is not known."""

__version__ = "2.0.0.post1"
"""The version of this package; see CHANGELOG.md for how it follows the revisions."""

NOT_APPLIED_BY: dict[str, dict[str, str]] = {
    "baseline": {
        "adamw_params.learning_rate": "ignored in an Adam session: the server does not know the field and drops it",
        "muon_params.learning_rate": "ignored in a Muon session: the server does not know the field and drops it",
        "muon_params.adamw": "ignored in a Muon session: the server does not know the field and drops it",
        "muon_params.adamw.learning_rate": "ignored in a Muon session: the server does not know `muon_params.adamw` and drops it",
        "muon_params.adamw.beta1": "ignored in a Muon session: the server does not know `muon_params.adamw` and drops it",
        "muon_params.adamw.beta2": "ignored in a Muon session: the server does not know `muon_params.adamw` and drops it",
        "muon_params.adamw.eps": "ignored in a Muon session: the server does not know `muon_params.adamw` and drops it",
        "muon_params.adamw.weight_decay": "ignored in a Muon session: the server does not know `muon_params.adamw` and drops it",
    },
}
"""For each earlier revision of the API, the optim-step request fields of this package that a
server of that revision does not apply as this package means them (it ignores or rejects them),
by JSON path, with why; under ``"(request)"`` where it rejects every request. A client told its
server's revision (``server_revision=``) warns of those it sends."""
