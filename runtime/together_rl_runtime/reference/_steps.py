"""What one step of a session does, in the order of the API's reference semantics: check the
request, compute the gradients (where the server does), measure their total norm and refuse
non-finite ones, update with each optimizer the session runs, refuse an update that left a
parameter non-finite, then count the step and clear the gradients. A step that fails changes
nothing: with ``rollback`` the update's tensors are copied first and put back on failure;
without, a failure inside the update leaves the session refusing further steps.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import torch
from torch import Tensor

from .._exceptions import ValidationError
from .._model import Model
from . import _optim, _sharded
from ._answers import step_result
from ._definition import ReferenceRevision
from ._optimizers import Gradients, Saved, SessionOptimizers, grad
from ._overrides import InvalidInput, SessionDefaults, StepSettings, step_settings
from ._parameters import Query, check_parameters
from ._sharded import Sharding

__all__ = ["SessionSteps"]


class SessionSteps:
    """The steps of a ``LocalSession``, which sets the state they read and change."""

    revision: ClassVar[ReferenceRevision]
    optimizer: str
    _params: dict[str, Tensor]
    _sharding: Sharding | None
    _defaults: SessionDefaults
    _optimizers: SessionOptimizers
    _rollback: bool
    _broken: str | None
    """Why the session refuses steps (an update failed midway without ``rollback``), or
    ``None``."""
    _step: int
    _last_settings: dict[str, Any] | None

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
            self._step_settings(body)
        except (ValidationError, InvalidInput) as exc:
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

    def _step_settings(self, body: Model | Mapping[str, Any]) -> StepSettings:
        """Check the request and resolve every setting of the step."""
        return step_settings(body, self.revision, self.optimizer, self._defaults)

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
            settings = self._step_settings(body)
        except (ValidationError, InvalidInput) as exc:
            return self._failed(operation_id, definition.invalid_input, str(exc))
        before = self._optimizers.gradients() if gradients is not None or self._rollback else None
        if gradients is not None:
            try:
                with torch.enable_grad():
                    gradients()
            except Exception as exc:
                self._optimizers.restore_gradients(before)
                message = f"computing the step's gradients failed ({type(exc).__name__}: {exc})"
                return self._failed(operation_id, definition.internal_error, message)
        names = [name for name, p in self._params.items() if p.grad is not None]
        grads = [grad(self._params[name]) for name in names]
        if self._sharding is None:
            total_norm = _optim.total_grad_norm(grads)
        else:
            total_norm = self._sharding.total_grad_norm(names, grads)
        norm = total_norm.item()  # the step's one host synchronisation before the update
        if not math.isfinite(norm):
            if gradients is not None:
                self._optimizers.restore_gradients(before)
            message = f"the total gradient norm is {norm}; nothing was changed"
            if self._sharding is None and bool(_optim.finite_flags(grads).all()):
                message = (
                    f"the gradients are finite, but their total norm is {norm}: it overflows "
                    "the float32 it is computed in; nothing was changed"
                )
            return self._failed(operation_id, definition.non_finite, message)
        failure = self._update(names, settings, total_norm, before, undo)
        if failure is not None:
            code, message = failure
            return self._failed(operation_id, code, message)
        self._step += 1
        self._last_settings = settings.recorded()
        for p in self._params.values():
            p.grad = None
        result = step_result(definition.result, self._step)
        return definition.operation(id=operation_id, status=definition.succeeded, output=result)

    def _update(
        self,
        names: list[str],
        settings: StepSettings,
        total_norm: Tensor,
        before: Gradients | None,
        undo: list[Callable[[], None]] | None,
    ) -> tuple[Any, str] | None:
        """Update the parameters ``names``: ``None`` where it succeeded (appending to ``undo``,
        where given, what takes it back), else the error code and message of the failed step
        (which changed nothing where the state was copied for ``rollback``; without, the session
        refuses further steps)."""
        definition = self.revision
        saved = self._optimizers.copy() if self._rollback else None
        try:
            with _sharded.together(self._sharding):  # sharded: fails on every process, or none
                self._apply(names, settings, total_norm)
            self._optimizers.check_finite(names)  # after every process's update: an all-reduce
        except _optim.NonFiniteUpdate as exc:
            # refused as non-finite gradients are: the same code, and nothing changed (where
            # the state was copied to be put back)
            if saved is None:
                self._broken = (
                    f"{exc}, and the parameters and optimizer state are as it left them (a "
                    "session without rollback keeps no copy); restore a saved state with "
                    "load_state_dict()"
                )
                return definition.non_finite, self._broken
            self._optimizers.restore(saved)
            self._optimizers.restore_gradients(before)
            return definition.non_finite, f"{exc}; nothing was changed"
        except Exception as exc:
            problem = f"{type(exc).__name__}: {exc}"
            if saved is None:
                self._broken = (
                    f"an update failed midway ({problem}), so parameters and optimizer state "
                    "may be half-updated; restore a saved state with load_state_dict()"
                )
                return definition.internal_error, self._broken
            self._optimizers.restore(saved)
            self._optimizers.restore_gradients(before)
            return definition.internal_error, f"the update failed ({problem}); nothing was changed"
        if undo is not None and saved is not None:
            undo.append(self._undoing(saved, before))
        return None

    def _apply(self, names: list[str], settings: StepSettings, total_norm: Tensor) -> None:
        """Update the parameters ``names`` with each optimizer the session runs."""
        self._optimizers.apply(names, settings, total_norm)

    def _failed(self, operation_id: str, code: Any, message: str) -> Any:
        definition = self.revision
        return definition.operation(
            id=operation_id,
            status=definition.failed,
            error=definition.error(code=code, message=message),
        )

    def _undoing(self, saved: Saved, gradients: Gradients | None) -> Callable[[], None]:
        """What takes back the step about to be counted: its parameters, optimizer state,
        gradients, step counter and last settings as they were before it."""
        step, last = self._step, self._last_settings

        def undo() -> None:
            self._optimizers.restore(saved)
            self._optimizers.restore_gradients(gradients)
            self._step, self._last_settings = step, last

        return undo
