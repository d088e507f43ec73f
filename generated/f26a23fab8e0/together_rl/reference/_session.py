"""A local optimizer session: what an optim-step does to a model, run on this machine.

It follows the API's reference semantics step by step: check the request, measure the total
gradient norm, refuse non-finite gradients, clip, update (Adam, or Muon with Adam for the
parameters Muon does not handle), then count the step and clear the gradients.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import Tensor, nn

from .._exceptions import ValidationError
from .._model import at
from ..models import (
    RLOptimStepOperation,
    RLOptimStepResult,
    RLTrainingOperationError,
    RLTrainingOperationErrorCode,
    RLTrainingOperationStatus,
)
from . import _optim
from ._fields import NON_FINITE, RULES, Body
from ._rules import Group, Refused, Rule, Sets

__all__ = ["ADAM_DEFAULTS", "MUON_DEFAULTS", "LocalSession", "UnknownOperationError"]

ADAM_DEFAULTS: Mapping[str, float] = {
    "learning_rate": 1e-4,
    "beta1": 0.9,
    "beta2": 0.95,
    "eps": 1e-8,
    "weight_decay": 0.0,
}
"""Session defaults of Adam (also of the Adam-handled parameters of a Muon session)."""
MUON_DEFAULTS: Mapping[str, float] = {
    "learning_rate": 0.02,
    "momentum": 0.95,
    "newton_schulz_steps": 5,
    "weight_decay": 0.0,
}
"""Session defaults of Muon."""
DEFAULT_CLIP = 1.0

# The range of every setting; a request outside it fails with INVALID_INPUT.
_RANGES: dict[str, tuple[Callable[[float], bool], str]] = {
    "learning_rate": (lambda v: v >= 0, "must be >= 0"),
    "beta1": (lambda v: 0 <= v < 1, "must be in [0, 1)"),
    "beta2": (lambda v: 0 <= v < 1, "must be in [0, 1)"),
    "eps": (lambda v: v > 0, "must be > 0"),
    "weight_decay": (lambda v: v >= 0, "must be >= 0"),
    "clip": (lambda v: v >= 0, "must be >= 0"),
    "momentum": (lambda v: 0 <= v < 1, "must be in [0, 1)"),
    "newton_schulz_steps": (lambda v: 1 <= v <= 100, "must be between 1 and 100"),
}

Optimizer = Literal["adam", "muon"]
MuonFilter = Callable[[str, Tensor], bool]


class UnknownOperationError(LookupError):
    """No operation of this session has the id."""


class _InvalidInput(Exception):
    def __init__(self, path: str, value: object, problem: str) -> None:
        super().__init__(f"{path or '(body)'}: {problem}, got {value!r}")


@dataclass(frozen=True)
class _Choice:
    """A request field's value for a setting."""

    path: str
    value: float
    fallback: bool


@dataclass(frozen=True)
class _Settings:
    """What one step uses, after per-step overrides fell back to the session defaults."""

    clip: float
    adam: Mapping[str, float]
    muon: Mapping[str, float]


def default_muon_filter(name: str, param: Tensor) -> bool:
    """Muon handles every 2-D parameter whose name contains neither ``embed`` nor ``lm_head``."""
    return param.ndim == 2 and "embed" not in name and "lm_head" not in name


