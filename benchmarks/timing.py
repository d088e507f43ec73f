"""Timing helpers shared by the benchmarks: repeat, take the median, report the spread."""

from __future__ import annotations

import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Measurement:
    """Seconds per run: the median of ``runs`` repetitions and the interquartile range."""

    median: float
    q1: float
    q3: float
    runs: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Measurement:
        ordered = sorted(samples)
        if len(ordered) >= 4:
            q1, _, q3 = statistics.quantiles(ordered, n=4)
        else:
            q1, q3 = ordered[0], ordered[-1]
        return cls(statistics.median(ordered), q1, q3, len(ordered))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def measure(run: Callable[[], object], *, repeat: int, warmup: int = 1) -> Measurement:
    """Time ``run`` ``repeat`` times after ``warmup`` untimed runs."""
    for _ in range(warmup):
        run()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return Measurement.of(samples)


def measure_command(
    commands: Sequence[Sequence[str]], *, repeat: int, timeout: float
) -> Measurement | str:
    """Time running ``commands`` one after another; the failure's message if one fails."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for command in commands:
            try:
                result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return f"timed out after {timeout:.0f} s"
            if result.returncode != 0:
                lines = (result.stderr or result.stdout).strip().splitlines() or ["no output"]
                return f"exit {result.returncode}: {lines[-1][:200]}"
        samples.append(time.perf_counter() - start)
    return Measurement.of(samples)
