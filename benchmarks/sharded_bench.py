"""The reference's step on sharded parameters (two gloo ranks on the CPU, DTensors placed as FSDP2
places them: rows, ``Shard(0)``) against its step on the whole parameters in one process, at the
same total size, clipping included (max norm 1.0, which every step's gradients exceed).

    python benchmarks/sharded_bench.py [SET ...] [--repeat N] [--json]

Contenders, in the two ranks forked from this process, each one thread (as torchrun's
``OMP_NUM_THREADS=1``):

* ``whole``: a session over the whole parameters, in rank 0 (rank 1 waits);
* ``sharded``: a session over the sharded parameters, in both ranks at once; its wall time is the
  slower rank's, from a barrier, and its CPU time both ranks' together (gloo's threads included);
  the slower rank's CPU time is given too, against the whole step's (on a machine whose cores are
  busy with other work the two halves seldom run at once, and this shows the split);
* ``sharded all-gather`` (Muon): the same with every matrix all-gathered and orthogonalised on
  both ranks (the exchange the reference uses for placements other than FSDP2's), against the
  default, where each matrix is orthogonalised once, by its owner;
* the bandwidth floor of an Adam step (``whole floor`` in rank 0, ``shard floor`` in both ranks
  at once over their shards): 28 bytes per parameter, reading the parameter, the gradient and
  both moments and writing the parameter and both moments, as three multi-tensor ops that do no
  arithmetic to speak of.

The contenders step in turn, round after round, the order rotating; the gradients are put back
before each step, untimed; the first round, which creates the optimizer state, is not counted.
Each comparison is the median of the rounds' paired ratios and the ratio of the minimums.
Bytes per parameter of a step are its time in units of the floor's: ``28 * t / t_floor``, per
parameter the process holds (the whole model in one process, its shard in each rank). Muon's
traffic is counted from the shards' shapes: what the exchange sends over the network per step.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import socket
import statistics
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402
from timing import Sample, ratio, run_call, times  # noqa: E402

WORLD = 2
FLOOR_BYTES = 28
"""An fp32 Adam step reads the parameter, the gradient and both moments, and writes three."""
SETS = ("transformer-1M", "transformer-10M")
MUON_SETS = ("transformer-1M", "transformer-10M")
QUICK_SETS = ("transformer-1M",)


def run(
    repeat: int = 10, sets: Sequence[str] = SETS, muon_sets: Sequence[str] = MUON_SETS
) -> dict[str, Any]:
    """Fork two ranks, run every row in them, and return rank 0's figures."""
    import torch._dynamo  # noqa: F401  (imported once here rather than in each rank)
    import torch.distributed.tensor  # noqa: F401

    context = multiprocessing.get_context("fork")
    out = context.SimpleQueue()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    plan = [(shapes, "adam") for shapes in sets] + [(shapes, "muon") for shapes in muon_sets]
    ranks = [
        context.Process(target=_rank, args=(rank, port, plan, repeat, out), daemon=True)
        for rank in range(WORLD)
    ]
    for process in ranks:
        process.start()
    answers = {}
    for _ in ranks:
        rank, payload, problem = out.get()
        if problem is not None:
            for process in ranks:
                process.kill()
            raise RuntimeError(f"rank {rank} failed:\n{problem}")
        answers[rank] = payload
    for process in ranks:
        process.join()
    return {
        "device": "cpu",
        "world": WORLD,
        "backend": "gloo",
        "threads_per_rank": 1,
        "torch": torch.__version__,
        "repeat": repeat,
        "rows": json.loads(answers[0]),
    }


def _rank(rank: int, port: int, plan: list[tuple[str, str]], repeat: int, out: Any) -> None:
    try:
        torch.set_num_threads(1)
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        import torch.distributed as dist

        dist.init_process_group("gloo", rank=rank, world_size=WORLD)
        rows = [_row(rank, shapes, kind, repeat) for shapes, kind in plan]
        dist.destroy_process_group()
        out.put((rank, json.dumps(rows), None))
    except BaseException:
        out.put((rank, None, traceback.format_exc()))
    finally:
        os._exit(0)


