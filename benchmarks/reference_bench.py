"""One optimizer step of the local reference against PyTorch's optimizers, clipping included on
both sides, on named sets of parameter shapes (:data:`SHAPE_SETS`), each with and without weight
decay for Adam: transformer-like models of about 1M, 10M and 50M parameters, a few large
matrices, and hundreds of small tensors.

Time: every contender has its own parameters and gets the same gradients before each step; the
contenders step in turn, round after round (the order rotating each round), so that background
load hits all alike, and each figure is a ratio of the rounds' paired times, wall and CPU
(``time.process_time``: all of the process's threads). A sample is as many steps as last about
:data:`SAMPLE_SECONDS` (at least one), their gradients copied beforehand: Linux adds a running
thread's CPU time to the process's clock only at a scheduler tick or when it stops, so the CPU
time of one short step (the intra-op threads' share of it) is off by up to a tick, as much as
the step itself takes on the small sets. Beside Adam runs a bandwidth floor: the
passes that any Adam step with clipping must make over memory (read the gradients for the norm,
read them again, read and write parameters and both moments), done with the cheapest multi-tensor
ops that move those bytes.

Memory: each contender in a fresh process per run (``memory_probe.py``), which reports the peak
resident set during a few steps and how far above the resident set before them it went; measured
for the rows with the first weight decay (it changes no allocation).
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
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
#: a sample runs enough steps to take about this long (the smallest sets' steps take a few ms)
SAMPLE_SECONDS = 0.1
#: the gradients copied for one sample take at most this much memory (so at least one step)
SAMPLE_BYTES = 1 << 29
#: Adam runs every shape set with each of these weight decays; Muon (whose weight decay is one
#: multiplication per parameter) and the memory probes with the first
WEIGHT_DECAYS = (0.1, 0.0)
PEERS = {"adam": "torch AdamW fused", "muon": "torch Muon + AdamW fused"}
FLOOR = "bandwidth floor"

Shapes = list[tuple[str, tuple[int, ...]]]


def transformer(dim: int, vocab: int, layers: int) -> Shapes:
    """Embedding; per layer two norms, q/k/v/o and an MLP with biases; final norm; output head."""
    named: Shapes = [("embed_tokens.weight", (vocab, dim))]
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


def large_matrices() -> Shapes:
    """Few large tensors: eight 1024x1024 and four 4096x512 matrices, eight 1024-vectors."""
    named: Shapes = [(f"blocks.{i}.weight", (1024, 1024)) for i in range(8)]
    named += [(f"proj.{i}.weight", (4096, 512)) for i in range(4)]
    return named + [(f"norms.{i}.weight", (1024,)) for i in range(8)]


def many_small() -> Shapes:
    """Hundreds of small tensors: 128 blocks, each with a norm's weight and bias (256), a 64x64
    matrix, and a 128x32 or 32x128 one (512 tensors)."""
    named: Shapes = []
    for i in range(128):
        p = f"blocks.{i}."
        named += [(p + "norm.weight", (256,)), (p + "norm.bias", (256,))]
        named += [(p + "mix.weight", (64, 64))]
        named += [(p + "gate.weight", (128, 32) if i % 2 else (32, 128))]
    return named


#: name -> (what it is, its shapes); the names are what RESULTS.md and memory_probe.py take
SHAPE_SETS: dict[str, tuple[str, Callable[[], Shapes]]] = {
    "transformer-1M": (
        "embedding (1000 x 128), 4 layers of width 128 (norms, q/k/v/o, MLP 512, biases), head",
        lambda: transformer(128, 1000, 4),
    ),
    "transformer-10M": (
        "embedding (4000 x 256), 10 layers of width 256 (norms, q/k/v/o, MLP 1024, biases), head",
        lambda: transformer(256, 4000, 10),
    ),
    "transformer-50M": (
        "embedding (8000 x 512), 14 layers of width 512 (norms, q/k/v/o, MLP 2048, biases), head",
        lambda: transformer(512, 8000, 14),
    ),
    "large-matrices": (
        "eight 1024 x 1024 and four 4096 x 512 matrices, eight 1024-vectors",
        large_matrices,
    ),
    "many-small": (
        "128 blocks of a norm weight and bias (256), a 64 x 64 matrix and a 128 x 32 or 32 x 128 "
        "one: 512 tensors",
        many_small,
    ),
}
QUICK_SETS = ("transformer-1M", "many-small")  # a smoke run: the cheap sets


def model(shapes: str) -> tuple[list[tuple[str, Tensor]], list[Tensor]]:
    """Parameters and gradients of one shape set, the same on every run."""
    return tensors(SHAPE_SETS[shapes][1]())


def tensors(spec: Shapes) -> tuple[list[tuple[str, Tensor]], list[Tensor]]:
    """Parameters and gradients of these shapes, the same on every run."""
    generator = torch.Generator().manual_seed(0)
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

    def gradients(self, steps: int) -> list[list[Tensor]]:
        """Copies of the gradients for ``steps`` steps, to hand over with :meth:`hand`."""
        return [[g.clone() for g in self.grads] for _ in range(steps)]

    def hand(self, grads: list[Tensor]) -> None:
        """Give the parameters these gradients (no copy: the step consumes them)."""
        for p, g in zip(self.params, grads):
            p.grad = g

    def gradient_bytes(self) -> int:
        return sum(g.numel() * g.element_size() for g in self.grads)

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
    name: str,
    named: list[tuple[str, Tensor]],
    grads: list[Tensor],
    kind: str,
    device: str,
    weight_decay: float = WEIGHT_DECAYS[0],
) -> Built:
    """``ours``, ``torch`` (the peer of PEERS), ``torch AdamW foreach`` or the bandwidth floor,
    with ``weight_decay`` for Adam and Muon alike."""
    c = Contender(named, grads, device)
    adam = {**ADAM, "weight_decay": weight_decay}
    muon = {**MUON, "weight_decay": weight_decay}
    if name == "ours":
        sys.path.insert(0, str(PACKAGE))
        from together_rl.reference import LocalSession

        if kind == "adam":
            session = LocalSession(c.named, "adam", **{**adam, "grad_clip_norm": CLIP})
            body: dict[str, Any] = {"adam_params": {}}
        else:
            adam_defaults = {f"adam_{k}": v for k, v in adam.items()}
            session = LocalSession(c.named, "muon", **muon, **adam_defaults, grad_clip_norm=CLIP)
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
            lr=adam["learning_rate"],
            betas=(adam["beta1"], adam["beta2"]),
            eps=adam["eps"],
            weight_decay=adam["weight_decay"],
            **options,
        )
    ]
    if kind == "muon":
        optimizers.append(
            torch.optim.Muon(
                [p for n, p in c.named if is_muon(n, tuple(p.shape))],
                lr=muon["learning_rate"],
                momentum=muon["momentum"],
                nesterov=True,
                weight_decay=muon["weight_decay"],
                ns_steps=int(muon["newton_schulz_steps"]),
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


def steps_per_sample(entries: dict[str, Built], device: str) -> int:
    """How many steps make a sample of about :data:`SAMPLE_SECONDS` for the fastest contender
    (timed on a second step, after the first has created the state), at least one, and no more
    than :data:`SAMPLE_BYTES` of gradient copies allow."""
    fastest = float("inf")
    for contender, step, _ in entries.values():
        for _ in range(2):
            contender.restore()
            _synchronize(device)
            took = run_call(lambda: (step(), _synchronize(device)))["wall"]
        fastest = min(fastest, took)
    by_memory = SAMPLE_BYTES // max(c.gradient_bytes() for c, _, _ in entries.values())
    return max(1, min(math.ceil(SAMPLE_SECONDS / max(fastest, 1e-6)), by_memory))


def time_contenders(entries: dict[str, Built], repeat: int, device: str) -> dict[str, Any]:
    """Every contender runs one sample per round, the order rotating: :func:`steps_per_sample`
    steps, each with its own copy of the gradients (made beforehand, untimed); the times are per
    step. The first round is not counted."""
    steps = steps_per_sample(entries, device)

    def timed(contender: Contender, step: Callable[[], None]) -> Callable[[], Sample]:
        def run() -> Sample:
            batch = contender.gradients(steps)
            _synchronize(device)

            def sample() -> None:
                while batch:
                    contender.hand(batch.pop())  # the step frees them
                    step()
                _synchronize(device)

            took = run_call(sample)
            return {clock: seconds / steps for clock, seconds in took.items()}

        return run

    result = rounds({n: timed(c, s) for n, (c, s, _) in entries.items()}, repeat, warmup=1)
    return {
        "steps_per_sample": steps,
        "times": {n: times(result, n) for n in entries},
        "ratios": {n: ratio(result, "ours", n) for n in entries if n != "ours"},
    }


def memory(kind: str, shapes: str, repeat: int) -> dict[str, Any]:
    """Peak resident set of ours and the peer, each run in a fresh process, in turn."""
    runs: dict[str, list[dict[str, int]]] = {"ours": [], "torch": []}
    for round_ in range(repeat):
        order = ["ours", "torch"] if round_ % 2 == 0 else ["torch", "ours"]
        for name in order:
            result = subprocess.run(
                [sys.executable, str(HERE / "memory_probe.py"), name, kind, shapes],
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
    sets: Sequence[str] = tuple(SHAPE_SETS),
    memory_repeat: int = 2,
    weight_decays: Sequence[float] = WEIGHT_DECAYS,
    optimizers: Sequence[str] = ("adam", "muon"),
) -> dict[str, Any]:
    rows = []
    for shapes in sets:
        named, grads = model(shapes)
        count = sum(p.numel() for _, p in named)
        for weight_decay in weight_decays:
            # Muon with the first weight decay only: its decay is one multiplication per
            # parameter, and its step (the Newton-Schulz products) costs seconds on large sets
            first = weight_decay == weight_decays[0]
            for kind in [k for k in optimizers if first or k == "adam"]:
                names = ["ours", "torch"]
                if kind == "adam":
                    names += ["torch AdamW foreach", FLOOR]
                entries = {
                    (PEERS[kind] if n == "torch" else n): build_contender(
                        n, named, grads, kind, device, weight_decay
                    )
                    for n in names
                }
                # Muon steps take seconds at 50M: fewer rounds
                rounds = repeat if kind == "adam" else max(3, repeat // 3)
                row: dict[str, Any] = {
                    "shapes": shapes,
                    "description": SHAPE_SETS[shapes][0],
                    "tensors": len(named),
                    "parameters": count,
                    "weight_decay": weight_decay,
                    "optimizer": kind,
                    "rounds": rounds,
                    **time_contenders(entries, rounds, device),
                    "state_bytes_per_parameter": {
                        name: entry[2]() / count for name, entry in entries.items() if name != FLOOR
                    },
                }
                del entries
                if device == "cpu" and memory_repeat and weight_decay == weight_decays[0]:
                    row["memory"] = memory(kind, shapes, memory_repeat)
                rows.append(row)
                print(
                    f"  {shapes} wd={weight_decay:g} {kind}: {json.dumps(row['ratios'])}",
                    flush=True,
                )
    return {
        "device": device,
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "repeat": repeat,
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    """Run some shape sets and print the reference part of RESULTS.md for them (results.json and
    RESULTS.md are left as they are; ``benchmarks/run.py reference`` writes them)."""
    import argparse

    import report

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("sets", nargs="*", metavar="SET", help=", ".join(SHAPE_SETS))
    parser.add_argument("--repeat", type=int, default=15, help="rounds of Adam (Muon: a third)")
    parser.add_argument("--memory", type=int, default=0, help="memory probe runs per row")
    parser.add_argument("--device", default="cpu")
    parser.add_argument(
        "--optimizer", choices=("adam", "muon"), action="append", help="only this one (repeatable)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args(argv)
    unknown = set(args.sets) - set(SHAPE_SETS)
    if unknown:
        parser.error(f"unknown shape set(s): {', '.join(sorted(unknown))}")
    result = run(
        args.repeat,
        args.device,
        args.sets or tuple(SHAPE_SETS),
        args.memory,
        optimizers=args.optimizer or ("adam", "muon"),
    )
    summary: list[str] = []
    body = report._reference(result, summary)
    print("\n".join(summary + [""] + body))
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
