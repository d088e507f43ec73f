"""Peak memory of one optimizer over a few steps, in a fresh process of its own.

    python benchmarks/memory_probe.py CONTENDER KIND SHAPES [--steps N]

CONTENDER is ``ours`` or ``torch`` (``clip_grad_norm_`` + ``torch.optim.Muon`` for the matrices
and ``AdamW(fused=True)`` for the rest, or ``AdamW(fused=True)`` alone); KIND ``adam`` or
``muon``; SHAPES a key of ``reference_bench.SHAPE_SETS``. tracemalloc does not see torch's
allocations; the resident set does, whoever allocates: the peak is Linux's VmHWM, reset through
``/proc/self/clear_refs``. Both contenders' modules are imported (and torch's optimizers
constructed once on a tiny tensor, which loads much of torch), and the contender runs two steps
on a tiny model first, before anything is measured, so that the baseline is the same for both
and one-off set-up is not counted.

Prints one JSON object: ``first_peak``, the peak of the resident set from just before the first
step (which creates the optimizer state) to its end, and ``first_above``, how far that is above
the resident set before it; ``steady_peak`` and ``steady_above``, the same over the later steps
(the state exists; what remains is each step's temporaries); ``temporaries``, the peak of the
tensor bytes allocated during one more step above those at its start (torch's profiler sees
every allocation of its CPU allocator); ``state_bytes``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("contender", choices=("ours", "torch"))
    parser.add_argument("kind", choices=("adam", "muon"))
    parser.add_argument("shapes")
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args(argv)

    import torch
    from reference_bench import (
        PACKAGE,
        SHAPE_SETS,
        build_contender,
        model,
        tensors,
        transformer,
    )

    sys.path.insert(0, str(PACKAGE))
    import together_rl.reference  # noqa: F401

    tiny = torch.nn.Parameter(torch.zeros(4, 4))
    tiny.grad = torch.zeros(4, 4)
    for optimizer in (torch.optim.AdamW([tiny], fused=True), torch.optim.Muon([tiny])):
        optimizer.step()
    del tiny, optimizer
    # and the contender's own code run on a tiny model of the same layout: what its first call
    # sets up once (dispatch, kernels, caches) is not a cost of the model's size
    small_named, small_grads = tensors(transformer(16, 32, 1))
    small, small_step, _ = build_contender(
        args.contender, small_named, small_grads, args.kind, "cpu"
    )
    for _ in range(2):
        small.restore()
        small_step()
    del small, small_step, small_named, small_grads

    if args.shapes not in SHAPE_SETS:
        parser.error(f"unknown shape set {args.shapes!r}")
    named, grads = model(args.shapes)
    contender, step, state_bytes = build_contender(args.contender, named, grads, args.kind, "cpu")
    del named  # the contender holds its own copy
    result: dict[str, int] = {}
    for phase, steps in (("first", 1), ("steady", args.steps - 1)):
        contender.restore()
        before = _status("VmRSS")
        Path("/proc/self/clear_refs").write_text("5")  # the peak starts again from here
        for i in range(steps):
            if i:
                contender.restore()
            step()
        peak = _status("VmHWM")
        result |= {
            f"{phase}_before": before,
            f"{phase}_peak": peak,
            f"{phase}_above": peak - before,
        }
    # Then one more step under torch's profiler, which sees every tensor allocation: the peak of
    # the bytes live above those at the step's start is the step's temporaries, exactly.
    from torch.profiler import ProfilerActivity, profile

    contender.restore()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as profiler:
        step()
    events = sorted(
        (e for e in profiler.profiler.kineto_results.events() if e.name() == "[memory]"),
        key=lambda e: e.start_ns(),
    )
    live = peak_live = 0
    for event in events:
        live += event.nbytes()
        peak_live = max(peak_live, live)
    result |= {
        "temporaries": peak_live,
        "state_bytes": state_bytes(),
        "parameters": sum(p.numel() for p in contender.params),
        "threads": torch.get_num_threads(),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
