"""The local reference of every revision but the newest against PyTorch's own optimizers: what
runtime/tests/unit/test_reference.py checks of the newest revision's, one runtime behind every
package."""

from __future__ import annotations

import pytest
import torch

from support.facts import OLDER
from support.optimizers import (
    adam_agrees_with_clip_grad_norm_and_torch_adamw,
    an_update_that_leaves_parameters_non_finite_changes_nothing,
    muon_equals_torch_muon_with_adamw_for_the_rest,
)

torch.set_num_threads(1)  # tiny tensors: one thread is as fast and steadier on a busy machine


@pytest.mark.parametrize("revision", OLDER)
@pytest.mark.parametrize("clip", [0.2, 0.0, 100.0])
@pytest.mark.parametrize("variant", ["fused", "default"])
def test_adam_agrees_with_clip_grad_norm_and_torch_adamw(revision, clip, variant):
    adam_agrees_with_clip_grad_norm_and_torch_adamw(revision, clip, variant)


@pytest.mark.parametrize("revision", OLDER)
@pytest.mark.parametrize("scaling", ["original", "match_adam"])
def test_muon_equals_torch_muon_with_adamw_for_the_rest(revision, scaling):
    muon_equals_torch_muon_with_adamw_for_the_rest(revision, scaling)


@pytest.mark.parametrize("revision", OLDER)
@pytest.mark.parametrize("kind", ["adam", "muon"])
def test_an_update_that_leaves_parameters_non_finite_changes_nothing(revision, kind):
    an_update_that_leaves_parameters_non_finite_changes_nothing(revision, kind)
