"""Muon as a session runs it: Nesterov Muon (``_optim.muon_step``) on the 2-D parameters the
session's filter chooses, the gradients clipped before Newton-Schulz.

By default Muon handles every 2-D parameter whose name contains neither ``embed`` nor
``lm_head``; ``muon_filter(name, param)`` chooses otherwise. ``muon_scaling`` scales the learning
rate of an ``A x B`` matrix: ``"original"`` (``lr * sqrt(max(1, A/B))``) or ``"match_adam"``
(``lr * 0.2 * sqrt(max(A, B))``).

Muon needs the whole matrix: over sharded parameters the Nesterov update is formed on the shards
and rounded to bfloat16 there (the first thing Newton-Schulz does, so rounding before gathering
changes nothing), and each matrix is orthogonalised whole (``Sharding.exchange``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import Tensor

from .._exceptions import ConfigurationError
from . import _optim
from ._algorithm import Algorithm, Update

__all__ = ["ALGORITHM"]


def _update(update: Update) -> None:
    settings, grads = update.settings, update.grads
    if update.clip_coef is not None:
        torch._foreach_mul_(grads, update.clip_coef.to(grads[0].device))
    _optim.muon_step(
        update.params,
        grads,
        [s.momentum_buffer for s in update.states],
        lr=settings["learning_rate"],
        momentum=settings["momentum"],
        weight_decay=settings["weight_decay"],
        ns_steps=int(settings["newton_schulz_steps"]),
        scaling=update.options["muon_scaling"],
        exchange=None if update.sharding is None else update.sharding.exchange(update.whole),
    )


def _saved(state: _optim.MuonParamState) -> dict[str, Any]:
    return {"momentum_buffer": state.momentum_buffer.clone()}


def _loaded(saved: Mapping[str, Any]) -> _optim.MuonParamState:
    return _optim.MuonParamState(saved["momentum_buffer"].clone())


def _chooses(name: str, param: Tensor) -> bool:
    """Muon handles every 2-D parameter whose name contains neither ``embed`` nor ``lm_head``."""
    return param.ndim == 2 and "embed" not in name and "lm_head" not in name


def _check(name: str, param: Tensor) -> None:
    if param.ndim != 2:
        raise ConfigurationError(f"Muon handles 2-D parameters only; the filter chose {name!r}")


ALGORITHM = Algorithm(
    fresh=_optim.muon_state,
    update=_update,
    saved=_saved,
    loaded=_loaded,
    tensors=("momentum_buffer",),
    chooses=_chooses,
    check=_check,
)
