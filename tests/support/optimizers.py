"""The reference's optimizers against PyTorch's own: a small transformer-like model, its
gradients, optim-step bodies in a revision's own fields, and the comparisons the runtime's tests
make for one revision (the newest in runtime/tests/unit, each other one in runtime/tests/e2e)."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from generator.reading import ir
from support import facts
from support.packages import reference

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


def adam_agrees_with_clip_grad_norm_and_torch_adamw(
    revision: str, clip: float, variant: str
) -> None:
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


# The parameters that Adam handles in a Muon session are held to the Adam test's bounds
# (ADAM_ULPS, ADAM_NORM_RELATIVE) after every step. Measured over these 20 steps, all revisions
# and scalings: at most 2 ULPs of the parameter's magnitude per element at any step, and of the
# parameter's norm 4.3e-8 after the first step, 1.2e-7 at most (from step 14 on).


def muon_equals_torch_muon_with_adamw_for_the_rest(revision: str, scaling: str) -> None:
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


def an_update_that_leaves_parameters_non_finite_changes_nothing(revision: str, kind: str) -> None:
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
