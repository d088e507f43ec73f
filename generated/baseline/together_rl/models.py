"""The models of the Together RL API, revision baseline.

Request models check what they send: a wrong type, a value outside the bounds, lengths or
pattern of the schema, an unknown field or an unknown enum value raises ValidationError naming
its JSON path. Response models are tolerant, since a newer (or faulty) server may answer:
unknown enum values are kept as strings, unknown fields in ``extra``, and fields missing or
not as the schema says are kept as received and listed in ``problems``. Fields left out are
UNSET and not sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from together_rl_runtime import (
    UNSET,
    Model,
    StrEnum,
    Unset,
    check_integer,
    check_number,
    check_string,
    nullable,
    one_of,
    open_enum,
    optional,
    put,
    received,
    required,
    strict_enum,
    write_enum,
    write_model,
)

__all__ = [
    "ErrorData",
    "ErrorDetails",
    "RLAdamWParams",
    "RLMuonParams",
    "RLOptimStepBody",
    "RLOptimStepOperation",
    "RLOptimStepResult",
    "RLTrainingOperationError",
    "RLTrainingOperationErrorCode",
    "RLTrainingOperationStatus",
    "RLWeightSyncType",
]


class RLWeightSyncType(StrEnum):
    """How the trainer's updated weights are propagated to the generator after this optimizer
    step.
    """

    WEIGHT_SYNC_TYPE_UNSPECIFIED = "WEIGHT_SYNC_TYPE_UNSPECIFIED"
    WEIGHT_SYNC_TYPE_SYNCHRONOUS = "WEIGHT_SYNC_TYPE_SYNCHRONOUS"
    WEIGHT_SYNC_TYPE_BACKGROUND_PUBLISH = "WEIGHT_SYNC_TYPE_BACKGROUND_PUBLISH"
    WEIGHT_SYNC_TYPE_PIPELINE = "WEIGHT_SYNC_TYPE_PIPELINE"


class RLTrainingOperationStatus(StrEnum):
    """The values of ``RLTrainingOperationStatus``."""

    TRAINING_OPERATION_STATUS_UNSPECIFIED = "TRAINING_OPERATION_STATUS_UNSPECIFIED"
    TRAINING_OPERATION_STATUS_PENDING = "TRAINING_OPERATION_STATUS_PENDING"
    TRAINING_OPERATION_STATUS_RUNNING = "TRAINING_OPERATION_STATUS_RUNNING"
    TRAINING_OPERATION_STATUS_COMPLETED = "TRAINING_OPERATION_STATUS_COMPLETED"
    TRAINING_OPERATION_STATUS_FAILED = "TRAINING_OPERATION_STATUS_FAILED"


class RLTrainingOperationErrorCode(StrEnum):
    """Application error code for a failed training operation"""

    TRAINING_OPERATION_ERROR_CODE_UNSPECIFIED = "TRAINING_OPERATION_ERROR_CODE_UNSPECIFIED"
    TRAINING_OPERATION_ERROR_CODE_RESOURCE_EXHAUSTED = (
        "TRAINING_OPERATION_ERROR_CODE_RESOURCE_EXHAUSTED"
    )
    TRAINING_OPERATION_ERROR_CODE_TIMEOUT = "TRAINING_OPERATION_ERROR_CODE_TIMEOUT"
    TRAINING_OPERATION_ERROR_CODE_INTERNAL_ERROR = "TRAINING_OPERATION_ERROR_CODE_INTERNAL_ERROR"
    TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE = (
        "TRAINING_OPERATION_ERROR_CODE_SESSION_NOT_ACTIVE"
    )
    TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT = "TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT"


@dataclass(kw_only=True)
class RLOptimStepBody(Model):
    """Request body for an optimizer step."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"learning_rate", "adamw_params", "muon_params", "max_grad_norm", "weight_sync_type"}
    )

    learning_rate: float | Unset = UNSET
    """Learning rate for this step."""

    adamw_params: RLAdamWParams | Unset = UNSET
    """Per-step AdamW optimizer overrides."""

    muon_params: RLMuonParams | Unset = UNSET
    """Per-step Muon optimizer overrides"""

    max_grad_norm: float | Unset = UNSET
    """Maximum gradient norm for this step, gradients across all model parameters are clipped to
    this value. Set to 0 to disable gradient clipping. When unset, gradients are clipped to
    the session default (1.0).
    """

    weight_sync_type: RLWeightSyncType
    """How the trainer's updated weights are propagated to the generator after this optimizer
    step.
    """

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> RLOptimStepBody:
        fields, _ = cls._fields_of(data, path)
        return cls(
            learning_rate=optional(fields, "learning_rate", path, check_number),
            adamw_params=optional(fields, "adamw_params", path, RLAdamWParams.from_dict),
            muon_params=optional(fields, "muon_params", path, RLMuonParams.from_dict),
            max_grad_norm=optional(fields, "max_grad_norm", path, check_number),
            weight_sync_type=required(
                fields, "weight_sync_type", path, strict_enum(RLWeightSyncType)
            ),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "learning_rate", self.learning_rate, path, check_number)
        put(data, "adamw_params", self.adamw_params, path, write_model(RLAdamWParams))
        put(data, "muon_params", self.muon_params, path, write_model(RLMuonParams))
        put(data, "max_grad_norm", self.max_grad_norm, path, check_number)
        put(data, "weight_sync_type", self.weight_sync_type, path, strict_enum(RLWeightSyncType))
        return data


