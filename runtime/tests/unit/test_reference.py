"""The local reference of every revision against PyTorch's own optimizers, and its contract."""

from __future__ import annotations

import copy
import threading

import pytest
import torch
from torch import Tensor, nn

from support import facts
from support.facts import NEWEST
from support.optimizers import (
    ADAM,
    ADAM_ULPS,
    MUON,
    adam_agrees_with_clip_grad_norm_and_torch_adamw,
    adam_body,
    an_update_that_leaves_parameters_non_finite_changes_nothing,
    backward,
    completed,
    failed,
    muon_body,
    muon_equals_torch_muon_with_adamw_for_the_rest,
    muon_handled,
    non_finite_code,
    same_gradients,
    same_state,
    torch_adamw,
    torch_muon,
    twin_models,
    ulp_of_magnitude,
)
from support.packages import REVISIONS, models, reference

torch.set_num_threads(1)  # tiny tensors: one thread is as fast and steadier on a busy machine


def field(revision: str, kind: str, setting: str) -> str:
    """The JSON path of the field that sets ``setting`` in a session of this kind."""
    found = facts.field_for(revision, kind, setting)
    assert found is not None
    return found


# -- numerics against PyTorch ----------------------------------------------------------------------


@pytest.mark.parametrize("clip", [0.2, 0.0, 100.0])
@pytest.mark.parametrize("variant", ["fused", "default"])
def test_adam_agrees_with_clip_grad_norm_and_torch_adamw(clip, variant):
    """The newest revision's; each other one's in e2e/test_reference_of_every_revision.py."""
    adam_agrees_with_clip_grad_norm_and_torch_adamw(NEWEST, clip, variant)


def test_adam_on_parameters_of_two_dtypes_equals_fused_adamw_bit_for_bit():
    """Parameters of two dtypes: each dtype's group takes the fused kernel, as
    ``AdamW(fused=True)`` groups them, and the results are bit-identical (unclipped)."""
    torch.manual_seed(0)
    ours = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3).double())
    theirs = copy.deepcopy(ours)
    session = reference("f4885bc38424").LocalSession(ours, "adam")
    adamw = torch_adamw(theirs.parameters(), fused=True)
    for step in range(5):
        generator = torch.Generator().manual_seed(step)
        inputs = torch.randn(4, 6, generator=generator)
        for model in (ours, theirs):
            model[2](model[1](model[0](inputs)).double()).square().sum().backward()
        completed(session.optim_step(adam_body("f4885bc38424", 0.0, **ADAM)))
        adamw.step()
        adamw.zero_grad(set_to_none=True)
        assert all(torch.equal(a, b) for a, b in zip(ours.parameters(), theirs.parameters()))


@pytest.mark.parametrize("clip", [0.2, 0.0])
def test_float64_parameters_are_clipped_to_float32_precision_and_stepped_bit_for_bit(clip):
    """docs/reference.md: the total norm and the clip coefficient are float32 whatever the
    gradients' dtype, so a clipped float64 parameter agrees with ``clip_grad_norm_`` + fused
    AdamW (which clip in float64) only to float32's precision, as float32 parameters do; an
    unclipped step is bit for bit."""
    torch.manual_seed(0)
    ours = nn.Sequential(nn.Linear(13, 51), nn.Tanh(), nn.Linear(51, 3)).double()
    theirs = copy.deepcopy(ours)
    session = reference(NEWEST).LocalSession(ours, "adam")
    adamw = torch_adamw(theirs.parameters(), fused=True)
    differs = False
    for step in range(5):
        inputs = torch.randn(4, 13, generator=torch.Generator().manual_seed(step)).double()
        for model in (ours, theirs):
            model(inputs).square().sum().backward()
        completed(session.optim_step(adam_body(NEWEST, clip, **ADAM)))
        if clip > 0:
            nn.utils.clip_grad_norm_(theirs.parameters(), clip)
        adamw.step()
        adamw.zero_grad(set_to_none=True)
        for a, b in zip(ours.parameters(), theirs.parameters()):
            assert a.dtype == torch.float64
            if clip == 0:
                assert torch.equal(a, b), f"step {step + 1}"
            else:
                error = (a - b).abs().max().item()
                assert error <= ADAM_ULPS * ulp_of_magnitude(b), f"step {step + 1}"
                differs |= error > 0
    assert differs == (clip > 0)  # float64's own precision is not what a clipped step has


