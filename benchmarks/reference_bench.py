"""One optimizer step of the local reference against PyTorch's optimizers, clipping included on
both sides, at about 1M, 10M and 50M parameters of transformer-like shapes."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from timing import Measurement
from torch import Tensor, nn

PACKAGE = Path(__file__).resolve().parent.parent / "generated" / "f4885bc38424"
CLIP = 1.0
ADAM = {"learning_rate": 1e-3, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "weight_decay": 0.1}
MUON = {"learning_rate": 0.02, "momentum": 0.95, "newton_schulz_steps": 5, "weight_decay": 0.1}
# (model width, vocabulary, layers): about 1M, 10M and 50M parameters
SIZES = {"1M": (128, 1000, 4), "10M": (256, 4000, 10), "50M": (512, 8000, 14)}


def shapes(dim: int, vocab: int, layers: int) -> list[tuple[str, tuple[int, ...]]]:
    """Embedding; per layer two norms, q/k/v/o and an MLP with biases; final norm; output head."""
    named: list[tuple[str, tuple[int, ...]]] = [("embed_tokens.weight", (vocab, dim))]
    for i in range(layers):
        p = f"layers.{i}."
        named += [(p + "ln1.weight", (dim,)), (p + "ln1.bias", (dim,))]
        for name in ("q", "k", "v", "o"):
            named += [(p + name + ".weight", (dim, dim)), (p + name + ".bias", (dim,))]
        named += [(p + "ln2.weight", (dim,)), (p + "ln2.bias", (dim,))]
        named += [(p + "up.weight", (4 * dim, dim)), (p + "up.bias", (4 * dim,))]
        named += [(p + "down.weight", (dim, 4 * dim)), (p + "down.bias", (dim,))]
    return named + [
        ("ln_f.weight", (dim,)),
        ("ln_f.bias", (dim,)),
        ("lm_head.weight", (vocab, dim)),
    ]


def is_muon(name: str, shape: tuple[int, ...]) -> bool:
    return len(shape) == 2 and "embed" not in name and "lm_head" not in name


class Contender:
    """Its own copy of the parameters; the same gradients put back before each timed step."""

    def __init__(self, named: list[tuple[str, Tensor]], grads: list[Tensor], device: str) -> None:
        self.named = [(n, nn.Parameter(p.detach().clone().to(device))) for n, p in named]
        self.params = [p for _, p in self.named]
        self.grads = [g.to(device) for g in grads]

    def restore(self) -> None:
        for p, g in zip(self.params, self.grads):
            p.grad = g.clone()

    def state_bytes(self, states: list[dict[str, Any]]) -> int:
        return sum(
            t.numel() * t.element_size()
            for s in states
            for t in s.values()
            if isinstance(t, Tensor)
        )


def contenders(
    named: list[tuple[str, Tensor]], grads: list[Tensor], kind: str, device: str
) -> dict[str, tuple[Contender, Callable[[], None], Callable[[], int]]]:
    sys.path.insert(0, str(PACKAGE))
    from together_rl.reference import LocalSession

    result = {}
    ours = Contender(named, grads, device)
    if kind == "adam":
        session = LocalSession(ours.named, "adam", **{**ADAM, "grad_clip_norm": CLIP})
        body = {"adam_params": {}}
    else:
        adam_defaults = {f"adam_{k}": v for k, v in ADAM.items()}
        session = LocalSession(ours.named, "muon", **MUON, **adam_defaults, grad_clip_norm=CLIP)
        body = {"muon_params": {}}

    def ours_step() -> None:
        operation = session.optim_step(body)
        assert operation.status == "TRAINING_OPERATION_STATUS_COMPLETED", operation

    def ours_state() -> int:
        saved = session.state_dict()
        return ours.state_bytes(list(saved["adam"].values()) + list(saved["muon"].values()))

    result["ours"] = (ours, ours_step, ours_state)

    def torch_variant(
        **adamw_options: Any,
    ) -> tuple[Contender, Callable[[], None], Callable[[], int]]:
        c = Contender(named, grads, device)
        adam_params = [p for n, p in c.named if kind == "adam" or not is_muon(n, tuple(p.shape))]
        optimizers: list[torch.optim.Optimizer] = [
            torch.optim.AdamW(
                adam_params,
                lr=ADAM["learning_rate"],
                betas=(ADAM["beta1"], ADAM["beta2"]),
                eps=ADAM["eps"],
                weight_decay=ADAM["weight_decay"],
                **adamw_options,
            )
        ]
        if kind == "muon":
            optimizers.append(
                torch.optim.Muon(
                    [p for n, p in c.named if is_muon(n, tuple(p.shape))],
                    lr=MUON["learning_rate"],
                    momentum=MUON["momentum"],
                    nesterov=True,
                    weight_decay=MUON["weight_decay"],
                    ns_steps=int(MUON["newton_schulz_steps"]),
                    adjust_lr_fn="original",
                )
            )

        def step() -> None:
            nn.utils.clip_grad_norm_(c.params, CLIP)
            for optimizer in optimizers:
                optimizer.step()

        return c, step, lambda: c.state_bytes([s for o in optimizers for s in o.state.values()])

    if kind == "adam":
        result["torch AdamW fused"] = torch_variant(fused=True)
        result["torch AdamW foreach"] = torch_variant(foreach=True)
    else:
        result["torch Muon + AdamW foreach"] = torch_variant(foreach=True)
    return result


def _synchronize(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def run(
    repeat: int = 7, device: str = "cpu", sizes: dict[str, tuple[int, int, int]] = SIZES
) -> dict[str, Any]:
    rows = []
    for label, (dim, vocab, layers) in sizes.items():
        generator = torch.Generator().manual_seed(0)
        spec = shapes(dim, vocab, layers)
        named = [(n, torch.randn(s, generator=generator) * 0.02) for n, s in spec]
        grads = [torch.randn(s, generator=generator) * 0.01 for _, s in spec]
        count = sum(p.numel() for _, p in named)
        for kind in ("adam", "muon"):
            entries = contenders(named, grads, kind, device)
            samples: dict[str, list[float]] = {name: [] for name in entries}
            for iteration in range(repeat + 1):  # the first round warms up (state is created)
                for name, (contender, step, _) in entries.items():
                    contender.restore()
                    _synchronize(device)
                    start = time.perf_counter()
                    step()
                    _synchronize(device)
                    if iteration:
                        samples[name].append(time.perf_counter() - start)
            times = {name: Measurement.of(s).to_dict() for name, s in samples.items()}
            ours = times["ours"]["median"]
            rows.append(
                {
                    "size": label,
                    "parameters": count,
                    "optimizer": kind,
                    "times": times,
                    "ratio_ours_to": {
                        name: ours / t["median"] for name, t in times.items() if name != "ours"
                    },
                    "state_bytes_per_parameter": {
                        name: entry[2]() / count for name, entry in entries.items()
                    },
                }
            )
            del entries
    return {
        "device": device,
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "repeat": repeat,
        "rows": rows,
    }


if __name__ == "__main__":
    print(json.dumps(run(repeat=3, sizes={"1M": SIZES["1M"]}), indent=2))