class LocalSession:
    """A training session's optimizer, applied to local ``torch`` parameters.

    ``params`` is a ``torch.nn.Module`` or ``(name, parameter)`` pairs; only parameters that
    require gradients take part. ``optimizer`` is ``"adam"`` or ``"muon"``; in a Muon session
    ``muon_filter(name, param)`` says which parameters Muon handles (default: 2-D, no ``embed``
    or ``lm_head`` in the name), Adam handling the rest, and ``muon_scaling`` is ``"original"``
    (``lr * sqrt(max(1, A/B))``) or ``"match_adam"`` (``lr * 0.2 * sqrt(max(A, B))``).

    ``defaults`` override the session defaults. An Adam session takes ``learning_rate``,
    ``beta1``, ``beta2``, ``eps``, ``weight_decay`` and ``grad_clip_norm``; a Muon session takes
    ``learning_rate``, ``momentum``, ``newton_schulz_steps``, ``weight_decay``,
    ``grad_clip_norm``, and ``adam_learning_rate``, ``adam_beta1``, ``adam_beta2``, ``adam_eps``,
    ``adam_weight_decay`` for its Adam-handled parameters.

    Gradients accumulate in ``param.grad`` as usual; :meth:`optim_step` consumes them. Steps run
    one at a time, in the order they were submitted, also from several threads.
    """

    def __init__(
        self,
        params: nn.Module | Iterable[tuple[str, Tensor]],
        optimizer: Optimizer = "adam",
        *,
        muon_scaling: _optim.MuonScaling = "original",
        muon_filter: MuonFilter | None = None,
        **defaults: float,
    ) -> None:
        named = params.named_parameters() if isinstance(params, nn.Module) else params
        self._params: dict[str, Tensor] = {name: p for name, p in named if p.requires_grad}
        if optimizer not in ("adam", "muon"):
            raise ValueError(f"optimizer must be 'adam' or 'muon', got {optimizer!r}")
        if muon_scaling not in ("original", "match_adam"):
            raise ValueError(
                f"muon_scaling must be 'original' or 'match_adam', got {muon_scaling!r}"
            )
        if optimizer == "adam" and muon_filter is not None:
            raise ValueError("muon_filter is for Muon sessions")
        self.optimizer: Optimizer = optimizer
        self.muon_scaling: _optim.MuonScaling = muon_scaling
        self._adam_defaults, self._muon_defaults, self._clip_default = self._session_defaults(
            optimizer, defaults
        )
        chosen = muon_filter or default_muon_filter
        self._muon_names = frozenset(
            name for name, p in self._params.items() if optimizer == "muon" and chosen(name, p)
        )
        for name in self._muon_names:
            if self._params[name].ndim != 2:
                raise ValueError(f"Muon handles 2-D parameters only; the filter chose {name!r}")
        self._adam_state: dict[str, _optim.AdamParamState] = {}
        self._muon_state: dict[str, _optim.MuonParamState] = {}
        self._step = 0
        self._operation_count = 0
        self._operations: dict[str, RLOptimStepOperation] = {}
        self._turns = threading.Condition()
        self._next_ticket = 0
        self._serving = 0

    @staticmethod
    def _session_defaults(
        optimizer: Optimizer, given: Mapping[str, float]
    ) -> tuple[dict[str, float], dict[str, float], float]:
        adam, muon, clip = dict(ADAM_DEFAULTS), dict(MUON_DEFAULTS), DEFAULT_CLIP
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
                raise TypeError(f"unknown session default {key!r} for a {optimizer} session")
            check, problem = _RANGES[name]
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
            ):
                raise ValueError(f"session default {key} must be a finite number, got {value!r}")
            if not check(value):
                raise ValueError(f"session default {key} {problem}, got {value!r}")
            if table is None:
                clip = value
            else:
                table[name] = value
        return adam, muon, clip

    @property
    def step(self) -> int:
        """The number of completed steps."""
        return self._step

    # -- operations ---------------------------------------------------------------------------------

    def optim_step(self, body: Body | Mapping[str, Any]) -> RLOptimStepOperation:
        """Apply one optimizer step with the per-step overrides of ``body`` (the model, or a dict in
        the wire format) and return the finished operation: COMPLETED with ``output.step``, or
        FAILED with an error code and a message."""
        with self._turn():
            self._operation_count += 1
            operation_id = f"optim-step-{self._operation_count}"
            try:
                settings = self._settings(body)
            except (ValidationError, _InvalidInput) as exc:
                code = RLTrainingOperationErrorCode.TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT
                return self._record(_failed(operation_id, code, str(exc)))
            names = [name for name, p in self._params.items() if p.grad is not None]
            grads = [self._params[name].grad for name in names]
            total_norm = _optim.total_grad_norm([g for g in grads if g is not None])
            if not torch.isfinite(total_norm):
                message = f"the total gradient norm is {total_norm.item()}; nothing was changed"
                return self._record(_failed(operation_id, NON_FINITE, message))
            self._apply(names, settings, total_norm)
            self._step += 1
            for p in self._params.values():
                p.grad = None
            result = RLOptimStepResult(step=str(self._step))
            status = RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_COMPLETED
            return self._record(RLOptimStepOperation(id=operation_id, status=status, output=result))

    def get_operation(self, operation_id: str) -> RLOptimStepOperation:
        """The operation with this id, as it is now."""
        try:
            return self._operations[operation_id]
        except KeyError:
            raise UnknownOperationError(f"no operation {operation_id!r} in this session") from None

    # -- saving -------------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Parameters, optimizer state and step counter, to continue bit-for-bit after loading."""
        with self._turn():
            return {
                "optimizer": self.optimizer,
                "step": self._step,
                "operations": self._operation_count,
                "parameters": {name: p.detach().clone() for name, p in self._params.items()},
                "adam": {
                    name: {
                        "exp_avg": s.exp_avg.clone(),
                        "exp_avg_sq": s.exp_avg_sq.clone(),
                        "step": s.step,
                    }
                    for name, s in self._adam_state.items()
                },
                "muon": {
                    name: {"momentum_buffer": s.momentum_buffer.clone()}
                    for name, s in self._muon_state.items()
                },
            }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`state_dict` saved into this session's parameters and state."""
        with self._turn():
            if state["optimizer"] != self.optimizer:
                raise ValueError(
                    f"the state is of a {state['optimizer']} session, this is a {self.optimizer} one"
                )
            saved = state["parameters"]
            if set(saved) != set(self._params):
                raise ValueError("the state's parameters are not this session's parameters")
            for name, value in saved.items():
                if value.shape != self._params[name].shape:
                    raise ValueError(
                        f"parameter {name!r} has shape {tuple(value.shape)} in the state"
                    )
            with torch.no_grad():
                for name, value in saved.items():
                    self._params[name].copy_(value)
            self._adam_state = {
                name: _optim.AdamParamState(
                    s["exp_avg"].clone(), s["exp_avg_sq"].clone(), int(s["step"])
                )
                for name, s in state["adam"].items()
            }
            self._muon_state = {
                name: _optim.MuonParamState(s["momentum_buffer"].clone())
                for name, s in state["muon"].items()
            }
            self._step = int(state["step"])
            self._operation_count = int(state["operations"])

    # -- one step -----------------------------------------------------------------------------------

    def _settings(self, body: Body | Mapping[str, Any]) -> _Settings:
        """Check the request and resolve every setting of the step: each field set in the body
        overrides the settings its rule names, else the session default applies."""
        wire = body.to_dict() if isinstance(body, Body) else Body.from_dict(body).to_dict()
        chosen: dict[str, _Choice] = {}
        for path, value, rule in _fields_set(wire, RULES[self.optimizer], ""):
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
        muon_names = [name for name in names if name in self._muon_names]
        adam_names = [name for name in names if name not in self._muon_names]
        if muon_names:
            muon_grads = [_grad(self._params[n]) for n in muon_names]
            if clip_coef is not None:
                torch._foreach_mul_(muon_grads, clip_coef.to(muon_grads[0].device))
            states = _optim.ensure_states(
                self._muon_state, [(n, self._params[n]) for n in muon_names], _optim.muon_state
            )
            _optim.muon_step(
                [self._params[n] for n in muon_names],
                muon_grads,
                [s.momentum_buffer for s in states],
                lr=settings.muon["learning_rate"],
                momentum=settings.muon["momentum"],
                weight_decay=settings.muon["weight_decay"],
                ns_steps=int(settings.muon["newton_schulz_steps"]),
                scaling=self.muon_scaling,
            )
        if adam_names:
            _optim.adam_update(
                [self._params[n] for n in adam_names],
                [_grad(self._params[n]) for n in adam_names],
                _optim.ensure_states(
                    self._adam_state, [(n, self._params[n]) for n in adam_names], _optim.adam_state
                ),
                lr=settings.adam["learning_rate"],
                beta1=settings.adam["beta1"],
                beta2=settings.adam["beta2"],
                eps=settings.adam["eps"],
                weight_decay=settings.adam["weight_decay"],
                clip_coef=clip_coef,
            )

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

    def _record(self, operation: RLOptimStepOperation) -> RLOptimStepOperation:
        self._operations[operation.id] = operation
        return operation


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


def _choose(chosen: dict[str, _Choice], setting: str, choice: _Choice) -> None:
    """Record ``choice`` for ``setting``: it is checked against the setting's range, a group's
    value wins over a step-level one, and two values of the same standing must be equal."""
    name = setting.rpartition(".")[2]
    check, problem = _RANGES[name]
    if not check(choice.value):
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


def _group(
    defaults: Mapping[str, float], values: Mapping[str, float], prefix: str
) -> dict[str, float]:
    """The session defaults of one optimizer, with the step's values for it."""
    settings = dict(defaults)
    for setting, value in values.items():
        if setting.startswith(prefix):
            settings[setting.removeprefix(prefix)] = value
    return settings


def _failed(
    operation_id: str, code: RLTrainingOperationErrorCode, message: str
) -> RLOptimStepOperation:
    return RLOptimStepOperation(
        id=operation_id,
        status=RLTrainingOperationStatus.TRAINING_OPERATION_STATUS_FAILED,
        error=RLTrainingOperationError(code=code, message=message),
    )