@pytest.mark.parametrize("clip", [0.2, 0.0])
def test_adam_without_the_fused_kernel_equals_torch_adamw_foreach_bit_for_bit(clip, monkeypatch):
    """Where the fused kernel does not exist (another device or dtype), the reference scales the
    gradients as clip_grad_norm_ does and runs AdamW's multi-tensor path operation for
    operation."""
    module = reference("f4885bc38424")
    from together_rl_runtime.reference import _optim as optim

    assert optim.fused_adam_supported(list(twin_models()[0].parameters()))  # CPU float32
    monkeypatch.setattr(optim, "fused_adam_supported", lambda tensors: False)
    ours, theirs = twin_models()
    session = module.LocalSession(ours, "adam")
    adamw = torch_adamw(theirs.parameters(), foreach=True)
    for step in range(5):
        same_gradients(ours, theirs, step)
        completed(session.optim_step(adam_body("f4885bc38424", clip, **ADAM)))
        if clip > 0:
            nn.utils.clip_grad_norm_(theirs.parameters(), clip)
        adamw.step()
        adamw.zero_grad(set_to_none=True)
    assert all(torch.equal(a, b) for a, b in zip(ours.parameters(), theirs.parameters()))


@pytest.mark.parametrize("scaling", ["original", "match_adam"])
def test_muon_equals_torch_muon_with_adamw_for_the_rest(scaling):
    """The newest revision's; each other one's in e2e/test_reference_of_every_revision.py."""
    muon_equals_torch_muon_with_adamw_for_the_rest(NEWEST, scaling)


@pytest.mark.parametrize("scaling", ["original", "match_adam"])
@pytest.mark.parametrize("clip", [0.0, 100.0])
def test_a_muon_training_run_equals_torch_bit_for_bit(scaling, clip):
    """A training run in which each model computes its own gradients from its own parameters:
    without clipping, or with a clip value the gradients stay within (``clip_grad_norm_``
    multiplies them by exactly 1, and the reference leaves them as they are), every parameter
    equals torch's (``Muon``, and ``AdamW(fused=True)`` for the rest) bit for bit after every
    step.

    With an active clip the parameters Adam handles differ by a few ULPs (the test above), and
    a training run carries any such difference on: it changes the next gradients, which move
    bfloat16 roundings in Newton-Schulz, and so on. Two PyTorch runs that differ only in AdamW's
    kernel (fused against the default) drift apart the same way, to 5e-3 of the model's norm
    in 20 steps of this model; no per-step bound on a whole run would say anything about the
    reference."""
    revision = "f4885bc38424"
    ours, theirs = twin_models()
    session = reference(revision).LocalSession(ours, "muon", muon_scaling=scaling)
    muon = torch_muon([p for n, p in theirs.named_parameters() if muon_handled(n, p)], scaling)
    others = [p for n, p in theirs.named_parameters() if not muon_handled(n, p)]
    adamw = torch_adamw(others, fused=True)
    for step in range(20):
        backward(ours, step)
        backward(theirs, step)
        completed(session.optim_step(muon_body(revision, clip, ADAM, **MUON)))
        if clip > 0:
            norm = nn.utils.clip_grad_norm_(theirs.parameters(), clip)
            assert norm < clip  # the clip leaves every gradient as it is
        muon.step()
        adamw.step()
        theirs.zero_grad(set_to_none=True)
        for (name, mine), theirs_param in zip(ours.named_parameters(), theirs.parameters()):
            assert torch.equal(mine, theirs_param), f"step {step + 1}, {name}"


