"""A local optimizer session: what an optim-step does to a model, run on this machine.

It follows the API's reference semantics step by step: check the request, measure the total
gradient norm, refuse non-finite gradients, clip, update (Adam, or Muon with Adam for the
parameters Muon does not handle), refuse an update that left a parameter non-finite, then count
the step and clear the gradients.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar, Literal

import torch
from torch import Tensor, nn

from .._exceptions import (
    ConfigurationError,
    IdempotencyKeyReusedError,
    UnknownOperationError,
    ValidationError,
)
from .._model import UNSET, Model, at
from ..settings import (
    SESSION_DEFAULTS,
    SETTING_KINDS,
    SETTING_RANGES,
    Group,
    Refused,
    Rule,
    Sets,
)
from . import _optim, _sharded
from ._answers import step_result
from ._definition import ReferenceRevision
from ._parameters import Query, check_parameters

__all__ = [
    "ADAM_DEFAULTS",
    "MUON_DEFAULTS",
    "LocalSession",
    "ReplayError",
    "StepRecord",
    "UnknownOperationError",
]


def _of(optimizer: str) -> Mapping[str, float]:
    prefix = optimizer + "."
    return {k.removeprefix(prefix): v for k, v in SESSION_DEFAULTS.items() if k.startswith(prefix)}


ADAM_DEFAULTS: Mapping[str, float] = _of("adam")
"""Session defaults of Adam (also of the Adam-handled parameters of a Muon session)."""
MUON_DEFAULTS: Mapping[str, float] = _of("muon")
"""Session defaults of Muon."""
DEFAULT_CLIP = SESSION_DEFAULTS["clip"]

Optimizer = Literal["adam", "muon"]
_A_SESSION: Mapping[Optimizer, str] = {"adam": "an Adam session", "muon": "a Muon session"}
MuonFilter = Callable[[str, Tensor], bool]


class _InvalidInput(Exception):
    def __init__(self, path: str, value: object, problem: str) -> None:
        super().__init__(f"{path or '(body)'}: {problem}, got {value!r}")


@dataclass(frozen=True)
class _Choice:
    """A request field's value for a setting."""

    path: str
    value: float | bool
    fallback: bool


@dataclass(frozen=True)
class _Settings:
    """What one step uses, after per-step overrides fell back to the session defaults."""

    clip: float
    adam: Mapping[str, float]
    muon: Mapping[str, float]


@dataclass(frozen=True)
class StepRecord:
    """What a step leaves to be recorded before it counts (see ``optim_step``'s ``commit``)."""

    idempotency_key: str | None
    request: dict[str, Any] | None
    """The request body of a completed step in the wire format, as the step read it, to apply
    it again; ``None`` for a failed step (which is never applied again: its ``request_digest``
    is what its idempotency key needs) and where it is not known (an operation taken over from
    a state saved by runtime 1.0.0)."""
    operation: dict[str, Any]
    """The operation the step answers with, in the wire format."""
    step: int | None
    """The step number a completed step made; ``None`` for a failed one (which changed
    nothing)."""
    request_digest: str | None = None
    """The digest of the request's content that its idempotency key is compared by (a SHA-256
    of its canonical form); ``None`` without a key."""


class ReplayError(Exception):
    """A recorded step, applied again, did not give what it gave the first time."""


def default_muon_filter(name: str, param: Tensor) -> bool:
    """Muon handles every 2-D parameter whose name contains neither ``embed`` nor ``lm_head``."""
    return param.ndim == 2 and "embed" not in name and "lm_head" not in name


