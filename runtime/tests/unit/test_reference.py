"""The local reference of every revision against PyTorch's own optimizers, and its contract."""

from __future__ import annotations

import copy
import math
import threading

import facts
import pytest
import torch
from packages import REVISIONS, models, reference
from torch import Tensor, nn

from generator.reading import ir

torch.set_num_threads(1)  # tiny tensors: one thread is as fast and steadier on a busy machine

VOCAB, DIM, HIDDEN, SEQ, BATCH = 37, 16, 48, 8, 4
ADAM = {"learning_rate": 3e-3, "beta1": 0.85, "beta2": 0.98, "eps": 1e-7, "weight_decay": 0.05}
MUON = {"learning_rate": 0.03, "momentum": 0.9, "newton_schulz_steps": 5, "weight_decay": 0.02}


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
        self.q, self.k, self.v, self.o = (nn.Linear(DIM, DIM) for _ in range(4))
        self.up, self.down = nn.Linear(DIM, HIDDEN), nn.Linear(HIDDEN, DIM)

    def forward(self, x: Tensor) -> Tensor:
        h = self.ln1(x)
        attention = torch.softmax(self.q(h) @ self.k(h).mT / math.sqrt(DIM), dim=-1)
        x = x + self.o(attention @ self.v(h))
        return x + self.down(torch.relu(self.up(self.ln2(x))))


class TinyLM(nn.Module):
    """A transformer-like model: embedding, two blocks, final norm, output head."""

    def __init__(self) -> None:
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, DIM)
        self.blocks = nn.ModuleList([Block(), Block()])
        self.ln_f = nn.LayerNorm(DIM)
        self.lm_head = nn.Linear(DIM, VOCAB, bias=False)

    def forward(self, tokens: Tensor) -> Tensor:
        x = self.embed_tokens(tokens)
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def twin_models(seed: int = 0) -> tuple[TinyLM, TinyLM]:
    torch.manual_seed(seed)
    ours = TinyLM()
    theirs = TinyLM()
    theirs.load_state_dict(ours.state_dict())
    return ours, theirs


def backward(model: nn.Module, step: int, scale: float = 1.0) -> None:
    generator = torch.Generator().manual_seed(1000 + step)
    tokens = torch.randint(0, VOCAB, (BATCH, SEQ), generator=generator)
    targets = torch.randint(0, VOCAB, (BATCH, SEQ), generator=generator)
    loss = (
        nn.functional.cross_entropy(model(tokens).reshape(-1, VOCAB), targets.reshape(-1)) * scale
    )
    loss.backward()


def adam_body(revision: str, clip: float | None, **settings: object) -> dict:
    """An optim-step body with Adam overrides (and a clip value), in the revision's own fields."""
    values = {f"adam.{name}": value for name, value in settings.items()}
    if clip is not None:
        values["clip"] = clip
    return facts.body(revision, "adam", values)


def muon_body(revision: str, clip: float | None, adam: dict, **settings: object) -> dict:
    """An optim-step body with Muon overrides and Adam ones for the other parameters."""
    values = {f"muon.{name}": value for name, value in settings.items()}
    values |= {f"adam.{name}": value for name, value in adam.items()}
    if clip is not None:
        values["clip"] = clip
    return facts.body(revision, "muon", values)


def field(revision: str, kind: str, setting: str) -> str:
    """The JSON path of the field that sets ``setting`` in a session of this kind."""
    found = facts.field_for(revision, kind, setting)
    assert found is not None
    return found


def muon_handled(name: str, param: Tensor) -> bool:
    """The reference's default split: 2-D parameters but embeddings and the output head."""
    return param.ndim == 2 and "embed" not in name and "lm_head" not in name


def torch_adamw(params, **options: bool) -> torch.optim.AdamW:
    """PyTorch's AdamW with the ADAM settings."""
    return torch.optim.AdamW(
        params,
        lr=ADAM["learning_rate"],
        betas=(ADAM["beta1"], ADAM["beta2"]),
        eps=ADAM["eps"],
        weight_decay=ADAM["weight_decay"],
        **options,
    )


def completed(operation) -> None:
    assert operation.status in facts.statuses(facts.NEWEST, "succeeded"), operation.error


def failed(operation) -> bool:
    return operation.status in facts.statuses(facts.NEWEST, "failed")


# -- numerics against PyTorch ----------------------------------------------------------------------


