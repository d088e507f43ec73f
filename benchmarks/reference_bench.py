"""One optimizer step of the local reference against PyTorch's optimizers, clipping included on
both sides, at about 1M, 10M and 50M parameters of transformer-like shapes.

Time: every contender has its own parameters and gets the same gradients before each step; the
contenders step in turn, round after round (the order rotating each round), so that background
load hits all alike, and each figure is a ratio of the rounds' paired times, wall and CPU
(``time.process_time``: all of the process's threads). Beside Adam runs a bandwidth floor: the
passes that any Adam step with clipping must make over memory (read the gradients for the norm,
read them again, read and write parameters and both moments), done with the cheapest multi-tensor
ops that move those bytes.

Memory: each contender in a fresh process per run (``memory_probe.py``), which reports the peak
resident set during a few steps and how far above the resident set before them it went.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from timing import Sample, ratio, rounds, run_call, summary, times
from torch import Tensor, nn

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent / "generated" / "f4885bc38424"
CLIP = 1.0
ADAM = {"learning_rate": 1e-3, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "weight_decay": 0.1}
MUON = {"learning_rate": 0.02, "momentum": 0.95, "newton_schulz_steps": 5, "weight_decay": 0.1}
# (model width, vocabulary, layers): about 1M, 10M and 50M parameters
SIZES = {"1M": (128, 1000, 4), "10M": (256, 4000, 10), "50M": (512, 8000, 14)}
PEERS = {"adam": "torch AdamW fused", "muon": "torch Muon + AdamW fused"}
FLOOR = "bandwidth floor"


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


def model(dim: int, vocab: int, layers: int) -> tuple[list[tuple[str, Tensor]], list[Tensor]]:
    """Parameters and gradients of one size, the same on every run."""
    generator = torch.Generator().manual_seed(0)
    spec = shapes(dim, vocab, layers)
    named = [(n, torch.randn(s, generator=generator) * 0.02) for n, s in spec]
    grads = [torch.randn(s, generator=generator) * 0.01 for _, s in spec]
    return named, grads


def is_muon(name: str, shape: tuple[int, ...]) -> bool:
    return len(shape) == 2 and "embed" not in name and "lm_head" not in name


class Contender:
    """Its own copy of the parameters; the same gradients put back before each timed step."""

    def __init__(self, named: list[tuple[str, Tensor]], grads: list[Tensor], device: str) -> None:
        self.named = [(n, nn.Parameter(p.detach().clone().to(device))) for n, p in named]
        self.params = [p for _, p in self.named]
        self.grads = [g.to(device) for g in grads]

    def restore(self) -> None:
        for p in self.params:
            p.grad = None  # first, so that old and new gradients are never held together
        for p, g in zip(self.params, self.grads):
            p.grad = g.clone()

    @staticmethod
    def state_bytes(states: list[dict[str, Any]]) -> int:
        return sum(
            t.numel() * t.element_size()
            for s in states
            for t in s.values()
            if isinstance(t, Tensor) and t.dim() > 0
        )


Built = tuple[Contender, Callable[[], None], Callable[[], int]]


def build_contender(
    name: str, named: list[tuple[str, Tensor]], grads: list[Tensor], kind: str, device: str
) -> Built:
    """``ours``, ``torch`` (the peer of PEERS), ``torch AdamW foreach`` or the bandwidth floor."""
    c = Contender(named, grads, device)
    if name == "ours":
        sys.path.insert(0, str(PACKAGE))
        from together_rl.reference import LocalSession

        if kind == "adam":
            session = LocalSession(c.named, "adam", **{**ADAM, "grad_clip_norm": CLIP})
            body: dict[str, Any] = {"adam_params": {}}
        else:
            adam_defaults = {f"adam_{k}": v for k, v in ADAM.items()}
            session = LocalSession(c.named, "muon", **MUON, **adam_defaults, grad_clip_norm=CLIP)
            body = {"muon_params": {}}

        def ours_step() -> None:
            operation = session.optim_step(body)
            assert operation.status == "TRAINING_OPERATION_STATUS_COMPLETED", operation

        def ours_state() -> int:
            saved = session.state_dict()
            return c.state_bytes(list(saved["adam"].values()) + list(saved["muon"].values()))

        return c, ours_step, ours_state
    if name == FLOOR:
        exp_avgs = [torch.zeros_like(p) for p in c.params]
        exp_avg_sqs = [torch.zeros_like(p) for p in c.params]
        params = [p.detach() for p in c.params]

        def floor_step() -> None:
            with torch.no_grad():
                current = [g for g in (p.grad for p in c.params) if g is not None]
                torch._foreach_norm(current, 2.0)  # read the gradients
                torch._foreach_add_(params, current, alpha=0.0)  # read them, read/write params
                torch._foreach_mul_(exp_avgs, 1.0)  # read/write the first moments
                torch._foreach_mul_(exp_avg_sqs, 1.0)  # and the second ones

        return c, floor_step, lambda: 0
    options = {"foreach": True} if name == "torch AdamW foreach" else {"fused": True}
    adam_params = [p for n, p in c.named if kind == "adam" or not is_muon(n, tuple(p.shape))]
    optimizers: list[torch.optim.Optimizer] = [
        torch.optim.AdamW(
            adam_params,
            lr=ADAM["learning_rate"],
            betas=(ADAM["beta1"], ADAM["beta2"]),
            eps=ADAM["eps"],
            weight_decay=ADAM["weight_decay"],
            **options,
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
        for optimizer in optimizers:  # as the reference's step does
            optimizer.zero_grad(set_to_none=True)

    return c, step, lambda: c.state_bytes([s for o in optimizers for s in o.state.values()])


def _synchronize(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def time_contenders(entries: dict[str, Built], repeat: int, device: str) -> dict[str, Any]:
    """Every contender steps once per round (after its gradients are put back, untimed), the
    order rotating; the first round, which creates the optimizer state, is not counted."""

    def timed(contender: Contender, step: Callable[[], None]) -> Callable[[], Sample]:
        def run() -> Sample:
            contender.restore()
            _synchronize(device)
            return run_call(lambda: (step(), _synchronize(device)))

        return run

    result = rounds({n: timed(c, s) for n, (c, s, _) in entries.items()}, repeat, warmup=1)
    return {
        "times": {n: times(result, n) for n in entries},
        "ratios": {n: ratio(result, "ours", n) for n in entries if n != "ours"},
    }


def memory(kind: str, size: str, repeat: int) -> dict[str, Any]:
    """Peak resident set of ours and the peer, each run in a fresh process, in turn."""
    runs: dict[str, list[dict[str, int]]] = {"ours": [], "torch": []}
    for round_ in range(repeat):
        order = ["ours", "torch"] if round_ % 2 == 0 else ["torch", "ours"]
        for name in order:
            result = subprocess.run(
                [sys.executable, str(HERE / "memory_probe.py"), name, kind, size],
                capture_output=True,
                text=True,
                timeout=900,
                # large blocks always mapped and unmapped by glibc, so that the resident set
                # follows the live memory rather than what malloc keeps for reuse
                env={**os.environ, "MALLOC_MMAP_THRESHOLD_": "65536"},
            )
            if result.returncode != 0:
                return {"failed": result.stderr.strip().splitlines()[-1:]}
            runs[name].append(json.loads(result.stdout.strip().splitlines()[-1]))
    out: dict[str, Any] = {"runs": runs}
    for field in ("first_peak", "first_above", "steady_peak", "steady_above", "temporaries"):
        out[field] = {
            name: summary([float(r[field]) for r in results]) for name, results in runs.items()
        }
        out[field]["ratio"] = {
            "median": statistics.median(
                a[field] / max(b[field], 1) for a, b in zip(runs["ours"], runs["torch"])
            ),
            "min": min(r[field] for r in runs["ours"])
            / max(min(r[field] for r in runs["torch"]), 1),
        }
    return out


def run(
    repeat: int = 15,
    device: str = "cpu",
    sizes: dict[str, tuple[int, int, int]] = SIZES,
    memory_repeat: int = 2,
) -> dict[str, Any]:
    rows = []
    for label, (dim, vocab, layers) in sizes.items():
        named, grads = model(dim, vocab, layers)
        count = sum(p.numel() for _, p in named)
        for kind in ("adam", "muon"):
            names = ["ours", "torch"] + (["torch AdamW foreach", FLOOR] if kind == "adam" else [])
            entries = {
                (PEERS[kind] if n == "torch" else n): build_contender(n, named, grads, kind, device)
                for n in names
            }
            # Muon steps take seconds at 50M: fewer rounds
            rounds = repeat if kind == "adam" else max(3, repeat // 3)
            row: dict[str, Any] = {
                "size": label,
                "parameters": count,
                "optimizer": kind,
                "rounds": rounds,
                **time_contenders(entries, rounds, device),
                "state_bytes_per_parameter": {
                    name: entry[2]() / count for name, entry in entries.items() if name != FLOOR
                },
            }
            del entries
            if device == "cpu" and memory_repeat:
                row["memory"] = memory(kind, label, memory_repeat)
            rows.append(row)
            print(f"  {label} {kind}: {json.dumps(row['ratios'])}", flush=True)
    return {
        "device": device,
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "repeat": repeat,
        "rows": rows,
    }


if __name__ == "__main__":
    print(json.dumps(run(repeat=3, sizes={"1M": SIZES["1M"]}), indent=2))
