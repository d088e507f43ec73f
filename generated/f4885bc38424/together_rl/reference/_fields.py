"""What the request fields of revision f4885bc38424 do in the local reference, and the paths it
serves.

Settled when the package was generated, from the project's table of field roles
(spec/reference-fields.yaml): for each session kind, the rule of every field of the request
body. A field the table gives no role is refused, never ignored.
"""

from __future__ import annotations

import re
from typing import Any

from ..models import RLOptimStepBody, RLTrainingOperationErrorCode
from ._rules import Group, Refused, Rule, Sets

__all__ = [
    "Body",
    "DEFAULTS",
    "KNOWN_FIELDS",
    "NON_FINITE",
    "OPERATION_ID",
    "REQUIRED_HEADERS",
    "RETRIEVE",
    "RULES",
    "SESSION_ID",
    "SUBMIT",
]

Body = RLOptimStepBody
"""The request body of a step."""

RULES: dict[str, dict[str, Rule]] = {
    "adam": {
        "adam_params": Group(),
        "adam_params.learning_rate": Sets(("adam.learning_rate",)),
        "adam_params.beta1": Sets(("adam.beta1",)),
        "adam_params.beta2": Sets(("adam.beta2",)),
        "adam_params.eps": Sets(("adam.eps",)),
        "adam_params.weight_decay": Sets(("adam.weight_decay",)),
        "adam_params.grad_clip_norm": Sets(("clip",)),
        "muon_params": Refused("Muon overrides in an Adam session"),
    },
    "muon": {
        "adam_params": Refused("Adam overrides at the top level of a Muon session"),
        "muon_params": Group(),
        "muon_params.learning_rate": Sets(("muon.learning_rate",)),
        "muon_params.momentum": Sets(("muon.momentum",)),
        "muon_params.newton_schulz_steps": Sets(("muon.newton_schulz_steps",)),
        "muon_params.weight_decay": Sets(("muon.weight_decay",)),
        "muon_params.grad_clip_norm": Sets(("clip",)),
        "muon_params.adam": Group(),
        "muon_params.adam.learning_rate": Sets(("adam.learning_rate",)),
        "muon_params.adam.beta1": Sets(("adam.beta1",)),
        "muon_params.adam.beta2": Sets(("adam.beta2",)),
        "muon_params.adam.eps": Sets(("adam.eps",)),
        "muon_params.adam.weight_decay": Sets(("adam.weight_decay",)),
        "muon_params.adam.grad_clip_norm": Sets(("clip",)),
    },
}
"""For each session kind (``"adam"``, ``"muon"``), the rule of every request field by JSON path."""

DEFAULTS: dict[str, dict[str, float]] = {
    "adam": {},
    "muon": {},
}
"""For each session kind, the defaults this revision's document declares for settings: what a
step uses where its request leaves the field out, in place of the session defaults."""

NON_FINITE = RLTrainingOperationErrorCode.TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS
"""The error code of a step refused for non-finite gradients."""

SUBMIT = re.compile("(?:.*)/rl/training\\-sessions/(?P<session_id>[^/]+)/operations/optim\\-step")
"""The raw path a step is submitted to."""

RETRIEVE = re.compile(
    "(?:.*)/rl/training\\-sessions/(?P<session_id>[^/]+)/operations/optim\\-step/(?P<operation_id>[^/]+)",
)
"""The raw path an operation is read from; its ``OPERATION_ID`` group is the operation's id."""

OPERATION_ID = "operation_id"
"""The group of ``RETRIEVE`` that holds the operation's id."""

SESSION_ID = "session_id"
"""The group of ``SUBMIT`` and ``RETRIEVE`` that holds the training session's id."""

REQUIRED_HEADERS: tuple[str, ...] = ()
"""The headers a step must carry (this revision's required header parameters)."""

KNOWN_FIELDS: dict[str, Any] = {
    "adam_params": {
        "learning_rate": None,
        "beta1": None,
        "beta2": None,
        "eps": None,
        "weight_decay": None,
        "grad_clip_norm": None,
    },
    "muon_params": {
        "learning_rate": None,
        "momentum": None,
        "newton_schulz_steps": None,
        "weight_decay": None,
        "grad_clip_norm": None,
        "adam": {
            "learning_rate": None,
            "beta1": None,
            "beta2": None,
            "eps": None,
            "weight_decay": None,
            "grad_clip_norm": None,
        },
    },
}
"""The request body's fields, as a tree: nested objects map to their own fields."""