@pytest.mark.parametrize("variant", ["fused", "default", "foreach"])
def test_amsgrad_agrees_with_torch_adamw_amsgrad(variant, monkeypatch):
    """A session whose default turns AMSGrad on (runtime 1.1) against ``clip_grad_norm_`` +
    ``AdamW(amsgrad=True)``: as close as plain Adam is to AdamW, and bit for bit with the
    foreach path where the fused kernel does not exist."""
    from together_rl_runtime.reference import _optim as optim

    if variant == "foreach":
        monkeypatch.setattr(optim, "fused_adam_supported", lambda tensors: False)
    ours, theirs = twin_models()
    session = reference(facts.NEWEST).LocalSession(ours, "adam", amsgrad=True, **ADAM)
    options = {"fused": True} if variant == "fused" else {"foreach": variant == "foreach"}
    adamw = torch_adamw(theirs.parameters(), amsgrad=True, **options)
    for step in range(20):
        same_gradients(ours, theirs, step)
        if step % 3 == 1:  # smaller gradients: the maxima, not the moments, decide
            for p, q in zip(ours.parameters(), theirs.parameters()):
                p.grad.mul_(0.1)
                q.grad.mul_(0.1)
        completed(session.optim_step(facts.required_body(facts.NEWEST)))
        nn.utils.clip_grad_norm_(theirs.parameters(), 1.0)
        adamw.step()
        adamw.zero_grad(set_to_none=True)
        for (name, mine), theirs_param in zip(ours.named_parameters(), theirs.parameters()):
            if variant == "foreach":
                assert torch.equal(mine, theirs_param), f"step {step + 1}, {name}"
                continue
            error = (mine - theirs_param).abs().max().item()
            assert error <= ADAM_ULPS * ulp_of_magnitude(theirs_param), f"step {step + 1}, {name}"
    assert session.last_settings["adam"]["amsgrad"] is True


def test_amsgrad_maxima_start_at_their_first_step_and_are_saved():
    model, _ = twin_models()
    plain = reference(facts.NEWEST).LocalSession(model, "adam")
    backward(model, 0)
    completed(plain.optim_step(facts.required_body(facts.NEWEST)))
    assert all("max_exp_avg_sq" not in s for s in plain.state_dict()["adam"].values())
    turned_on = reference(facts.NEWEST).LocalSession(model, "adam", amsgrad=True)
    turned_on.load_state_dict(plain.state_dict())
    backward(model, 1)
    completed(turned_on.optim_step(facts.required_body(facts.NEWEST)))
    saved = turned_on.state_dict()["adam"]
    for state in saved.values():  # the running maximum starts from this step's moments
        assert torch.equal(state["max_exp_avg_sq"], state["exp_avg_sq"])
    again = reference(facts.NEWEST).LocalSession(model, "adam", amsgrad=True)
    again.load_state_dict(turned_on.state_dict())
    assert all(
        torch.equal(a["max_exp_avg_sq"], b["max_exp_avg_sq"])
        for a, b in zip(saved.values(), again.state_dict()["adam"].values())
    )
    with pytest.raises(reference(facts.NEWEST).ConfigurationError, match="True or False"):
        reference(facts.NEWEST).LocalSession(model, "adam", amsgrad=1)


@pytest.mark.parametrize(
    "shape", [(16, 16), (48, 16), (16, 48), (8, 5), (64, 64), (200, 40), (40, 200), (1, 30)]
)
def test_newton_schulz_rounds_as_torchs_bit_for_bit(shape):
    """Each matrix goes through the same bfloat16 operations as torch.optim.Muon's
    ``_zeropower_via_newtonschulz``: small and large products (which PyTorch sends to different
    matmul kernels by their size), wide, tall and square matrices, and scales far from 1."""
    from torch.optim._muon import _zeropower_via_newtonschulz

    from together_rl_runtime.reference import _optim as optim

    generator = torch.Generator().manual_seed(shape[0] * 1000 + shape[1])
    for scale in (1e-4, 1.0, 30.0):
        batch = torch.randn(3, *shape, generator=generator) * scale
        ours = optim.zeropower_via_newton_schulz(batch, 5)
        for matrix, mine in zip(batch, ours):
            theirs = _zeropower_via_newtonschulz(matrix, optim.NS_COEFFICIENTS, 5, optim.NS_EPS)
            assert torch.equal(mine, theirs.float()), f"scale {scale}"


def test_optimizer_state_is_no_larger_than_pytorchs():
    def state_bytes(states):
        return sum(
            t.numel() * t.element_size()
            for s in states
            for t in s.values()
            if isinstance(t, Tensor)
        )

    for kind in ("adam", "muon"):
        ours, theirs = twin_models()
        session = reference("f4885bc38424").LocalSession(ours, kind)
        backward(ours, 0)
        completed(session.optim_step({}))
        saved = session.state_dict()
        mine = state_bytes(list(saved["adam"].values()) + list(saved["muon"].values()))
        backward(theirs, 0)
        if kind == "adam":
            optimizers = [torch.optim.AdamW(theirs.parameters())]
        else:
            named = list(theirs.named_parameters())
            optimizers = [
                torch.optim.Muon([p for n, p in named if muon_handled(n, p)]),
                torch.optim.AdamW([p for n, p in named if not muon_handled(n, p)]),
            ]
        for optimizer in optimizers:
            optimizer.step()
        torch_bytes = state_bytes([s for o in optimizers for s in o.state.values()])
        assert 0 < mine <= torch_bytes


