"""What the local reference needs of revision 0c4fdad77435: the rules of its request fields, the
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
            "adamw_params": Group(),
            "adamw_params.learning_rate": Sets(("adam.learning_rate",)),
            "adamw_params.beta1": Sets(("adam.beta1",)),
            "adamw_params.beta2": Sets(("adam.beta2",)),
            "adamw_params.eps": Sets(("adam.eps",)),
            "adamw_params.weight_decay": Sets(("adam.weight_decay",)),
            "muon_params": Refused("Muon overrides in an Adam session"),
            "max_grad_norm": Sets(("clip",), fallback=True),
            "weight_sync_type": NoEffect(),
        },
        "muon": {
            "adamw_params": Refused("Adam overrides at the top level of a Muon session"),
            "muon_params": Group(),
            "muon_params.learning_rate": Sets(("muon.learning_rate",)),
            "muon_params.momentum": Sets(("muon.momentum",)),
            "muon_params.newton_schulz_steps": Sets(("muon.newton_schulz_steps",)),
            "muon_params.weight_decay": Sets(("muon.weight_decay",)),
            "muon_params.adamw": Group(),
            "muon_params.adamw.learning_rate": Sets(("adam.learning_rate",)),
            "muon_params.adamw.beta1": Sets(("adam.beta1",)),
            "muon_params.adamw.beta2": Sets(("adam.beta2",)),
            "muon_params.adamw.eps": Sets(("adam.eps",)),
            "muon_params.adamw.weight_decay": Sets(("adam.weight_decay",)),
            "max_grad_norm": Sets(("clip",), fallback=True),
            "weight_sync_type": NoEffect(),
        },
    },
    defaults={
        "adam": {
            "clip": 1.0,
        },
        "muon": {
            "clip": 1.0,
        },
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
        "adamw_params": {
            "learning_rate": None,
            "beta1": None,
            "beta2": None,
            "eps": None,
            "weight_decay": None,
        },
        "muon_params": {
            "learning_rate": None,
            "momentum": None,
            "newton_schulz_steps": None,
            "weight_decay": None,
            "adamw": {
                "learning_rate": None,
                "beta1": None,
                "beta2": None,
                "eps": None,
                "weight_decay": None,
            },
        },
        "max_grad_norm": None,
        "weight_sync_type": None,
    },
)
"""Revision 0c4fdad77435's request fields, answers and paths, as the reference applies them."""