def _row(rank: int, shapes: str, kind: str, repeat: int) -> dict[str, Any]:
    import reference_bench
    import torch.distributed as dist
    from torch import nn
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Shard, distribute_tensor

    named, grads = reference_bench.model(shapes)
    count = sum(p.numel() for _, p in named)
    mesh = init_device_mesh("cpu", (WORLD,))
    contenders: dict[str, tuple[Callable[[], None], Callable[[], None]]] = {}
    if rank == 0:  # rank 1 waits meanwhile
        whole, whole_step, _ = reference_bench.build_contender("ours", named, grads, kind, "cpu")
        contenders["whole"] = (whole.restore, whole_step)
    sys.path.insert(0, str(reference_bench.PACKAGE))
    from together_rl.reference import LocalSession

    sharded = [
        (n, nn.Parameter(distribute_tensor(p, mesh, [Shard(0)], src_data_rank=None)))
        for n, p in named
    ]
    sharded_grads = [distribute_tensor(g, mesh, [Shard(0)], src_data_rank=None) for g in grads]
    clip = reference_bench.CLIP
    if kind == "adam":
        session = LocalSession(sharded, "adam", **reference_bench.ADAM, grad_clip_norm=clip)
        body: dict[str, Any] = {"adam_params": {}}
    else:
        adam = {f"adam_{k}": v for k, v in reference_bench.ADAM.items()}
        session = LocalSession(sharded, "muon", **reference_bench.MUON, **adam, grad_clip_norm=clip)
        body = {"muon_params": {}}

    def restore_sharded() -> None:
        for _, p in sharded:
            p.grad = None
        for (_, p), g in zip(sharded, sharded_grads):
            p.grad = g.clone()

    def sharded_step() -> None:
        operation = session.optim_step(body)
        assert operation.status == "TRAINING_OPERATION_STATUS_COMPLETED", operation

    contenders["sharded"] = (restore_sharded, sharded_step)
    if kind == "muon":
        from together_rl_runtime.reference import _sharded

        def all_gather_step() -> None:
            takes = _sharded._OwnedMatrices.takes
            _sharded._OwnedMatrices.takes = staticmethod(lambda params, mesh: False)  # type: ignore
            try:
                sharded_step()
            finally:
                _sharded._OwnedMatrices.takes = takes  # type: ignore[method-assign]

        contenders["sharded all-gather"] = (restore_sharded, all_gather_step)
        names = ["sharded", "sharded all-gather", "whole"]
    else:
        if rank == 0:
            contenders["whole floor"] = _floor([p for _, p in named], grads)
        local = [p.to_local() for _, p in sharded]
        contenders["shard floor"] = _floor(local, [g.to_local() for g in sharded_grads])
        names = ["shard floor", "sharded", "whole", "whole floor"]

    samples: dict[str, list[Sample]] = {name: [] for name in names}
    for round_ in range(1 + repeat):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            both = name not in ("whole", "whole floor")
            if not both and rank != 0:
                continue
            restore, step = contenders[name]
            restore()
            if both:
                dist.barrier()
            sample = run_call(step)
            if both:  # the slower rank's wall time, both ranks' CPU time
                figures = torch.tensor([sample["wall"], sample["cpu"]], dtype=torch.float64)
                slowest = figures.clone()
                dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
                dist.all_reduce(figures, op=dist.ReduceOp.SUM)
                sample = {
                    "wall": slowest[0].item(),
                    "cpu": figures[1].item(),
                    "rank_cpu": slowest[1].item(),
                }
            if round_ >= 1:
                samples[name].append(sample)
    per_rank = _gathered(sum(p.to_local().numel() for _, p in sharded))
    if rank != 0:
        return {}
    result = {"samples": samples, "failed": {}}
    row: dict[str, Any] = {
        "shapes": shapes,
        "optimizer": kind,
        "parameters": count,
        "parameters_per_rank": per_rank,
        "rounds": repeat,
        "times": {name: times(result, name) for name in names},
        "ratios": {
            f"{a} / {b}": ratio(result, a, b)
            for a, b in [
                ("sharded", "whole"),
                ("sharded all-gather", "whole"),
                ("sharded", "sharded all-gather"),
            ]
            if a in names and b in names
        },
    }
    if "whole" in names:  # the slower rank's CPU time against the whole step's
        row["rank_cpu"] = {
            name: {
                "median": statistics.median(
                    a["rank_cpu"] / b["cpu"] for a, b in zip(samples[name], samples["whole"])
                ),
                "min": min(a["rank_cpu"] for a in samples[name])
                / min(b["cpu"] for b in samples["whole"]),
            }
            for name in names
            if name.startswith("sharded")
        }
    if kind == "adam":
        row["bytes_per_parameter"] = {
            "whole": _bytes(samples["whole"], samples["whole floor"]),
            "sharded": _bytes(samples["sharded"], samples["shard floor"]),
        }
    else:
        row["traffic"] = _muon_traffic(named)
    return row


