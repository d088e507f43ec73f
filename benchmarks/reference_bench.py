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
import random
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
#: torch's fused AdamW step without clipping: the bytes of the update alone (28 per float32
#: parameter), the yardstick of the target (:data:`FLOOR_BYTES` / :data:`UPDATE_BYTES` of it)
FUSED_ALONE = "torch AdamW fused, no clip"
UPDATE_BYTES = 28
#: what a clipped step needs at least: the norm's read of the gradients, then the update
FLOOR_BYTES = 32
#: hold-out sets of more parameters than this run only ours, torch fused and its step alone
#: (the foreach and floor contenders would take the memory past a few GB)
LARGE = 40_000_000

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


def odd_transformer(dim: int, hidden: int, vocab: int, layers: int) -> Shapes:
    """Odd widths: fused q/k/v, an MLP of another odd width, norms without biases, and an
    untied head a few rows longer than the embedding."""
    named: Shapes = [("embed.weight", (vocab, dim))]
    for i in range(layers):
        p = f"layers.{i}."
        named += [(p + "norm1.weight", (dim,)), (p + "qkv.weight", (3 * dim, dim))]
        named += [(p + "qkv.bias", (3 * dim,)), (p + "out.weight", (dim, dim))]
        named += [(p + "norm2.weight", (dim,)), (p + "up.weight", (hidden, dim))]
        named += [(p + "up.bias", (hidden,)), (p + "down.weight", (dim, hidden))]
    return named + [("norm.weight", (dim,)), ("head.weight", (vocab + 7, dim))]


def odd_small() -> Shapes:
    """Hundreds of small tensors of odd sizes: 1-D of 1 to 997 entries and 2-D up to 61 x 53."""
    rng = random.Random(7)
    named: Shapes = []
    for i in range(1700):
        if i % 3:
            named.append((f"small.{i}", (rng.randrange(1, 998),)))
        else:
            named.append((f"small.{i}", (rng.randrange(1, 62), rng.randrange(1, 54))))
    return named


def odd_large() -> Shapes:
    """Few large odd matrices and their odd vectors."""
    named: Shapes = []
    for i, (rows, cols) in enumerate([(4099, 2053), (3001, 1999), (2053, 4099), (1531, 997)]):
        named += [(f"big.{i}.weight", (rows, cols)), (f"big.{i}.bias", (rows,))]
    return named


def odd_mixed() -> Shapes:
    """About 75M parameters: a few large matrices of odd sizes, forty medium ones, and
    hundreds of small 1-D and 2-D tensors."""
    rng = random.Random(11)
    named: Shapes = [(f"large.{i}", (5003 + 2 * i, 3001 + 4 * i)) for i in range(3)]
    named += [
        (f"medium.{i}", (rng.randrange(700, 1800), rng.randrange(300, 900))) for i in range(40)
    ]
    named += [(f"small.{i}", (rng.randrange(1, 4000),)) for i in range(300)]
    return named + [(f"tiny.{i}", (rng.randrange(1, 40), rng.randrange(1, 40))) for i in range(200)]