def same_gradients(ours: nn.Module, theirs: nn.Module, step: int) -> None:
    """One backward pass on ``theirs``; ``ours`` gets copies of its gradients, so that a step's
    differences are the optimizers' own, not amplified through the model by earlier ones."""
    backward(theirs, step)
    for mine, reference_param in zip(ours.parameters(), theirs.parameters()):
        mine.grad = reference_param.grad.clone()


def ulp_of_magnitude(t: Tensor) -> float:
    """The float32 spacing at the tensor's largest magnitude."""
    return 2.0 ** (math.floor(math.log2(t.abs().max().item())) - 23)


# Measured over these 20 steps with the same gradients on both sides: at most 3 ULPs of the
# parameter's magnitude per element, and 1.7e-7 of the parameter's norm (the fused kernel
# rounds `sqrt(v) / sqrt(1 - beta2^t) + eps` in another order than AdamW's other paths, and the
# clip divides by 1/clip_coef instead of multiplying by clip_coef); elements near zero can differ
# by far more than 1e-6 of their own size (5.9e-4 measured), so no per-element relative bound.
ADAM_ULPS = 4
ADAM_NORM_RELATIVE = 1e-6


@pytest.mark.parametrize("revision", facts.EACH_REVISION)
@pytest.mark.parametrize("clip", [0.2, 0.0, 100.0])
@pytest.mark.parametrize("variant", ["fused", "default"])
def test_adam_agrees_with_clip_grad_norm_and_torch_adamw(revision, clip, variant):
    """Against ``clip_grad_norm_`` + ``AdamW(fused=True)``, whose kernel the reference runs, and
    against the default ``AdamW``: a few ULPs per element, 1e-6 of each parameter's norm; bit
    for bit against the fused kernel where no gradient is scaled (clipping off, or a clip value
    the gradients stay within: ``clip_grad_norm_`` multiplies them by exactly 1)."""
    ours, theirs = twin_models()
    session = reference(revision).LocalSession(ours, "adam")
    options = {"fused": True} if variant == "fused" else {}
    adamw = torch_adamw(theirs.parameters(), **options)
    for step in range(20):
        same_gradients(ours, theirs, step)
        completed(session.optim_step(adam_body(revision, clip, **ADAM)))
        if clip > 0:
            norm = nn.utils.clip_grad_norm_(theirs.parameters(), clip)
            assert (norm < clip) == (clip == 100.0)  # 100 never clips, 0.2 always does
        adamw.step()
        adamw.zero_grad(set_to_none=True)
        for (name, mine), theirs_param in zip(ours.named_parameters(), theirs.parameters()):
            if variant == "fused" and clip in (0.0, 100.0):  # the same kernel on the same inputs
                assert torch.equal(mine, theirs_param), f"step {step + 1}, {name}"
                continue
            error = (mine - theirs_param).abs().max().item()
            assert error <= ADAM_ULPS * ulp_of_magnitude(theirs_param), f"step {step + 1}, {name}"
            relative = ((mine - theirs_param).norm() / theirs_param.norm()).item()
            assert relative <= ADAM_NORM_RELATIVE, f"step {step + 1}, {name}: {relative:.2e}"
    assert session.step == 20 and all(p.grad is None for p in ours.parameters())


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


def torch_muon(matrices: list[Tensor], scaling: str) -> torch.optim.Muon:
    """PyTorch's Muon with the MUON settings and the reference's scaling."""
    return torch.optim.Muon(
        matrices,
        lr=MUON["learning_rate"],
        momentum=MUON["momentum"],
        nesterov=True,
        weight_decay=MUON["weight_decay"],
        ns_steps=MUON["newton_schulz_steps"],
        adjust_lr_fn="original" if scaling == "original" else "match_rms_adamw",
    )


# The parameters that Adam handles in a Muon session are held to the Adam test's bounds
# (ADAM_ULPS, ADAM_NORM_RELATIVE) after every step. Measured over these 20 steps, all revisions
# and scalings: at most 2 ULPs of the parameter's magnitude per element at any step, and of the
# parameter's norm 4.3e-8 after the first step, 1.2e-7 at most (from step 14 on).