class LocalSession:
    """A training session's optimizer, applied to local ``torch`` parameters.

    A revision's package subclasses it with the revision's definitions (``revision``), so that
    requests and answers are that revision's models and its fields follow their rules.

    ``params`` is a ``torch.nn.Module`` or ``(name, parameter)`` pairs; only parameters that
    require gradients take part. ``optimizer`` is ``"adam"`` or ``"muon"``; in a Muon session
    ``muon_filter(name, param)`` says which parameters Muon handles (default: 2-D, no ``embed``
    or ``lm_head`` in the name), Adam handling the rest, and ``muon_scaling`` is ``"original"``
    (``lr * sqrt(max(1, A/B))``) or ``"match_adam"`` (``lr * 0.2 * sqrt(max(A, B))``).

    A setting a step's request leaves out takes the default the revision's document declares
    for its field (``revision.defaults``), else the session default (``ADAM_DEFAULTS``,
    ``MUON_DEFAULTS``, a clip value of 1.0). ``defaults`` override both. An Adam session takes
    ``learning_rate``, ``beta1``, ``beta2``, ``eps``, ``weight_decay``, ``amsgrad`` (True or
    False) and ``grad_clip_norm``; a Muon session takes ``learning_rate``, ``momentum``,
    ``newton_schulz_steps``, ``weight_decay``, ``grad_clip_norm``, and ``adam_learning_rate``,
    ``adam_beta1``, ``adam_beta2``, ``adam_eps``, ``adam_weight_decay``, ``adam_amsgrad`` for its
    Adam-handled parameters. With AMSGrad on, Adam divides by the maximum of each parameter's
    second moments since its first step with AMSGrad (``torch.optim.AdamW(amsgrad=True)`` when
    it is on from the start); a step with it off leaves those maxima as they are.

    Gradients accumulate in ``param.grad`` as usual; :meth:`optim_step` consumes them. Steps run
    one at a time, in the order they were submitted, also from several threads.

    A step that fails changes nothing. With ``rollback``, the session copies the parameters,
    gradients and optimizer state it is about to update, so that even an exception inside the
    update (out of memory, say) leaves them as they were; that costs a copy of each per step.
    Without it, such an exception leaves the session refusing further steps until
    :meth:`load_state_dict` restores a saved state.
    """

    revision: ClassVar[ReferenceRevision]
    """The revision whose requests the session takes (set by the revision's package)."""

    def __init__(
        self,
        params: nn.Module | Iterable[tuple[str, Tensor]],
        optimizer: Optimizer = "adam",
        *,
        muon_scaling: _optim.MuonScaling = "original",
        muon_filter: MuonFilter | None = None,
        rollback: bool = False,
        **defaults: float,
    ) -> None:
        named = params.named_parameters() if isinstance(params, nn.Module) else params
        self._params: dict[str, Tensor] = {name: p for name, p in named if p.requires_grad}
        self._sharding = _sharded.sharding_of(self._params)
        """How the parameters are sharded across processes (DTensors); ``None``: whole."""
        if optimizer not in ("adam", "muon"):
            raise ConfigurationError(f"optimizer must be 'adam' or 'muon', got {optimizer!r}")
        if muon_scaling not in ("original", "match_adam"):
            raise ConfigurationError(
                f"muon_scaling must be 'original' or 'match_adam', got {muon_scaling!r}"
            )
        if optimizer == "adam" and muon_filter is not None:
            raise ConfigurationError("muon_filter is for Muon sessions")
        self.optimizer: Optimizer = optimizer
        self.muon_scaling: _optim.MuonScaling = muon_scaling
        self._adam_defaults, self._muon_defaults, self._clip_default = self._session_defaults(
            optimizer, self.revision.defaults[optimizer], defaults
        )
        chosen = muon_filter or default_muon_filter
        self._muon_names = frozenset(
            name for name, p in self._params.items() if optimizer == "muon" and chosen(name, p)
        )
        for name in self._muon_names:
            if self._params[name].ndim != 2:
                raise ConfigurationError(
                    f"Muon handles 2-D parameters only; the filter chose {name!r}"
                )
        self._adam_state: dict[str, _optim.AdamParamState] = {}
        self._muon_state: dict[str, _optim.MuonParamState] = {}
        self._step = 0
        self._operations: dict[str, Model] = {}
        self._keys: dict[str, tuple[str, str]] = {}
        """Idempotency key -> (fingerprint of the request body, id of its operation)."""
        self._rollback = rollback
        self._broken: str | None = None
        self._last_settings: dict[str, Any] | None = None
        self._turns = threading.Condition()
        self._next_ticket = 0
        self._serving = 0

    @staticmethod
    def _session_defaults(
        optimizer: Optimizer, declared: Mapping[str, float], given: Mapping[str, float]
    ) -> tuple[dict[str, float], dict[str, float], float]:
        adam, muon, clip = dict(ADAM_DEFAULTS), dict(MUON_DEFAULTS), DEFAULT_CLIP
        for setting, value in declared.items():  # what the revision's document declares
            group, _, name = setting.rpartition(".")
            if group == "adam":
                adam[name] = value
            elif group == "muon":
                muon[name] = value
            else:
                clip = value
        for key, value in given.items():
            table: dict[str, float] | None
            if key == "grad_clip_norm":
                table, name = None, "clip"
            elif optimizer == "adam":
                table, name = adam, key
            elif key.startswith("adam_"):
                table, name = adam, key.removeprefix("adam_")
            else:
                table, name = muon, key
            if table is not None and name not in table:
                raise ConfigurationError(
                    f"unknown session default {key!r} for {_A_SESSION[optimizer]}"
                )
            if SETTING_KINDS.get(name) == "boolean":
                if not isinstance(value, bool):
                    raise ConfigurationError(
                        f"session default {key} must be True or False, got {value!r}"
                    )
            elif (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
            ):
                raise ConfigurationError(
                    f"session default {key} must be a finite number, got {value!r}"
                )
            else:
                problem = _problem(name, value)
                if problem:
                    raise ConfigurationError(f"session default {key} {problem}, got {value!r}")
            if table is None:
                clip = value
            else:
                table[name] = value
        return adam, muon, clip

    @property
    def step(self) -> int:
        """The number of completed steps."""
        return self._step

    @property
    def last_settings(self) -> dict[str, Any] | None:
        """The hyperparameters the last completed step used, after its overrides fell back to
        the session defaults: ``{"clip": ..., "adam": {...}, "muon": {...}}`` (``None`` before
        the first step)."""
        return self._last_settings

    # -- operations ---------------------------------------------------------------------------------

    def optim_step(
        self,
        body: Model | Mapping[str, Any],
        *,
        idempotency_key: str | None = None,
        gradients: Callable[[], object] | None = None,
        commit: Callable[[StepRecord], None] | None = None,
        query: Query | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        """Apply one optimizer step with the per-step overrides of ``body`` (the model, or a dict in
        the wire format) and return the finished operation: COMPLETED with ``output.step``, or
        FAILED with an error code and a message, having changed nothing.

        An ``idempotency_key`` seen before with the same body returns that request's operation
        and applies no second step; with another body it raises IdempotencyKeyReusedError. Bodies
        are the same when their content is: numbers compare by value (``1`` and ``1.0`` are the
        same) and the order of keys does not matter.
        ``query`` (each name with its values) and ``headers`` are the request's, where it came
        over HTTP: the query parameters and headers the revision declares are held to their
        rules (``revision.parameters``), and one the reference refuses, or whose value its schema
        does not take, fails the step with INVALID_INPUT naming it.
        ``gradients``, where given, is called once the request is checked, to put this step's
        gradients in ``.grad`` (a server computes them there, so that a refused request does not
        leave gradients behind for the next step).

        ``commit``, where given, is called with the step's :class:`StepRecord` before the step
        counts, in the order the steps run (a server writes its journal there). If it raises, the
        step is undone (parameters, gradients, optimizer state and the step counter are as before,
        and the key is not taken) and the exception propagates; a completed step can only be
        undone in a session made with ``rollback=True``.
        """
        if commit is not None and not self._rollback:
            raise ConfigurationError("commit= needs a session made with rollback=True")
        with self._turn():
            fingerprint = _fingerprint(body) if idempotency_key is not None else ""
            if idempotency_key is not None and idempotency_key in self._keys:
                seen, operation_id = self._keys[idempotency_key]
                if not _same_request(seen, fingerprint, body):
                    raise IdempotencyKeyReusedError(idempotency_key, operation_id)
                return self._operations[operation_id]
            undo: list[Callable[[], None]] = []
            operation = self._refused_parameters(query, headers)
            if operation is None:
                operation = self._run(body, gradients, undo=undo if commit is not None else None)
            if commit is not None:
                completed = operation.output is not UNSET
                record = StepRecord(
                    idempotency_key=idempotency_key,
                    request=_wire(body) if completed else None,
                    operation=operation.to_dict(),
                    step=self._step if completed else None,
                    request_digest=fingerprint or None,
                )
                try:
                    commit(record)
                except BaseException:
                    for step_back in undo:
                        step_back()
                    raise
            self._operations[operation.id] = operation
            if idempotency_key is not None:
                self._keys[idempotency_key] = (fingerprint, operation.id)
            return operation

    def _check(
        self,
        body: Model | Mapping[str, Any],
        query: Query | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any | None:
        """The FAILED operation a step with ``body`` (and ``query`` and ``headers``) would answer
        because the request is invalid (without running it, changing or recording anything), or
        ``None``."""
        try:
            self._settings(body)
        except (ValidationError, _InvalidInput) as exc:
            return self._failed(str(uuid.uuid4()), self.revision.invalid_input, str(exc))
        return self._refused_parameters(query, headers)

    def _refused_parameters(
        self, query: Query | None, headers: Mapping[str, str] | None
    ) -> Any | None:
        """The FAILED operation of a step whose query parameters or headers the revision's
        rules refuse, or ``None`` (checked before the step runs: on one process, where the
        others follow what it runs)."""
        try:
            check_parameters(self.revision.parameters, query or {}, headers or {})
        except ValidationError as exc:
            return self._failed(str(uuid.uuid4()), self.revision.invalid_input, str(exc))
        return None

    def _restore_record(
        self,
        record: Mapping[str, Any],
        *,
        apply: bool,
        gradients: Callable[[], object] | None = None,
    ) -> None:
        """Take back a :class:`StepRecord` (as a dict) that a journal kept: its operation and key,
        and, where ``apply``, the step itself, run again from the recorded request (it must
        complete with the recorded step number, or ReplayError)."""
        with self._turn():
            operation: Any = self.revision.operation.from_dict(record["operation"])
            step = record.get("step")
            request = record.get("request")
            if apply and step is not None:
                if request is None:
                    raise ReplayError(f"step {step} has no recorded request to apply again")
                again = self._run(request, gradients, operation_id=operation.id)
                if again.output is UNSET or self._step != step:
                    problem = again.error.message if again.output is UNSET else f"step {self._step}"
                    raise ReplayError(
                        f"step {step} (operation {operation.id}) did not apply again: {problem}"
                    )
            elif step is not None:
                self._step = max(self._step, int(step))
            self._operations[operation.id] = operation
            key = record.get("idempotency_key")
            if key is not None:
                # a key without its request or digest (taken over from runtime 1.0.0) matches
                # any body
                fingerprint = record.get("request_digest") or (
                    "any" if request is None else _fingerprint(request)
                )
                self._keys[key] = (fingerprint, operation.id)

    def get_operation(self, operation_id: str) -> Any:
        """The operation with this id, as it is now."""
        try:
            return self._operations[operation_id]
        except KeyError:
            raise UnknownOperationError(f"no operation {operation_id!r} in this session") from None

    def _run(
        self,
        body: Model | Mapping[str, Any],
        gradients: Callable[[], object] | None,
        *,
        operation_id: str | None = None,
        undo: list[Callable[[], None]] | None = None,
    ) -> Any:
        """Run one step; where ``undo`` is given, a completed step appends to it what takes the
        step back (with ``rollback``)."""
        definition = self.revision
        operation_id = operation_id or str(uuid.uuid4())
        if self._broken is not None:
            return self._failed(operation_id, definition.internal_error, self._broken)
        try:
            settings = self._settings(body)
        except (ValidationError, _InvalidInput) as exc:
            return self._failed(operation_id, definition.invalid_input, str(exc))
        before = self._gradients() if gradients is not None or self._rollback else None
        if gradients is not None:
            try:
                with torch.enable_grad():
                    gradients()
            except Exception as exc:
                self._restore_gradients(before)
                message = f"computing the step's gradients failed ({type(exc).__name__}: {exc})"
                return self._failed(operation_id, definition.internal_error, message)
        names = [name for name, p in self._params.items() if p.grad is not None]
        grads = [_grad(self._params[name]) for name in names]
        if self._sharding is None:
            total_norm = _optim.total_grad_norm(grads)
        else:
            total_norm = self._sharding.total_grad_norm(names, grads)
        norm = total_norm.item()  # the step's one host synchronisation before the update
        if not math.isfinite(norm):
            if gradients is not None:
                self._restore_gradients(before)
            message = f"the total gradient norm is {norm}; nothing was changed"
            if self._sharding is None and bool(_optim.finite_flags(grads).all()):
                message = (
                    f"the gradients are finite, but their total norm is {norm}: it overflows "
                    "the float32 it is computed in; nothing was changed"
                )
            return self._failed(operation_id, definition.non_finite, message)
        saved = self._copy_state() if self._rollback else None
        try:
            with _sharded.together(self._sharding):  # sharded: fails on every process, or none
                self._apply(names, settings, total_norm)
            self._check_finite(names)  # after every process's update, for its all-reduce
        except _optim.NonFiniteUpdate as exc:
            # refused as non-finite gradients are: the same code, and nothing changed (where
            # the state was copied to be put back)
            if saved is None:
                self._broken = (
                    f"{exc}, and the parameters and optimizer state are as it left them (a "
                    "session without rollback keeps no copy); restore a saved state with "
                    "load_state_dict()"
                )
                return self._failed(operation_id, definition.non_finite, self._broken)
            self._restore_state(saved)
            self._restore_gradients(before)
            return self._failed(operation_id, definition.non_finite, f"{exc}; nothing was changed")
        except Exception as exc:
            problem = f"{type(exc).__name__}: {exc}"
            if saved is None:
                self._broken = (
                    f"an update failed midway ({problem}), so parameters and optimizer state "
                    "may be half-updated; restore a saved state with load_state_dict()"
                )
                return self._failed(operation_id, definition.internal_error, self._broken)
            self._restore_state(saved)
            self._restore_gradients(before)
            return self._failed(
                operation_id,
                definition.internal_error,
                f"the update failed ({problem}); nothing was changed",
            )
        if undo is not None and saved is not None:
            undo.append(self._undoing(saved, before))
        self._step += 1
        self._last_settings = {
            "clip": settings.clip,
            "adam": dict(settings.adam),
            "muon": dict(settings.muon),
        }
        for p in self._params.values():
            p.grad = None
        result = step_result(definition.result, self._step)
        return definition.operation(id=operation_id, status=definition.succeeded, output=result)

    def _undoing(
        self,
        saved: tuple[dict[str, Tensor], Any, Any],
        gradients: Mapping[str, Tensor | None] | None,
    ) -> Callable[[], None]:
        """What takes back the step about to be counted: its parameters, optimizer state,
        gradients, step counter and last settings as they were before it."""
        step, last = self._step, self._last_settings

        def undo() -> None:
            self._restore_state(saved)
            self._restore_gradients(gradients)
            self._step, self._last_settings = step, last

        return undo

    def _gradients(self) -> dict[str, Tensor | None]:
        """A copy of every parameter's gradient, to put back if the step fails."""
        return {
            name: None if p.grad is None else p.grad.detach().clone()
            for name, p in self._params.items()
        }

    def _restore_gradients(self, saved: Mapping[str, Tensor | None] | None) -> None:
        if saved is None:
            return
        for name, grad in saved.items():
            self._params[name].grad = grad

    def _copy_state(self) -> tuple[dict[str, Tensor], Any, Any]:
        """The parameters and the optimizer state, copied (for ``rollback``)."""
        parameters = {name: p.detach().clone() for name, p in self._params.items()}
        return parameters, copy.deepcopy(self._adam_state), copy.deepcopy(self._muon_state)

    def _restore_state(self, saved: tuple[dict[str, Tensor], Any, Any]) -> None:
        parameters, self._adam_state, self._muon_state = saved
        with torch.no_grad():
            for name, value in parameters.items():
                self._params[name].copy_(value)

    def _failed(self, operation_id: str, code: Any, message: str) -> Any:
        definition = self.revision
        return definition.operation(
            id=operation_id,
            status=definition.failed,
            error=definition.error(code=code, message=message),
        )

    # -- saving -------------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Parameters, optimizer state, step counter, operations and idempotency keys, to continue
        bit-for-bit after loading (over sharded parameters, the tensors are DTensors placed like
        their parameters)."""
        with self._turn():
            state = self._tensor_state()
            state["operations"] = {key: op.to_dict() for key, op in self._operations.items()}
            state["idempotency_keys"] = {key: list(entry) for key, entry in self._keys.items()}
            return state

    def _tensor_state(self) -> dict[str, Any]:
        """:meth:`state_dict` without the operations and keys (the caller holds the turn): what a
        snapshot holds, whose size does not grow with the number of steps."""
        state = {
            "optimizer": self.optimizer,
            "step": self._step,
            "parameters": {name: p.detach().clone() for name, p in self._params.items()},
            "adam": {name: _adam_saved(s) for name, s in self._adam_state.items()},
            "muon": {
                name: {"momentum_buffer": s.momentum_buffer.clone()}
                for name, s in self._muon_state.items()
            },
        }
        return state if self._sharding is None else self._sharding.saved(state)

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`state_dict` saved into this session's parameters and state (over
        sharded parameters, from DTensors placed like them or from whole tensors)."""
        with self._turn():
            self._load_tensor_state(state)
            self._operations = {
                key: self.revision.operation.from_dict(op)
                for key, op in state["operations"].items()
            }
            self._keys = {
                key: (entry[0], entry[1]) for key, entry in state["idempotency_keys"].items()
            }

    def _load_tensor_state(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`_tensor_state` gave (the caller holds the turn)."""
        if self._sharding is not None:
            state = self._sharding.loaded(state)
        if state["optimizer"] != self.optimizer:
            raise ConfigurationError(
                f"the state is of a {state['optimizer']} session, this is a {self.optimizer} one"
            )
        saved = state["parameters"]
        if set(saved) != set(self._params):
            raise ConfigurationError("the state's parameters are not this session's parameters")
        for name, value in saved.items():
            if value.shape != self._params[name].shape:
                raise ConfigurationError(
                    f"parameter {name!r} has shape {tuple(value.shape)} in the state"
                )
        with torch.no_grad():
            for name, value in saved.items():
                self._params[name].copy_(value)
        self._adam_state = {
            name: _optim.AdamParamState(
                s["exp_avg"].clone(),
                s["exp_avg_sq"].clone(),
                int(s["step"]),
                s["max_exp_avg_sq"].clone() if "max_exp_avg_sq" in s else None,
            )
            for name, s in state["adam"].items()
        }
        self._muon_state = {
            name: _optim.MuonParamState(s["momentum_buffer"].clone())
            for name, s in state["muon"].items()
        }
        self._step = int(state["step"])
        self._broken = None

    # -- one step -----------------------------------------------------------------------------------

    def _settings(self, body: Model | Mapping[str, Any]) -> _Settings:
        """Check the request and resolve every setting of the step: each field set in the body
        overrides the settings its rule names, else the session default applies."""
        model = self.revision.body
        wire = body.to_dict() if isinstance(body, model) else model.from_dict(body).to_dict()
        chosen: dict[str, _Choice] = {}
        for path, value, rule in _fields_set(wire, self.revision.rules[self.optimizer], ""):
            if isinstance(rule, Refused):
                raise _InvalidInput(path, value, rule.problem)
            if isinstance(rule, Sets):
                for setting in rule.settings:
                    _choose(chosen, setting, _Choice(path, value, rule.fallback))
        values = {setting: choice.value for setting, choice in chosen.items()}
        return _Settings(
            clip=values.get("clip", self._clip_default),
            adam=_group(self._adam_defaults, values, "adam."),
            muon=_group(self._muon_defaults, values, "muon."),
        )

    def _apply(self, names: list[str], settings: _Settings, total_norm: Tensor) -> None:
        # The clip: Muon's gradients are scaled before Newton-Schulz; Adam's inside its kernel.
        clip_coef = _optim.clip_coefficient(settings.clip, total_norm)
        if clip_coef is not None and clip_coef.item() == 1.0:
            # Within the bound, clip_grad_norm_ multiplies every gradient by exactly 1, which
            # changes nothing: the gradients are left as they are (Adam's kernel then reads them
            # without writing them back). One more scalar read, after the finite check's.
            clip_coef = None
        muon_names = [name for name in names if name in self._muon_names]
        adam_names = [name for name in names if name not in self._muon_names]
        part = self._part
        if muon_names:
            muon_grads = [part(_grad(self._params[n])) for n in muon_names]
            if clip_coef is not None:
                torch._foreach_mul_(muon_grads, clip_coef.to(muon_grads[0].device))
            states = _optim.ensure_states(
                self._muon_state,
                [(n, part(self._params[n])) for n in muon_names],
                _optim.muon_state,
            )
            _optim.muon_step(
                [part(self._params[n]) for n in muon_names],
                muon_grads,
                [s.momentum_buffer for s in states],
                lr=settings.muon["learning_rate"],
                momentum=settings.muon["momentum"],
                weight_decay=settings.muon["weight_decay"],
                ns_steps=int(settings.muon["newton_schulz_steps"]),
                scaling=self.muon_scaling,
                exchange=(
                    None
                    if self._sharding is None
                    else self._sharding.exchange([self._params[n] for n in muon_names])
                ),
            )
        if adam_names:
            _optim.adam_update(
                [part(self._params[n]) for n in adam_names],
                [part(_grad(self._params[n])) for n in adam_names],
                _optim.ensure_states(
                    self._adam_state,
                    [(n, part(self._params[n])) for n in adam_names],
                    _optim.adam_state,
                ),
                lr=settings.adam["learning_rate"],
                beta1=settings.adam["beta1"],
                beta2=settings.adam["beta2"],
                eps=settings.adam["eps"],
                weight_decay=settings.adam["weight_decay"],
                clip_coef=clip_coef,
                amsgrad=bool(settings.adam["amsgrad"]),
            )

    def _check_finite(self, names: list[str]) -> None:
        """Raise :class:`~._optim.NonFiniteUpdate`, naming a parameter, where the update left any of
        ``names`` with an infinite or NaN entry (on any process, over sharded parameters): a
        learning rate of 1e300 must fail the step, not leave the model unusable."""
        if not names:
            return
        finite = _optim.finite_flags([self._part(self._params[n]) for n in names])
        if self._sharding is not None:
            finite = self._sharding.finite_everywhere(finite)
        if bool(finite.all().item()):
            return
        first = names[int((~finite).nonzero()[0].item())]
        raise _optim.NonFiniteUpdate(f"the update left the parameter {first!r} non-finite")

    def _part(self, tensor: Tensor) -> Tensor:
        """The part of ``tensor`` this process updates: all of it, or its local shard."""
        return tensor if self._sharding is None else self._sharding.local(tensor)

    # -- bookkeeping --------------------------------------------------------------------------------

    @contextmanager
    def _turn(self) -> Iterator[None]:
        """Run the block after every block entered before it (first come, first served)."""
        with self._turns:
            ticket = self._next_ticket
            self._next_ticket += 1
            self._turns.wait_for(lambda: self._serving == ticket)
        try:
            yield
        finally:
            with self._turns:
                self._serving += 1
                self._turns.notify_all()


def _wire(body: Model | Mapping[str, Any]) -> dict[str, Any]:
    """The body in the wire format."""
    return body.to_dict() if isinstance(body, Model) else dict(body)


def _fingerprint(body: Model | Mapping[str, Any]) -> str:
    """What an idempotency key is compared by: the body's content, with numbers by value and
    keys in any order (``{"a": 1, "b": 2.50}`` and ``{"b": 2.5, "a": 1.0}`` are the same)."""
    try:
        text = _canonical(_wire(body))
    except RecursionError:
        text = repr(_wire(body))
    return "v2:" + hashlib.sha256(text.encode()).hexdigest()


def _same_request(seen: str, fingerprint: str, body: Model | Mapping[str, Any]) -> bool:
    """Whether a body whose fingerprint is ``fingerprint`` is the request a key saw before
    (``seen``; a key kept by runtime 1.0.0 has the fingerprint of the body's text)."""
    if seen == "any":
        return True
    if seen.startswith("v2:"):
        return seen == fingerprint
    data = _wire(body)
    try:
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(data)
    return seen == hashlib.sha256(text.encode()).hexdigest()


def _canonical(value: Any) -> str:
    """JSON-like text of ``value`` that is the same for the same content: keys sorted, every
    number written by its exact value (``1``, ``1.0`` and ``1e0`` alike), ``true`` never a number.
    """
    if value is None or isinstance(value, (bool, str)):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, Mapping):
        items = sorted((str(k), v) for k, v in value.items())
        return "{" + ",".join(f"{json.dumps(k)}:{_canonical(v)}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_canonical(item) for item in value) + "]"
    return json.dumps(repr(value))


def _number(value: int | float) -> str:
    """A number's exact value as ``digits e exponent`` without trailing zeros (``0`` for zero,
    either sign); not-a-number and the infinities as Python writes them."""
    exact = Decimal(value) if isinstance(value, int) else Decimal(repr(value))
    if not exact.is_finite():
        return repr(value)
    if exact.is_zero():
        return "0"
    sign, digits, exponent = exact.as_tuple()
    assert isinstance(exponent, int)
    figures = "".join(map(str, digits)).rstrip("0")
    exponent += len(digits) - len(figures)
    return f"{'-' if sign else ''}{figures}e{exponent}"


def _grad(param: Tensor) -> Tensor:
    assert param.grad is not None
    return param.grad


def _fields_set(
    data: Mapping[str, Any], rules: Mapping[str, Rule], prefix: str
) -> Iterator[tuple[str, Any, Rule]]:
    """Every field set in ``data`` but the groups, with its JSON path and rule (the fields of a
    group follow the group's own rule)."""
    for key, value in data.items():
        path = at(prefix, key)
        rule = rules[path]
        if isinstance(rule, Group):
            yield from _fields_set(value, rules, path)
        else:
            yield path, value, rule


def _adam_saved(state: _optim.AdamParamState) -> dict[str, Any]:
    """One parameter's Adam state as ``state_dict`` saves it (the AMSGrad maxima where made)."""
    saved: dict[str, Any] = {
        "exp_avg": state.exp_avg.clone(),
        "exp_avg_sq": state.exp_avg_sq.clone(),
        "step": state.step,
    }
    if state.max_exp_avg_sq is not None:
        saved["max_exp_avg_sq"] = state.max_exp_avg_sq.clone()
    return saved


def _choose(chosen: dict[str, _Choice], setting: str, choice: _Choice) -> None:
    """Record ``choice`` for ``setting``: it is checked against the setting's range, a group's
    value wins over a step-level one, and two values of the same standing must be equal."""
    name = setting.rpartition(".")[2]
    problem = _problem(name, choice.value)
    if problem:
        raise _InvalidInput(choice.path, choice.value, problem)
    earlier = chosen.get(setting)
    if earlier is None or (earlier.fallback and not choice.fallback):
        chosen[setting] = choice
    elif earlier.fallback == choice.fallback and earlier.value != choice.value:
        raise _InvalidInput(
            choice.path,
            choice.value,
            f"differs from {earlier.path} ({earlier.value}); set one {name} value",
        )


def _problem(name: str, value: float | bool) -> str | None:
    """Why a setting cannot take ``value``: outside its range, or not integral where the setting
    is an integer (``newton_schulz_steps`` 5.5 is refused, never truncated); ``None`` if it can."""
    if SETTING_KINDS.get(name) == "integer" and not float(value).is_integer():
        return "must be an integer"
    limits = SETTING_RANGES.get(name)
    return None if limits is None else limits.problem(value)


def _group(
    defaults: Mapping[str, float], values: Mapping[str, float], prefix: str
) -> dict[str, float]:
    """The session defaults of one optimizer, with the step's values for it."""
    settings = dict(defaults)
    for setting, value in values.items():
        if setting.startswith(prefix):
            settings[setting.removeprefix(prefix)] = value
    return settings