def random_shapes(seed: int) -> Shapes:
    """A set drawn from ``seed``: about 1M to 80M parameters (log-uniform), a few large
    matrices holding about half of them, the rest medium and small 1-D and 2-D tensors, every
    size drawn (so mostly odd)."""
    rng = random.Random(seed)
    target = int(math.exp(rng.uniform(math.log(1e6), math.log(8e7))))
    named: Shapes = []
    large = rng.randint(1, 4)
    for i in range(large):
        rows = rng.randrange(257, 6000)
        named.append((f"large.{i}", (rows, max(1, target // (2 * large * rows)))))
    total = sum(math.prod(s) for _, s in named)
    while total < target:
        i, kind = len(named), rng.random()
        if kind < 0.45:
            shape: tuple[int, ...] = (rng.randrange(1, 5000),)
        elif kind < 0.8:
            shape = (rng.randrange(1, 64), rng.randrange(1, 64))
        else:
            side = max(2, int(math.sqrt(target) / 4))
            shape = (rng.randrange(1, side), rng.randrange(1, side))
        named.append((f"t.{i}", shape))
        total += math.prod(shape)
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
#: Sets the optimizer was not tuned on (Adam only, with the first weight decay, no memory probe):
#: odd sizes, 1-D and 2-D mixed, many small and few large; with a set drawn afresh each run
HOLDOUT_SETS: dict[str, tuple[str, Callable[[], Shapes]]] = {
    "odd-small": ("1700 tensors of odd sizes: 1-D of 1 to 997, 2-D up to 61 x 53", odd_small),
    "odd-transformer-10M": (
        "embedding (3001 x 333), 7 layers of width 333 (fused q/k/v, MLP 1111, norms without "
        "biases), head (3008 x 333)",
        lambda: odd_transformer(333, 1111, 3001, 7),
    ),
    "odd-large-24M": ("four odd matrices (4099 x 2053 to 1531 x 997) and their biases", odd_large),
    "odd-mixed-75M": (
        "three 5003 x 3001 matrices, 40 medium odd ones, 300 vectors and 200 tiny matrices",
        odd_mixed,
    ),
}
RANDOM_SET = "random"


def model(shapes: str, seed: int = 0) -> tuple[list[tuple[str, Tensor]], list[Tensor]]:
    """Parameters and gradients of one shape set, the same on every run (the random set: the
    same for the same ``seed``)."""
    return tensors(spec(shapes, seed))


def spec(shapes: str, seed: int = 0) -> Shapes:
    """The shapes of a set of :data:`SHAPE_SETS`, :data:`HOLDOUT_SETS` or :data:`RANDOM_SET`."""
    if shapes == RANDOM_SET:
        return random_shapes(seed)
    return {**SHAPE_SETS, **HOLDOUT_SETS}[shapes][1]()


def describe(shapes: str, seed: int) -> str:
    if shapes == RANDOM_SET:
        return f"drawn afresh each run (`random_shapes`), this run's seed {seed}"
    return {**SHAPE_SETS, **HOLDOUT_SETS}[shapes][0]


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
    """``ours``, ``torch`` (the peer of PEERS), ``torch AdamW foreach``, torch's fused step
    without the clip (:data:`FUSED_ALONE`) or the bandwidth floor, with ``weight_decay`` for Adam
    and Muon alike."""
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

    clip = name != FUSED_ALONE

    def step() -> None:
        if clip:
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
    holdout: Sequence[str] = (*HOLDOUT_SETS, RANDOM_SET),
    seed: int | None = None,
) -> dict[str, Any]:
    """The ``sets`` with every optimizer and weight decay, then the ``holdout`` sets with Adam
    and the first weight decay (the random set drawn from ``seed``, by default a fresh one)."""
    seed = int.from_bytes(os.urandom(4), "big") if seed is None else seed
    rows = []
    plan = [(shapes, weight_decays, optimizers, memory_repeat) for shapes in sets]
    if "adam" in optimizers:
        plan += [(shapes, weight_decays[:1], ("adam",), 0) for shapes in holdout]
    for shapes, decays, kinds, probes in plan:
        named, grads = model(shapes, seed)
        count = sum(p.numel() for _, p in named)
        for weight_decay in decays:
            # Muon with the first weight decay only: its decay is one multiplication per
            # parameter, and its step (the Newton-Schulz products) costs seconds on large sets
            first = weight_decay == decays[0]
            for kind in [k for k in kinds if first or k == "adam"]:
                names = ["ours", "torch"]
                if kind == "adam":
                    names += [FUSED_ALONE]
                    if count <= LARGE:
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
                    "description": describe(shapes, seed),
                    "holdout": shapes not in sets,
                    "tensors": len(named),
                    "parameters": count,
                    "weight_decay": weight_decay,
                    "optimizer": kind,
                    "rounds": rounds,
                    **time_contenders(entries, rounds, device),
                    "state_bytes_per_parameter": {
                        name: entry[2]() / count
                        for name, entry in entries.items()
                        if name not in (FLOOR, FUSED_ALONE)
                    },
                }
                del entries
                if device == "cpu" and probes and weight_decay == decays[0]:
                    row["memory"] = memory(kind, shapes, probes)
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
        "seed": seed,
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    """Run some shape sets and print the reference part of RESULTS.md for them (results.json and
    RESULTS.md are left as they are; ``benchmarks/run.py reference`` writes them)."""
    import argparse

    import report

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument(
        "sets", nargs="*", metavar="SET", help=", ".join([*SHAPE_SETS, *HOLDOUT_SETS, RANDOM_SET])
    )
    parser.add_argument("--repeat", type=int, default=15, help="rounds of Adam (Muon: a third)")
    parser.add_argument("--memory", type=int, default=0, help="memory probe runs per row")
    parser.add_argument("--device", default="cpu")
    parser.add_argument(
        "--optimizer", choices=("adam", "muon"), action="append", help="only this one (repeatable)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    parser.add_argument("--seed", type=int, help="of the random set (default: a fresh one)")
    args = parser.parse_args(argv)
    known = {**SHAPE_SETS, **HOLDOUT_SETS, RANDOM_SET: None}
    unknown = set(args.sets) - set(known)
    if unknown:
        parser.error(f"unknown shape set(s): {', '.join(sorted(unknown))}")
    chosen = args.sets or [*SHAPE_SETS, *HOLDOUT_SETS, RANDOM_SET]
    result = run(
        args.repeat,
        args.device,
        [s for s in chosen if s in SHAPE_SETS],
        args.memory,
        optimizers=args.optimizer or ("adam", "muon"),
        holdout=[s for s in chosen if s not in SHAPE_SETS],
        seed=args.seed,
    )
    summary: list[str] = []
    body = report._reference(result, summary)
    print("\n".join(summary + [""] + body))
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
