"""What the local reference needs of revision f4885bc38424: the rules of its request fields, the
defaults its document declares, its answers and the paths it serves.

Settled when the package was generated, from the generator's table of field roles and its
status data: for each session kind, the rule of every field of the request body. A field the
table gives no role is refused, never ignored.
"""

from __future__ import annotations

import re

from together_rl_runtime.reference import ReferenceRevision
from together_rl_runtime.settings import Group, Refused, Sets

from .._revision import SPEC_REVISION
from ..models import (
    RLOptimStepBody,
    RLOptimStepOperation,
    RLOptimStepResult,
    RLTrainingOperationError,
    RLTrainingOperationErrorCode,
    RLTrainingOperationStatus,
)

__all__ = ["REVISION"]

REVISION = ReferenceRevision(
    revision=SPEC_REVISION,
    body=RLOptimStepBody,
    operation=RLOptimStepOperation,
    result=RLOptimStepResult,
    error=RLTrainingOperationError,
    succeeded=RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_COMPLETED,
    failed=RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_FAILED,
    invalid_input=RLTrainingOperationErrorCode.TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT,
    internal_error=RLTrainingOperationErrorCode.TRAINING_OPERATION_ERROR_CODE_INTERNAL_ERROR,
    non_finite=RLTrainingOperationErrorCode.TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS,
    rules={
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
    },
    defaults={
        "adam": {},
        "muon": {},
    },
    submit=re.compile(
        "(?:.*)/rl/training\\-sessions/(?P<session_id>[^/]+)/operations/optim\\-step"
    ),
    retrieve=re.compile(
        "(?:.*)/rl/training\\-sessions/(?P<session_id>[^/]+)/operations/optim\\-step/(?P<operation_id>[^/]+)",
    ),
    operation_id="operation_id",
    session_id="session_id",
    required_headers=(),
    known_fields={
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
    },
)
"""Revision f4885bc38424's request fields, answers and paths, as the reference applies them."""