@dataclass(kw_only=True)
class RLAdamWParams(Model):
    """Per-step AdamW optimizer overrides."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"lr", "beta1", "beta2", "eps", "weight_decay"})

    lr: float | Unset = UNSET
    """Learning rate for the AdamW-tuned parameters"""

    beta1: float | Unset = UNSET
    """Exponential decay rate for the first-moment estimate"""

    beta2: float | Unset = UNSET
    """Exponential decay rate for the second-moment estimate"""

    eps: float | Unset = UNSET
    """Epsilon for numerical stability"""

    weight_decay: float | Unset = UNSET
    """Weight decay coefficient"""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> RLAdamWParams:
        fields, _ = cls._fields_of(data, path)
        return cls(
            lr=optional(fields, "lr", path, check_number),
            beta1=optional(fields, "beta1", path, check_number),
            beta2=optional(fields, "beta2", path, check_number),
            eps=optional(fields, "eps", path, check_number),
            weight_decay=optional(fields, "weight_decay", path, check_number),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "lr", self.lr, path, check_number)
        put(data, "beta1", self.beta1, path, check_number)
        put(data, "beta2", self.beta2, path, check_number)
        put(data, "eps", self.eps, path, check_number)
        put(data, "weight_decay", self.weight_decay, path, check_number)
        return data


@dataclass(kw_only=True)
class RLMuonParams(Model):
    """Per-step Muon optimizer overrides"""

    _FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"lr", "momentum", "newton_schulz_steps", "weight_decay"}
    )

    lr: float | Unset = UNSET
    """Learning rate for this Muon optimizer step."""

    momentum: float | Unset = UNSET
    """Momentum coefficient"""

    newton_schulz_steps: int | Unset = UNSET
    """Number of Newton-Schulz iterations"""

    weight_decay: float | Unset = UNSET
    """Weight decay coefficient"""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> RLMuonParams:
        fields, _ = cls._fields_of(data, path)
        return cls(
            lr=optional(fields, "lr", path, check_number),
            momentum=optional(fields, "momentum", path, check_number),
            newton_schulz_steps=optional(fields, "newton_schulz_steps", path, check_integer),
            weight_decay=optional(fields, "weight_decay", path, check_number),
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        put(data, "lr", self.lr, path, check_number)
        put(data, "momentum", self.momentum, path, check_number)
        put(data, "newton_schulz_steps", self.newton_schulz_steps, path, check_integer)
        put(data, "weight_decay", self.weight_decay, path, check_number)
        return data


@dataclass(kw_only=True)
class RLOptimStepOperation(Model):
    """Async optimizer step operation"""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"id", "status", "output", "error"})
    _STRICT: ClassVar[bool] = False

    id: str
    """Operation ID"""

    status: RLTrainingOperationStatus | str

    output: RLOptimStepResult | Unset = UNSET
    """Result of an optimizer step operation"""

    error: RLTrainingOperationError | Unset = UNSET
    """Error details for a failed training operation"""

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> RLOptimStepOperation:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            id=received(fields, "id", path, check_string, problems, required=True),
            status=received(
                fields,
                "status",
                path,
                open_enum(RLTrainingOperationStatus),
                problems,
                required=True,
            ),
            output=received(fields, "output", path, RLOptimStepResult.from_dict, problems),
            error=received(fields, "error", path, RLTrainingOperationError.from_dict, problems),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "id", self.id, path, check_string, self.problems)
        put(data, "status", self.status, path, write_enum, self.problems)
        put(data, "output", self.output, path, write_model(RLOptimStepResult), self.problems)
        put(data, "error", self.error, path, write_model(RLTrainingOperationError), self.problems)
        return data


@dataclass(kw_only=True)
class RLOptimStepResult(Model):
    """Result of an optimizer step operation"""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"step"})
    _STRICT: ClassVar[bool] = False

    step: str | int
    """Step number"""

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> RLOptimStepResult:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            step=received(
                fields, "step", path, one_of(check_string, check_integer), problems, required=True
            ),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "step", self.step, path, one_of(check_string, check_integer), self.problems)
        return data


@dataclass(kw_only=True)
class RLTrainingOperationError(Model):
    """Error details for a failed training operation"""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"code", "message"})
    _STRICT: ClassVar[bool] = False

    code: RLTrainingOperationErrorCode | str | Unset = UNSET
    """Application error code for a failed training operation"""

    message: str | Unset = UNSET
    """Human-readable error message"""

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> RLTrainingOperationError:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            code=received(fields, "code", path, open_enum(RLTrainingOperationErrorCode), problems),
            message=received(fields, "message", path, check_string, problems),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "code", self.code, path, write_enum, self.problems)
        put(data, "message", self.message, path, check_string, self.problems)
        return data


@dataclass(kw_only=True)
class ErrorData(Model):
    """The body of an error response."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"error"})
    _STRICT: ClassVar[bool] = False

    error: ErrorDetails
    """What went wrong."""

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> ErrorData:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            error=received(fields, "error", path, ErrorDetails.from_dict, problems, required=True),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "error", self.error, path, write_model(ErrorDetails), self.problems)
        return data


@dataclass(kw_only=True)
class ErrorDetails(Model):
    """What went wrong."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"message", "type", "param", "code"})
    _STRICT: ClassVar[bool] = False

    message: str
    """Human-readable error message"""

    type: str
    """Error category"""

    param: str | None | Unset = UNSET
    """The request parameter the error is about, if any"""

    code: str | None | Unset = UNSET
    """Machine-readable error code, if any"""

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> ErrorDetails:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            message=received(fields, "message", path, check_string, problems, required=True),
            type=received(fields, "type", path, check_string, problems, required=True),
            param=received(fields, "param", path, nullable(check_string), problems),
            code=received(fields, "code", path, nullable(check_string), problems),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "message", self.message, path, check_string, self.problems)
        put(data, "type", self.type, path, check_string, self.problems)
        put(data, "param", self.param, path, nullable(check_string), self.problems)
        put(data, "code", self.code, path, nullable(check_string), self.problems)
        return data
