"""A local optimizer session: what an optim-step does to a model, run on this machine.

The session ties together what lives beside it: what it is made with (``_configuration``), what
one step does (``_steps``: it follows the API's reference semantics step by step), a step's
settings (``_overrides``), its optimizers and their state (``_optimizers``, each optimizer's
algorithm found through the registry, ``together_rl_runtime.optimizers``), its operations and
idempotency keys (``_operations``) and the turns its steps take (``_turns``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, ClassVar

from torch import Tensor, nn

from .._exceptions import ConfigurationError, UnknownOperationError
from .._model import UNSET, Model
from ..optimizers import DEFAULT
from . import _sharded
from ._configuration import configure
from ._definition import ReferenceRevision
from ._operations import Operations, fingerprint, wire
from ._optimizers import SessionOptimizers
from ._parameters import Query
from ._steps import SessionSteps
from ._turns import Turns

__all__ = [
    "LocalSession",
    "ReplayError",
    "StepRecord",
    "UnknownOperationError",
]


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


class LocalSession(SessionSteps):
    """A training session's optimizer, applied to local ``torch`` parameters.

    A revision's package subclasses it with the revision's definitions (``revision``), so that
    requests and answers are that revision's models and its fields follow their rules.

    ``params`` is a ``torch.nn.Module`` or ``(name, parameter)`` pairs; only parameters that
    require gradients take part. ``optimizer`` names an optimizer of the registry
    (``together_rl_runtime.optimizers.REGISTRY``, whose entries say each one's settings, their
    session defaults and its options; the first is the default): the session runs it on every
    parameter, or on those its filter chooses, with the optimizer the registry names for the
    rest. The options of every optimizer are keyword arguments of any session: its choices
    (checked whatever the session's optimizer, and each an attribute of the session) and its
    filter (only in a session of it).

    A setting a step's request leaves out takes the default the revision's document declares
    for its field (``revision.defaults``), else the session default (the registry's; a clip
    value of 1.0). Session defaults given as keyword arguments override both: the optimizer's
    settings by name, those of the optimizer of the rest prefixed with its name and ``_``, and
    the clip value as ``grad_clip_norm``.

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
        optimizer: str = DEFAULT.name,
        *,
        rollback: bool = False,
        **options: Any,
    ) -> None:
        named = params.named_parameters() if isinstance(params, nn.Module) else params
        self._params: dict[str, Tensor] = {name: p for name, p in named if p.requires_grad}
        self._sharding = _sharded.sharding_of(self._params)
        """How the parameters are sharded across processes (DTensors); ``None``: whole."""
        configuration = configure(optimizer, options, self.revision.defaults)
        self.optimizer: str = optimizer
        for keyword, value in configuration.options.items():
            setattr(self, keyword, value)
        self._defaults = configuration.defaults
        self._optimizers = SessionOptimizers(
            self._params,
            self._sharding,
            configuration.optimizer,
            configuration.chosen,
            configuration.options,
        )
        self._step = 0
        self._operations = Operations()
        self._rollback = rollback
        self._broken: str | None = None
        self._last_settings: dict[str, Any] | None = None
        self._turns = Turns()

    @property
    def step(self) -> int:
        """The number of completed steps."""
        return self._step

    @property
    def last_settings(self) -> dict[str, Any] | None:
        """The hyperparameters the last completed step used, after its overrides fell back to
        the session defaults: ``{"clip": ..., "<optimizer>": {...}, ...}``, every optimizer's
        (``None`` before the first step)."""
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
            digest = fingerprint(body) if idempotency_key is not None else ""
            if idempotency_key is not None:
                resent = self._operations.resent(idempotency_key, digest, body)
                if resent is not None:
                    return resent
            undo: list[Callable[[], None]] = []
            operation = self._refused_parameters(query, headers)
            if operation is None:
                operation = self._run(body, gradients, undo=undo if commit is not None else None)
            if commit is not None:
                completed = operation.output is not UNSET
                record = StepRecord(
                    idempotency_key=idempotency_key,
                    request=wire(body) if completed else None,
                    operation=operation.to_dict(),
                    step=self._step if completed else None,
                    request_digest=digest or None,
                )
                try:
                    commit(record)
                except BaseException:
                    for step_back in undo:
                        step_back()
                    raise
            self._operations.add(operation, idempotency_key, digest)
            return operation

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
            self._operations.restore(operation, record)

    def get_operation(self, operation_id: str) -> Any:
        """The operation with this id, as it is now."""
        return self._operations.get(operation_id)

    # -- saving -------------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Parameters, optimizer state, step counter, operations and idempotency keys, to continue
        bit-for-bit after loading (over sharded parameters, the tensors are DTensors placed like
        their parameters)."""
        with self._turn():
            state = self._tensor_state()
            state.update(self._operations.saved())
            return state

    def _tensor_state(self) -> dict[str, Any]:
        """:meth:`state_dict` without the operations and keys (the caller holds the turn): what a
        snapshot holds, whose size does not grow with the number of steps."""
        state = {"optimizer": self.optimizer, "step": self._step, **self._optimizers.saved()}
        return state if self._sharding is None else self._sharding.saved(state)

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`state_dict` saved into this session's parameters and state (over
        sharded parameters, from DTensors placed like them or from whole tensors)."""
        with self._turn():
            self._load_tensor_state(state)
            self._operations.load(state, self.revision.operation)

    def _load_tensor_state(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`_tensor_state` gave (the caller holds the turn)."""
        if self._sharding is not None:
            state = self._sharding.loaded(state)
        if state["optimizer"] != self.optimizer:
            raise ConfigurationError(
                f"the state is of a {state['optimizer']} session, this is a {self.optimizer} one"
            )
        self._optimizers.load(state)
        self._step = int(state["step"])
        self._broken = None

    def _turn(self) -> AbstractContextManager[None]:
        """Run the block after every block entered before it (first come, first served)."""
        return self._turns.turn()