@pytest.mark.parametrize("revision", facts.EACH_REVISION)
@pytest.mark.parametrize("scaling", ["original", "match_adam"])
def test_muon_equals_torch_muon_with_adamw_for_the_rest(revision, scaling):
    """Step by step on the same gradients, clipped: every matrix Muon handles equals
    ``torch.optim.Muon``'s bit for bit after every step (the same bfloat16 Newton-Schulz
    operations, one matrix at a time); the parameters Adam handles agree with torch's default
    ``AdamW`` as in the Adam test (a few ULPs: the clip is folded into the fused kernel, which
    also rounds the denominator in another order than the default path)."""
    ours, theirs = twin_models()
    session = reference(revision).LocalSession(ours, "muon", muon_scaling=scaling)
    muon = torch_muon([p for n, p in theirs.named_parameters() if muon_handled(n, p)], scaling)
    adamw = torch_adamw([p for n, p in theirs.named_parameters() if not muon_handled(n, p)])
    for step in range(20):
        same_gradients(ours, theirs, step)
        completed(session.optim_step(muon_body(revision, 0.5, ADAM, **MUON)))
        nn.utils.clip_grad_norm_(theirs.parameters(), 0.5)
        muon.step()
        adamw.step()
        theirs.zero_grad(set_to_none=True)
        for (name, mine), theirs_param in zip(ours.named_parameters(), theirs.parameters()):
            if muon_handled(name, mine):
                assert torch.equal(mine, theirs_param), f"step {step + 1}, {name}"
                continue
            error = (mine - theirs_param).abs().max().item()
            assert error <= ADAM_ULPS * ulp_of_magnitude(theirs_param), f"step {step + 1}, {name}"
            relative = ((mine - theirs_param).norm() / theirs_param.norm()).item()
            assert relative <= ADAM_NORM_RELATIVE, f"step {step + 1}, {name}: {relative:.2e}"


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


def non_finite_code(revision: str) -> str:
    """The error code of a step refused as non-finite: NON_FINITE_LOSS where the revision has
    it, else INTERNAL_ERROR."""
    codes = {
        str(value)
        for schema in facts.document(revision).schemas.values()
        if isinstance(schema, ir.Enum)
        for value in schema.values
    }
    expected = (
        "NON_FINITE_LOSS"
        if "TRAINING_OPERATION_ERROR_CODE_NON_FINITE_LOSS" in codes
        else "INTERNAL_ERROR"
    )
    return f"TRAINING_OPERATION_ERROR_CODE_{expected}"


def same_state(before: dict, after: dict, steps: int) -> None:
    """Two ``state_dict()``s hold the same step counter (``steps``) and optimizer state."""
    assert after["step"] == before["step"] == steps
    for kind_state in ("adam", "muon"):
        assert before[kind_state].keys() == after[kind_state].keys()
        for name, tensors in before[kind_state].items():
            for key, value in tensors.items():
                other = after[kind_state][name][key]
                assert torch.equal(value, other) if isinstance(value, Tensor) else value == other


@pytest.mark.parametrize("revision", facts.EACH_REVISION)
@pytest.mark.parametrize("kind", ["adam", "muon"])
def test_an_update_that_leaves_parameters_non_finite_changes_nothing(revision, kind):
    """A learning rate of 1e300 makes every updated parameter infinite: the step is refused as
    non-finite gradients are (the same error code), and the parameters, gradients, optimizer
    state and step counter are as before it, so that the next step with a sane learning rate
    completes as the first one would have."""
    model, twin = twin_models()
    session = reference(revision).LocalSession(model, kind, rollback=True)
    sane = reference(revision).LocalSession(twin, kind)
    huge = {f"{kind}.learning_rate": 1e300}
    if kind == "muon" and facts.field_for(revision, "muon", "adam.learning_rate"):
        huge["adam.learning_rate"] = 1e300
    for each in (model, twin):
        backward(each, 0)
    before_params = [p.detach().clone() for p in model.parameters()]
    before_grads = [p.grad.clone() for p in model.parameters()]
    before_state = session.state_dict()
    operation = session.optim_step(facts.body(revision, kind, huge))
    assert failed(operation)
    assert operation.error.code == non_finite_code(revision)
    assert (
        "non-finite" in operation.error.message and "nothing was changed" in operation.error.message
    )
    assert all(torch.equal(a, b) for a, b in zip(before_params, model.parameters()))
    assert all(torch.equal(a, p.grad) for a, p in zip(before_grads, model.parameters()))
    same_state(before_state, session.state_dict(), steps=0)
    completed(session.optim_step(facts.required_body(revision)))
    completed(sane.optim_step(facts.required_body(revision)))
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), twin.parameters()))
    assert session.step == 1


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
