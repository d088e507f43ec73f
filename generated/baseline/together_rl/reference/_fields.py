"""What the local reference needs of revision baseline: the rules of its request fields, the
defaults its document declares, its answers and the paths it serves.

Settled when the package was generated, from the generator's table of field roles and its
status data: for each session kind, the rule of every field of the request body. A field the
table gives no role is refused, never ignored.
"""

from __future__ import annotations

import re

from together_rl_runtime.reference import ReferenceRevision
from together_rl_runtime.settings import Group, NoEffect, Refused, Sets

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
    non_finite=RLTrainingOperationErrorCode.TRAINING_OPERATION_ERROR_CODE_INTERNAL_ERROR,
    rules={
        "adam": {
            "learning_rate": Sets(("adam.learning_rate",), fallback=True),
            "adamw_params": Group(),
            "adamw_params.lr": Sets(("adam.learning_rate",)),
            "adamw_params.beta1": Sets(("adam.beta1",)),
            "adamw_params.beta2": Sets(("adam.beta2",)),
            "adamw_params.eps": Sets(("adam.eps",)),
            "adamw_params.weight_decay": Sets(("adam.weight_decay",)),
            "muon_params": Refused("Muon overrides in an Adam session"),
            "max_grad_norm": Sets(("clip",), fallback=True),
            "weight_sync_type": NoEffect(),
        },
        "muon": {
            "learning_rate": Sets(("muon.learning_rate", "adam.learning_rate"), fallback=True),
            "adamw_params": Group(),
            "adamw_params.lr": Sets(("adam.learning_rate",)),
            "adamw_params.beta1": Sets(("adam.beta1",)),
            "adamw_params.beta2": Sets(("adam.beta2",)),
            "adamw_params.eps": Sets(("adam.eps",)),
            "adamw_params.weight_decay": Sets(("adam.weight_decay",)),
            "muon_params": Group(),
            "muon_params.lr": Sets(("muon.learning_rate",)),
            "muon_params.momentum": Sets(("muon.momentum",)),
            "muon_params.newton_schulz_steps": Sets(("muon.newton_schulz_steps",)),
            "muon_params.weight_decay": Sets(("muon.weight_decay",)),
            "max_grad_norm": Sets(("clip",), fallback=True),
            "weight_sync_type": NoEffect(),
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
        "learning_rate": None,
        "adamw_params": {
            "lr": None,
            "beta1": None,
            "beta2": None,
            "eps": None,
            "weight_decay": None,
        },
        "muon_params": {
            "lr": None,
            "momentum": None,
            "newton_schulz_steps": None,
            "weight_decay": None,
        },
        "max_grad_norm": None,
        "weight_sync_type": None,
    },
)
"""Revision baseline's request fields, answers and paths, as the reference applies them."""
