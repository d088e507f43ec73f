"""What the reference needs of an optimizer's algorithm, and where it finds it: the module that
the optimizer's registry entry names (``Optimizer.algorithm``) holds an :class:`Algorithm` as
``ALGORITHM``."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from torch import Tensor

from ..optimizers import Optimizer
from ._sharded import Sharding

__all__ = ["Algorithm", "Update", "algorithm_of"]


@dataclass(frozen=True)
class Update:
    """One optimizer's part of a step: the parameters it handles that have a gradient, with
    their gradients and states in the same order."""

    params: list[Tensor]
    """The parts of the parameters this process updates (a sharded parameter's local shard)."""
    grads: list[Tensor]
    """Their gradients' parts, unclipped; the algorithm may overwrite them (the session clears
    the gradients after the step)."""
    states: list[Any]
    """Their optimizer states (made by :attr:`Algorithm.fresh` at a parameter's first step)."""
    settings: Mapping[str, float]
    """The optimizer's settings for the step, by name."""
    clip_coef: Tensor | None
    """The factor that clips the gradients (``_optim.clip_coefficient``), or ``None`` where the
    step leaves them as they are."""
    whole: list[Tensor]
    """The parameters themselves (DTensors over sharded parameters)."""
    sharding: Sharding | None
    """How the parameters are sharded across processes; ``None``: whole."""
    options: Mapping[str, Any]
    """The session's choices (``Choice.keyword`` to the value it was made with)."""


@dataclass(frozen=True)
class Algorithm:
    """An optimizer's algorithm, as a session runs it."""

    fresh: Callable[[Tensor], Any]
    """A parameter's state before its first step (of the parameter's part on this process)."""
    update: Callable[[Update], None]
    """Apply one step to the parameters, in place."""
    saved: Callable[[Any], dict[str, Any]]
    """A parameter's state as ``state_dict`` holds it: tensors (copies) and numbers."""
    loaded: Callable[[Mapping[str, Any]], Any]
    """A parameter's state from what :attr:`saved` gave (copying its tensors)."""
    tensors: tuple[str, ...]
    """The keys of :attr:`saved` that may hold a tensor (what a checkpoint stores as tensors)."""
    counters: Mapping[str, str] = field(default_factory=dict)
    """The keys of :attr:`saved` that hold a number, each with the key under which a checkpoint's
    record keeps them."""
    chooses: Callable[[str, Tensor], bool] | None = None
    """For an optimizer with a filter: the parameters it handles where a session is given no
    filter (by name and tensor)."""
    check: Callable[[str, Tensor], None] | None = None
    """For an optimizer with a filter: refuse a parameter that a filter chose and the algorithm
    cannot handle (ConfigurationError)."""


def algorithm_of(optimizer: Optimizer) -> Algorithm:
    """The algorithm of ``optimizer``, from the module its registry entry names."""
    found = getattr(importlib.import_module(optimizer.algorithm), "ALGORITHM", None)
    if not isinstance(found, Algorithm):
        raise TypeError(f"{optimizer.algorithm} defines no ALGORITHM for {optimizer.name!r}")
    return found
