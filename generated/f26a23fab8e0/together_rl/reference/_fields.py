"""Where this revision's request fields sit, for the reference (see the reference semantics'
table by revision), and the paths it serves. The rest of the reference is the same in every
revision."""

from __future__ import annotations

import re
from typing import Any

from ..models import RLOptimStepBody, RLTrainingOperationErrorCode

__all__ = [
    "ADAM_GROUP",
    "Body",
    "KNOWN_FIELDS",
    "MUON_ADAM_GROUP",
    "MUON_GROUP",
    "NON_FINITE",
    "OPERATION_ID",
    "RETRIEVE",
    "STEP_CLIP",
    "STEP_LEARNING_RATE",
    "SUBMIT",
]

Body = RLOptimStepBody
"""The request body of a step."""

ADAM_GROUP: str | None = "adam_params"
"""Top-level Adam overrides."""

MUON_GROUP: str | None = "muon_params"
"""Muon overrides."""

MUON_ADAM_GROUP: str | None = "adam"
"""Adam overrides nested in the Muon group, for the parameters Muon does not handle."""

STEP_LEARNING_RATE: str | None = None
"""A top-level learning rate, used where the optimizer's own is unset."""

STEP_CLIP: str | None = None
"""A top-level clip value."""

NON_FINITE = RLTrainingOperationErrorCode.TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS
"""The error code of a step refused for non-finite gradients."""

SUBMIT = re.compile("(?:.*)/rl/training\\-sessions/(?P<session_id>[^/]+)/operations/optim\\-step")
"""The raw path a step is submitted to."""

RETRIEVE = re.compile(
    "(?:.*)/rl/training\\-sessions/(?P<session_id>[^/]+)/operations/optim\\-step/(?P<operation_id>[^/]+)",
)
"""The raw path an operation is read from; its ``OPERATION_ID`` group is the operation's id."""

OPERATION_ID = "operation_id"

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