# -- the contract of a step ------------------------------------------------------------------------


INVALID = [
    ("learning_rate", -1.0, "must be >= 0"),
    ("beta1", 1.0, "must be in [0, 1)"),
    ("beta1", -0.1, "must be in [0, 1)"),
    ("beta2", 1.5, "must be in [0, 1)"),
    ("eps", 0.0, "must be > 0"),
    ("weight_decay", -0.5, "must be >= 0"),
]


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize(("name", "value", "problem"), INVALID)
def test_invalid_adam_settings_fail_with_invalid_input(revision, name, value, problem):
    model, _ = twin_models()
    session = reference(revision).LocalSession(model, "adam")
    backward(model, 0)
    before = [p.detach().clone() for p in model.parameters()]
    operation = session.optim_step(adam_body(revision, None, **{name: value}))
    assert failed(operation)
    assert operation.error.code == "TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT"
    path = field(revision, "adam", f"adam.{name}")
    problem = facts.declared_problem(revision, path, value) or problem
    assert operation.error.message == f"{path}: {problem}, got {value!r}"
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters())) and session.step == 0
    assert all(p.grad is not None for p in model.parameters())  # a failed step consumes nothing


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("momentum", 1.0, "must be in [0, 1)"),
        ("momentum", -0.2, "must be in [0, 1)"),
        ("newton_schulz_steps", 0, "must be between 1 and 100"),
        ("newton_schulz_steps", 101, "must be between 1 and 100"),
        ("weight_decay", -1.0, "must be >= 0"),
        ("learning_rate", -0.1, "must be >= 0"),
    ],
)
def test_invalid_muon_settings_fail_with_invalid_input(revision, name, value, problem):
    model, _ = twin_models()
    session = reference(revision).LocalSession(model, "muon")
    operation = session.optim_step(muon_body(revision, None, {}, **{name: value}))
    assert operation.error.code == "TRAINING_OPERATION_ERROR_CODE_INVALID_INPUT"
    path = field(revision, "muon", f"muon.{name}")
    problem = facts.declared_problem(revision, path, value) or problem
    assert operation.error.message == f"{path}: {problem}, got {value!r}"


@pytest.mark.parametrize("revision", REVISIONS)
def test_clip_values_and_wrong_types_fail_with_invalid_input(revision):
    model, _ = twin_models()
    session = reference(revision).LocalSession(model, "adam")
    operation = session.optim_step(adam_body(revision, -1.0))
    assert operation.error.message == f"{field(revision, 'adam', 'clip')}: must be >= 0, got -1.0"
    nan = session.optim_step(adam_body(revision, None, beta1=float("nan")))
    beta1 = field(revision, "adam", "adam.beta1")
    assert nan.error.message == f"{beta1}: expected a finite number, got nan"
    wrong = session.optim_step(adam_body(revision, None, eps="small"))
    eps = field(revision, "adam", "adam.eps")
    assert wrong.error.message == f"{eps}: expected a number, got 'small'"


@pytest.mark.parametrize("revision", REVISIONS)
def test_overrides_of_the_other_optimizer_are_invalid(revision):
    model, _ = twin_models()
    adam_session = reference(revision).LocalSession(model, "adam")
    group, problem = facts.refused_group(revision, "adam")  # Muon's settings
    body = facts.body(revision, "muon", {"muon.momentum": 0.9})
    assert field(revision, "muon", "muon.momentum").startswith(group + ".")
    operation = adam_session.optim_step(body)
    assert operation.error.message == f"{group}: {problem}, got {facts.get(body, group)!r}"
    muon_session = reference(revision).LocalSession(model, "muon")
    top = facts.field_for(revision, "adam", "adam.beta1")
    body = facts.body(revision, "adam", {"adam.beta1": 0.9})
    operation = muon_session.optim_step(body)
    refused = facts.refused_group(revision, "muon")
    if refused is None:  # the revision's Adam group also tunes a Muon session's other parameters
        completed(operation)
    else:
        group, problem = refused
        assert top.startswith(group + ".")
        assert operation.error.message == f"{group}: {problem}, got {facts.get(body, group)!r}"


