"""Which revision of the API this package implements."""

SPEC_REVISION = "f4885bc38424"
"""The API revision this package was generated from."""

SPEC_DATE: str | None = None
"""The date of that revision (ISO 8601), or None where it is not known."""

__version__ = "5.0.1.post1"
"""The version of this package; see CHANGELOG.md for how it follows the revisions."""

NOT_APPLIED_BY: dict[str, dict[str, str]] = {
    "baseline": {
        "(request)": "every request is rejected: the server requires `weight_sync_type`",
        "adam_params": "ignored in an Adam session: the server does not know the field and drops it",
        "adam_params.learning_rate": "ignored in an Adam session: the server does not know `adam_params` and drops it",
        "adam_params.beta1": "ignored in an Adam session: the server does not know `adam_params` and drops it",
        "adam_params.beta2": "ignored in an Adam session: the server does not know `adam_params` and drops it",
        "adam_params.eps": "ignored in an Adam session: the server does not know `adam_params` and drops it",
        "adam_params.weight_decay": "ignored in an Adam session: the server does not know `adam_params` and drops it",
        "adam_params.grad_clip_norm": "ignored in an Adam session: the server does not know `adam_params` and drops it",
        "muon_params.learning_rate": "ignored in a Muon session: the server does not know the field and drops it",
        "muon_params.grad_clip_norm": "ignored in a Muon session: the server does not know the field and drops it",
        "muon_params.adam": "ignored in a Muon session: the server does not know the field and drops it",
        "muon_params.adam.learning_rate": "ignored in a Muon session: the server does not know `muon_params.adam` and drops it",
        "muon_params.adam.beta1": "ignored in a Muon session: the server does not know `muon_params.adam` and drops it",
        "muon_params.adam.beta2": "ignored in a Muon session: the server does not know `muon_params.adam` and drops it",
        "muon_params.adam.eps": "ignored in a Muon session: the server does not know `muon_params.adam` and drops it",
        "muon_params.adam.weight_decay": "ignored in a Muon session: the server does not know `muon_params.adam` and drops it",
        "muon_params.adam.grad_clip_norm": "ignored in a Muon session: the server does not know `muon_params.adam` and drops it",
    },
    "0c4fdad77435": {
        "(request)": "every request is rejected: the server requires `weight_sync_type`",
        "adam_params": "ignored in an Adam session: the server does not know the field and drops it",
        "adam_params.learning_rate": "ignored in an Adam session: the server does not know `adam_params` and drops it",
        "adam_params.beta1": "ignored in an Adam session: the server does not know `adam_params` and drops it",
        "adam_params.beta2": "ignored in an Adam session: the server does not know `adam_params` and drops it",
        "adam_params.eps": "ignored in an Adam session: the server does not know `adam_params` and drops it",
        "adam_params.weight_decay": "ignored in an Adam session: the server does not know `adam_params` and drops it",
        "adam_params.grad_clip_norm": "ignored in an Adam session: the server does not know `adam_params` and drops it",
        "muon_params.grad_clip_norm": "ignored in a Muon session: the server does not know the field and drops it",
        "muon_params.adam": "ignored in a Muon session: the server does not know the field and drops it",
        "muon_params.adam.learning_rate": "ignored in a Muon session: the server does not know `muon_params.adam` and drops it",
        "muon_params.adam.beta1": "ignored in a Muon session: the server does not know `muon_params.adam` and drops it",
        "muon_params.adam.beta2": "ignored in a Muon session: the server does not know `muon_params.adam` and drops it",
        "muon_params.adam.eps": "ignored in a Muon session: the server does not know `muon_params.adam` and drops it",
        "muon_params.adam.weight_decay": "ignored in a Muon session: the server does not know `muon_params.adam` and drops it",
        "muon_params.adam.grad_clip_norm": "ignored in a Muon session: the server does not know `muon_params.adam` and drops it",
    },
    "9ccc57e5e4b9": {
        "(request)": "every request is rejected: the server requires `weight_sync_type`",
    },
    "ebd4756a41e4": {
        "(request)": "every request is rejected: the server requires `weight_sync_type`",
    },
    "f26a23fab8e0": {},
}
"""For each earlier revision of the API, the optim-step request fields of this package that a
server of that revision does not apply as this package means them (it ignores or rejects them),
by JSON path, with why; under ``"(request)"`` where it rejects every request. A client told its
server's revision (``server_revision=``) warns of those it sends."""
