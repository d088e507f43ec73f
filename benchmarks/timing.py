"""Timing helpers shared by the benchmarks: contenders run in turn, round after round, on the same
inputs; each is timed by the wall clock and by CPU time; figures are minimums and medians over the
rounds, and ratios are taken between the runs of the same round (paired)."""

from __future__ import annotations

import resource
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

Sample = dict[str, float]  # {"wall": seconds, "cpu": seconds}


def summary(values: Sequence[float]) -> dict[str, Any]:
    return {"min": min(values), "median": statistics.median(values), "runs": len(values)}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class Failed(Exception):
    pass


def run_commands(
    commands: Sequence[Sequence[str]],
    timeout: float,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Sample:
    """Run ``commands`` one after another (in ``cwd``); wall time and the CPU time of the
    processes (and of the processes they waited for, such as black's workers or ruff)."""
    wall, cpu = time.perf_counter(), _children_cpu()
    for command in commands:
        try:
            result = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd
            )
        except subprocess.TimeoutExpired:
            raise Failed(f"timed out after {timeout:.0f} s") from None
        if result.returncode != 0:
            lines = (result.stderr or result.stdout).strip().splitlines() or ["no output"]
            raise Failed(f"exit {result.returncode}: {lines[-1][:200]}")
    return {"wall": time.perf_counter() - wall, "cpu": _children_cpu() - cpu}


def run_call(call: Callable[[], object]) -> Sample:
    """Time a call in this process (CPU: all of this process's threads)."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}


def rounds(
    contenders: Mapping[str, Callable[[], Sample]], repeat: int, warmup: int = 1
) -> dict[str, Any]:
    """Run every contender once per round, the order rotating from round to round, ``warmup``
    untimed rounds first. A contender that fails is reported as failed and left out after."""
    names = list(contenders)
    samples: dict[str, list[Sample]] = {name: [] for name in names}
    failed: dict[str, str] = {}
    for round_ in range(warmup + repeat):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            if name in failed:
                continue
            try:
                sample = contenders[name]()
            except Failed as exc:
                failed[name] = str(exc)
                continue
            if round_ >= warmup:
                samples[name].append(sample)
    return {"samples": samples, "failed": failed}


def times(result: Mapping[str, Any], name: str) -> dict[str, Any]:
    """``{"wall": {min, median, runs}, "cpu": {...}}`` of one contender, or its failure."""
    if name in result["failed"]:
        return {"failed": result["failed"][name]}
    runs = result["samples"][name]
    return {clock: summary([s[clock] for s in runs]) for clock in ("wall", "cpu")}


def ratio(result: Mapping[str, Any], ours: str, peer: str) -> dict[str, Any] | None:
    """``ours / peer`` for each clock: the median of the rounds' ratios, and the ratio of the
    minimums; ``None`` if either failed."""
    if ours in result["failed"] or peer in result["failed"]:
        return None
    mine, theirs = result["samples"][ours], result["samples"][peer]
    return {
        clock: {
            "median": statistics.median(a[clock] / b[clock] for a, b in zip(mine, theirs)),
            "min": min(a[clock] for a in mine) / min(b[clock] for b in theirs),
        }
        for clock in ("wall", "cpu")
    }
