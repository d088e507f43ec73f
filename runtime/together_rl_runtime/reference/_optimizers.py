"""The optimizers a session runs over its parameters: which one handles each parameter, their
optimizer state, a step's update, dispatched to each one's algorithm (found through the
registry, ``together_rl_runtime.optimizers``), and the copies, saves and loads of the tensors
they update."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch import Tensor

from .._exceptions import ConfigurationError
from ..optimizers import REGISTRY, Optimizer, runs
from . import _optim
from ._algorithm import Update, algorithm_of
from ._overrides import StepSettings
from ._sharded import Sharding

__all__ = ["Filter", "Gradients", "Saved", "SessionOptimizers", "grad"]

Filter = Callable[[str, Tensor], bool]
"""Whether an optimizer with a filter handles a parameter, by its name and tensor."""

Saved = tuple[dict[str, Tensor], dict[str, dict[str, Any]]]
"""The parameters and optimizer states as :meth:`SessionOptimizers.copy` took them."""
Gradients = Mapping[str, Tensor | None]
"""A copy of every parameter's gradient, by name (``None``: it has none)."""


def grad(param: Tensor) -> Tensor:
    """The gradient of a parameter that has one."""
    assert param.grad is not None
    return param.grad


class SessionOptimizers:
    """The optimizers of a session of ``optimizer`` over ``params``: it handles every parameter,
    or those ``chosen`` by its filter (by default the algorithm's choice), with its
    :attr:`~together_rl_runtime.optimizers.Optimizer.rest` on the others. ``options`` are the
    session's choices."""

    def __init__(
        self,
        params: Mapping[str, Tensor],
        sharding: Sharding | None,
        optimizer: Optimizer,
        chosen: Filter | None,
        options: Mapping[str, Any],
    ) -> None:
        self._params = params
        self._sharding = sharding
        self._options = options
        self._algorithms = {name: algorithm_of(o) for name, o in REGISTRY.items()}
        self._runs = runs(optimizer)
        self._handler = dict.fromkeys(params, optimizer.name)
        """The optimizer that handles each parameter."""
        if optimizer.rest is not None:
            own = self._algorithms[optimizer.name]
            chooses = chosen or own.chooses
            assert chooses is not None and own.check is not None
            for name, p in params.items():
                if not chooses(name, p):
                    self._handler[name] = optimizer.rest
            for name, p in params.items():
                if self._handler[name] == optimizer.name:
                    own.check(name, p)
        self.states: dict[str, dict[str, Any]] = {name: {} for name in REGISTRY}
        """Each optimizer's state of each parameter it has stepped, by parameter name."""

    def part(self, tensor: Tensor) -> Tensor:
        """The part of ``tensor`` this process updates: all of it, or its local shard."""
        return tensor if self._sharding is None else self._sharding.local(tensor)

    def apply(self, names: list[str], settings: StepSettings, total_norm: Tensor) -> None:
        """Update the parameters ``names`` (those with a gradient) with the step's ``settings``,
        their gradients (of total norm ``total_norm``) clipped as ``settings`` say."""
        clip_coef = _optim.clip_coefficient(settings.clip, total_norm)
        if clip_coef is not None and clip_coef.item() == 1.0:
            # Within the bound, clip_grad_norm_ multiplies every gradient by exactly 1, which
            # changes nothing: the gradients are left as they are (a kernel that folds the clip
            # in then reads them without writing them back). One more scalar read, after the
            # finite check's.
            clip_coef = None
        for optimizer in self._runs:
            handled = [name for name in names if self._handler[name] == optimizer.name]
            if not handled:
                continue
            algorithm = self._algorithms[optimizer.name]
            params = [self.part(self._params[name]) for name in handled]
            states = _optim.ensure_states(
                self.states[optimizer.name], list(zip(handled, params)), algorithm.fresh
            )
            algorithm.update(
                Update(
                    params=params,
                    grads=[self.part(grad(self._params[name])) for name in handled],
                    states=states,
                    settings=settings.optimizers[optimizer.name],
                    clip_coef=clip_coef,
                    whole=[self._params[name] for name in handled],
                    sharding=self._sharding,
                    options=self._options,
                )
            )

    def check_finite(self, names: list[str]) -> None:
        """Raise :class:`~._optim.NonFiniteUpdate`, naming a parameter, where the update left any of
        ``names`` with an infinite or NaN entry (on any process, over sharded parameters): a
        learning rate of 1e300 must fail the step, not leave the model unusable."""
        if not names:
            return
        finite = _optim.finite_flags([self.part(self._params[n]) for n in names])
        if self._sharding is not None:
            finite = self._sharding.finite_everywhere(finite)
        if bool(finite.all().item()):
            return
        first = names[int((~finite).nonzero()[0].item())]
        raise _optim.NonFiniteUpdate(f"the update left the parameter {first!r} non-finite")

    # -- rollback -----------------------------------------------------------------------------------

    def copy(self) -> Saved:
        """The parameters and the optimizer states, copied (for ``rollback``)."""
        parameters = {name: p.detach().clone() for name, p in self._params.items()}
        return parameters, copy.deepcopy(self.states)

    def restore(self, saved: Saved) -> None:
        """Put back what :meth:`copy` took."""
        parameters, self.states = saved
        with torch.no_grad():
            for name, value in parameters.items():
                self._params[name].copy_(value)

    def gradients(self) -> Gradients:
        """A copy of every parameter's gradient, to put back if the step fails."""
        return {
            name: None if p.grad is None else p.grad.detach().clone()
            for name, p in self._params.items()
        }

    def restore_gradients(self, saved: Gradients | None) -> None:
        """Put back what :meth:`gradients` took (nothing where ``saved`` is ``None``)."""
        if saved is None:
            return
        for name, gradient in saved.items():
            self._params[name].grad = gradient

    # -- saving -------------------------------------------------------------------------------------

    def saved(self) -> dict[str, Any]:
        """The parameters (copies) and each optimizer's states as ``state_dict`` holds them, by
        optimizer and parameter."""
        saved: dict[str, Any] = {
            "parameters": {name: p.detach().clone() for name, p in self._params.items()}
        }
        for optimizer, states in self.states.items():
            algorithm = self._algorithms[optimizer]
            saved[optimizer] = {name: algorithm.saved(s) for name, s in states.items()}
        return saved

    def load(self, state: Mapping[str, Any]) -> None:
        """Take the parameters and each optimizer's states from a ``state_dict``'s
        (:meth:`saved`), refusing parameters that are not these (ConfigurationError)."""
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
        self.states = {
            optimizer: {name: algorithm.loaded(s) for name, s in state[optimizer].items()}
            for optimizer, algorithm in self._algorithms.items()
        }
