"""Adam as a session runs it: AdamW (``_optim.adam_update``) with the clip folded into the fused
kernel, on every parameter of an Adam session and on those a Muon session's filter leaves.

With AMSGrad on (the ``amsgrad`` setting), Adam divides by the maximum of each parameter's
second moments since its first step with AMSGrad (``torch.optim.AdamW(amsgrad=True)`` when it is
on from the start); a step with it off leaves those maxima as they are.

Adam is element-wise: over sharded parameters it runs on the local shards, with no
communication.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import _optim
from ._algorithm import Algorithm, Update

__all__ = ["ALGORITHM"]


def _update(update: Update) -> None:
    settings = update.settings
    _optim.adam_update(
        update.params,
        update.grads,
        update.states,
        lr=settings["learning_rate"],
        beta1=settings["beta1"],
        beta2=settings["beta2"],
        eps=settings["eps"],
        weight_decay=settings["weight_decay"],
        clip_coef=update.clip_coef,
        amsgrad=bool(settings["amsgrad"]),
    )


def _saved(state: _optim.AdamParamState) -> dict[str, Any]:
    """One parameter's state as ``state_dict`` saves it (the AMSGrad maxima where made)."""
    saved: dict[str, Any] = {
        "exp_avg": state.exp_avg.clone(),
        "exp_avg_sq": state.exp_avg_sq.clone(),
        "step": state.step,
    }
    if state.max_exp_avg_sq is not None:
        saved["max_exp_avg_sq"] = state.max_exp_avg_sq.clone()
    return saved


def _loaded(saved: Mapping[str, Any]) -> _optim.AdamParamState:
    return _optim.AdamParamState(
        saved["exp_avg"].clone(),
        saved["exp_avg_sq"].clone(),
        int(saved["step"]),
        saved["max_exp_avg_sq"].clone() if "max_exp_avg_sq" in saved else None,
    )


ALGORITHM = Algorithm(
    fresh=_optim.adam_state,
    update=_update,
    saved=_saved,
    loaded=_loaded,
    tensors=("exp_avg", "exp_avg_sq", "max_exp_avg_sq"),
    counters={"step": "adam_steps"},
)