def test_different_muon_and_nested_adam_clip_values_are_invalid():
    model, _ = twin_models()
    session = reference("f4885bc38424").LocalSession(model, "muon")
    operation = session.optim_step(
        {"muon_params": {"grad_clip_norm": 0.5, "adam": {"grad_clip_norm": 1.0}}}
    )
    assert operation.error.message == (
        "muon_params.adam.grad_clip_norm: differs from muon_params.grad_clip_norm (0.5); set one clip value, got 1.0"
    )
    backward(model, 0)
    completed(
        session.optim_step(
            {"muon_params": {"grad_clip_norm": 0.5, "adam": {"grad_clip_norm": 0.5}}}
        )
    )


@pytest.mark.parametrize("revision", REVISIONS)
@pytest.mark.parametrize("kind", ["adam", "muon"])
def test_non_finite_gradients_change_nothing(revision, kind):
    model, _ = twin_models()
    session = reference(revision).LocalSession(model, kind)
    backward(model, 0)
    completed(session.optim_step(facts.required_body(revision)))
    backward(model, 1)
    model.blocks[0].q.weight.grad[0, 0] = float("inf") if kind == "adam" else float("nan")
    before_params = [p.detach().clone() for p in model.parameters()]
    before_grads = [p.grad.clone() for p in model.parameters()]
    before_state = session.state_dict()
    operation = session.optim_step(facts.required_body(revision))
    assert failed(operation)
    assert operation.error.code == non_finite_code(revision)
    assert operation.error.message.startswith("the total gradient norm is ")
    assert all(torch.equal(a, b) for a, b in zip(before_params, model.parameters()))
    assert all(_same(a, p.grad) for a, p in zip(before_grads, model.parameters()))
    same_state(before_state, session.state_dict(), steps=1)


def test_finite_gradients_whose_norm_overflows_are_refused_as_such():
    """Gradients of 1e30 are finite, but the float32 norm clipping needs is not: the step is
    refused, and the message says that the gradients themselves were finite."""
    model, _ = twin_models()
    session = reference(facts.NEWEST).LocalSession(model, "adam")
    backward(model, 0)
    for p in model.parameters():
        p.grad.fill_(1e30)
    operation = session.optim_step(facts.required_body(facts.NEWEST))
    assert failed(operation) and operation.error.code == non_finite_code(facts.NEWEST)
    assert operation.error.message == (
        "the gradients are finite, but their total norm is inf: it overflows the float32 it is "
        "computed in; nothing was changed"
    )
    assert session.step == 0


@pytest.mark.parametrize("kind", ["adam", "muon"])
def test_an_update_that_leaves_parameters_non_finite_changes_nothing(kind):
    """The newest revision's; each other one's in e2e/test_reference_of_every_revision.py."""
    an_update_that_leaves_parameters_non_finite_changes_nothing(NEWEST, kind)


def test_an_update_left_non_finite_without_rollback_stops_the_session_until_a_state_is_loaded():
    """Without ``rollback`` there is no copy to put back: the step is refused with the same code,
    says so, and the session refuses further steps until a saved state is loaded."""
    revision = facts.NEWEST
    model, _ = twin_models()
    session = reference(revision).LocalSession(model, "adam")
    saved = session.state_dict()
    backward(model, 0)
    operation = session.optim_step(facts.body(revision, "adam", {"adam.learning_rate": 1e300}))
    assert failed(operation) and operation.error.code == non_finite_code(revision)
    assert "load_state_dict()" in operation.error.message
    backward(model, 1)
    assert failed(session.optim_step(facts.required_body(revision)))
    session.load_state_dict(saved)
    assert all(torch.isfinite(p).all() for p in model.parameters())
    model.zero_grad(set_to_none=True)  # those of the non-finite parameters
    backward(model, 2)
    completed(session.optim_step(facts.required_body(revision)))