def _gathered(value: int) -> list[int]:
    import torch.distributed as dist

    values = [torch.zeros((), dtype=torch.int64) for _ in range(WORLD)]
    dist.all_gather(values, torch.tensor(value, dtype=torch.int64))
    return [int(v) for v in values]


def _floor(
    params: list[torch.Tensor], grads: list[torch.Tensor]
) -> tuple[Callable[[], None], Callable[[], None]]:
    """28 bytes per parameter: read the parameter and gradient and write the parameter, read and
    write both moments."""
    exp_avgs = [torch.zeros_like(p) for p in params]
    exp_avg_sqs = [torch.zeros_like(p) for p in params]
    plain = [p.detach() for p in params]

    def step() -> None:
        with torch.no_grad():
            torch._foreach_add_(plain, grads, alpha=0.0)
            torch._foreach_mul_(exp_avgs, 1.0)
            torch._foreach_mul_(exp_avg_sqs, 1.0)

    return (lambda: None), step


def _bytes(step: list[Sample], floor: list[Sample]) -> dict[str, float]:
    """A step's bytes per parameter in units of the floor's: median of the rounds' and from the
    minimums (wall time)."""
    return {
        "median": statistics.median(
            FLOOR_BYTES * a["wall"] / b["wall"] for a, b in zip(step, floor)
        ),
        "min": FLOOR_BYTES * min(a["wall"] for a in step) / min(b["wall"] for b in floor),
    }


def _muon_traffic(named: list[tuple[str, torch.Tensor]]) -> dict[str, Any]:
    """What crosses the network per step for Muon's matrices (bfloat16, 2 bytes an element),
    from the shapes: with owners, each shard but the owner's goes to the owner and its part of
    the result comes back (padded to the largest shard); with the all-gather, each rank
    receives every shard but its own."""
    import reference_bench

    matrices = [p for n, p in named if reference_bench.is_muon(n, tuple(p.shape))]
    elements = sum(p.numel() for p in matrices)
    padded = sum(-(-p.shape[0] // WORLD) * p.shape[1] for p in matrices)
    everything = sum(p.numel() for _, p in named)
    owners = 2 * (WORLD - 1) * padded * 2
    all_gather = WORLD * (WORLD - 1) * padded * 2
    return {
        "muon_elements": elements,
        "owners_bytes": owners,
        "all_gather_bytes": all_gather,
        "owners_bytes_per_parameter": owners / everything,
        "all_gather_bytes_per_parameter": all_gather / everything,
        "owners_bytes_per_muon_element": owners / elements,
        "all_gather_bytes_per_muon_element": all_gather / elements,
        "norm_bytes_per_rank": 8,
    }


def main(argv: list[str] | None = None) -> int:
    """Run some shape sets and print the figures (results.json and RESULTS.md are left as they
    are; ``benchmarks/run.py sharded`` writes them)."""
    import argparse

    import reference_bench
    import report

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument(
        "sets", nargs="*", metavar="SET", help=", ".join(reference_bench.SHAPE_SETS)
    )
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--muon", nargs="*", metavar="SET", help="Muon's shape sets")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args(argv)
    sets = args.sets or SETS
    result = run(args.repeat, sets, MUON_SETS if args.muon is None else args.muon)
    summary_lines: list[str] = []
    print("\n".join(summary_lines + report._sharded(result, summary_lines)))
    print("\n".join(summary_lines))
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