def _same(a: Tensor, b: Tensor) -> bool:
    """Bit-identical, NaN included."""
    return torch.equal(a.view(torch.int32), b.view(torch.int32))


def test_non_finite_loss_code_exists_only_from_ebd4756a41e4():
    assert (
        "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS"
        not in models("9ccc57e5e4b9").RLTrainingOperationErrorCode.__members__
    )
    assert (
        "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS"
        in models("ebd4756a41e4").RLTrainingOperationErrorCode.__members__
    )


def test_overrides_apply_to_one_step_and_parameters_without_gradients_sit_out():
    ours, theirs = twin_models()
    session = reference("f4885bc38424").LocalSession(ours, "adam")
    torch_adamw = torch.optim.AdamW(
        theirs.parameters(), lr=1e-4, betas=(0.9, 0.95), eps=1e-8, weight_decay=0.0, fused=True
    )
    for step, lr in enumerate([1e-2, None, None]):
        same_gradients(ours, theirs, step)
        if step == 0:  # takes no part in the first step: its step count lags by one
            ours.lm_head.weight.grad = None
            theirs.lm_head.weight.grad = None
        completed(session.optim_step({"adam_params": {"learning_rate": lr}} if lr else {}))
        for group in torch_adamw.param_groups:
            group["lr"] = lr or 1e-4
        nn.utils.clip_grad_norm_(theirs.parameters(), 1.0)
        torch_adamw.step()
        theirs.zero_grad(set_to_none=True)
    for mine, reference_param in zip(ours.parameters(), theirs.parameters()):
        error = (mine - reference_param).abs().max().item()
        assert error <= ADAM_ULPS * ulp_of_magnitude(reference_param)
    saved = session.state_dict()["adam"]
    assert saved["lm_head.weight"]["step"] == 2 and saved["ln_f.weight"]["step"] == 3


def test_concurrent_submissions_are_each_applied_once_in_order():
    model, _ = twin_models()
    session = reference("f4885bc38424").LocalSession(model, "adam")
    rates = [1e-3 * (i + 1) for i in range(8)]
    results = {}
    start = threading.Barrier(len(rates))

    def submit(rate):
        start.wait()
        results[rate] = session.optim_step(
            {"adam_params": {"learning_rate": rate, "grad_clip_norm": 0}}
        )

    # No gradients: each step still counts, so the order is visible in the step numbers.
    threads = [threading.Thread(target=submit, args=(rate,)) for rate in rates]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    steps = sorted(int(op.output.step) for op in results.values())
    assert steps == list(range(1, len(rates) + 1)) and session.step == len(rates)
    ids = {op.id for op in results.values()}
    assert len(ids) == len(rates)
    assert all(session.get_operation(op.id) == op for op in results.values())


def test_concurrent_steps_with_gradients_equal_the_same_steps_in_sequence():
    model, replay = twin_models()
    session = reference("f4885bc38424").LocalSession(model, "adam")
    lock = threading.Lock()
    applied = []

    def submit(index):
        with lock:  # gradients are put in place, then the step is submitted, one thread at a time
            backward(model, index)
            operation = session.optim_step({"adam_params": {"learning_rate": 1e-3 * (index + 1)}})
            applied.append((int(operation.output.step), index))

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sequential = reference("f4885bc38424").LocalSession(replay, "adam")
    for _, index in sorted(applied):
        backward(replay, index)
        completed(sequential.optim_step({"adam_params": {"learning_rate": 1e-3 * (index + 1)}}))
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), replay.parameters()))


@pytest.mark.parametrize("kind", ["adam", "muon"])
def test_a_saved_and_restored_session_continues_bit_for_bit(kind):
    original, restored_model = twin_models()
    module = reference("f4885bc38424")
    session = module.LocalSession(original, kind)
    for step in range(4):
        backward(original, step)
        before_saving = session.optim_step({})
        completed(before_saving)
    saved = session.state_dict()
    restored = module.LocalSession(restored_model, kind)
    restored.load_state_dict(saved)
    for step in range(4, 8):
        backward(original, step)
        backward(restored_model, step)
        a, b = session.optim_step({}), restored.optim_step({})
        assert (a.status, a.output) == (b.status, b.output)
    assert restored.get_operation(before_saving.id) == before_saving  # operations are saved too
    assert all(
        torch.equal(x, y) for x, y in zip(original.parameters(), restored_model.parameters())
    )
    with pytest.raises(module.ConfigurationError, match="is of a"):
        module.LocalSession(twin_models()[0], "muon" if kind == "adam" else "adam").load_state_dict(
            saved
        )


def test_session_defaults_are_checked_and_used():
    module = reference("f4885bc38424")
    model, _ = twin_models()
    with pytest.raises(
        module.ConfigurationError, match="unknown session default 'momentum' for an Adam session"
    ):
        module.LocalSession(model, "adam", momentum=0.9)
    with pytest.raises(module.ConfigurationError, match="session default beta1 must be in"):
        module.LocalSession(model, "adam", beta1=1.0)
    with pytest.raises(module.ConfigurationError, match="optimizer must be 'adam' or 'muon'"):
        module.LocalSession(model, "sgd")
    session = module.LocalSession(
        model, "muon", learning_rate=0.05, adam_learning_rate=1e-3, grad_clip_norm=0
    )
    assert session.optimizer == "muon"
    with pytest.raises(module.ConfigurationError, match="2-D parameters only"):
        module.LocalSession(model, "muon", muon_filter=lambda name, p: True)


def test_get_operation_returns_the_recorded_state():
    module = reference("f4885bc38424")
    model, _ = twin_models()
    session = module.LocalSession(model, "adam")
    operation = session.optim_step({})
    assert session.get_operation(operation.id) == operation
    with pytest.raises(module.UnknownOperationError, match="no operation 'nope'"):
        session.get_operation("nope")


def test_finite_flags_are_those_of_an_entry_by_entry_check():
    """The flags of the step's finiteness check are whether each tensor's entries are all
    finite: for tensors summed on their own and together, of every floating dtype, with an
    infinite or NaN entry anywhere, with finite entries whose sum overflows, and empty."""
    from together_rl_runtime.reference import _optim

    generator = torch.Generator().manual_seed(0)
    sizes = [0, 1, 7, 1000, _optim.FINITE_PIECE - 1, _optim.FINITE_PIECE, _optim.FINITE_PIECE + 5]
    for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16):
        tensors = [torch.randn(n, generator=generator).to(dtype) for n in sizes for _ in range(3)]
        for i, value in [(4, float("nan")), (10, float("inf")), (16, -float("inf"))]:
            tensors[i][len(tensors[i]) // 2] = value
        for i in (13, 19):  # finite, but no sum of them fits the dtype
            tensors[i].fill_(torch.finfo(dtype).max)
        expected = [bool(torch.isfinite(t).all()) for t in tensors]
        assert False in expected and expected.count(False) == 3
        assert _optim.finite_flags(tensors).tolist() == expected
        for t, finite in zip(tensors, expected):
            assert _optim.finite_flags([t]).tolist() == [finite]


def test_an_update_that_leaves_one_entry_of_a_large_parameter_non_finite_changes_nothing():
    """One entry pushed past float32's range, in a parameter the finiteness check sums on its
    own, among small ones summed together: the step is refused, names that parameter, and
    changes nothing (with ``rollback``)."""
    from together_rl_runtime.reference import _optim

    revision = facts.NEWEST
    big = nn.Parameter(torch.zeros(_optim.FINITE_PIECE + 5))
    small = [nn.Parameter(torch.full((3, 4), 0.5)), nn.Parameter(torch.ones(9))]
    named = [("small.0", small[0]), ("big", big), ("small.1", small[1])]
    with torch.no_grad():
        big[1234] = torch.finfo(torch.float32).max
    session = reference(revision).LocalSession(named, "adam", rollback=True)
    for _, p in named:
        p.grad = torch.zeros_like(p)
    big.grad[1234] = -1.0  # Adam's first step moves it by about the learning rate, up
    before = [(p.detach().clone(), p.grad.clone()) for _, p in named]
    state = session.state_dict()
    operation = session.optim_step(
        facts.body(revision, "adam", {"adam.learning_rate": 1e37, "adam.weight_decay": 0.0})
    )
    assert failed(operation) and operation.error.code == non_finite_code(revision)
    assert "'big'" in operation.error.message and "nothing was changed" in operation.error.message
    for (value, gradient), (_, p) in zip(before, named):
        assert _same(value, p.detach()) and _same(gradient, p.grad)
    same_state(state, session.state_dict(), steps=0)
