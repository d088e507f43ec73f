"""``generate --spec`` on one document: the public corpus against the peers, and synthetic
documents of growing size, for the scaling of time and memory. Every run is a fresh process with
an empty cache (the worst case: black and the compiled templates start cold), timed by the wall
clock and by CPU time (the process and its workers), with the peak memory of the whole process
tree (the generator, its validator and formatting workers and the smoke import: the sum of their
proportional set sizes), sampled from ``/proc`` every 20 ms."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from generator_bench import CORPUS, _peer_commands
from synthetic import synthetic_spec
from timing import Failed, Sample, _children_cpu, ratio, rounds, times

from generator.reading.loader import load_yaml

SIZES = (1000, 2500, 5000, 10000, 20000)
PEER_SIZES = (1000,)  # openapi-python-client takes about 40 s at 5,000 schemas: left out beyond
REAL_WORLD = CORPUS.parent / "real-world"
REAL_WORLD_NEXT = CORPUS.parent / "real-world-next"
GITHUB_PACKAGE = "@octokit/openapi@23.0.2"  # npm: GitHub's REST API description, 13 MB of JSON
GITHUB_DOCUMENT = "package/generated/api.github.com.json"
GITHUB_ROUNDS = 2  # a cold run of either generator takes tens of seconds on this document
WORK_ENV = "BENCH_WORK"
"""The environment variable naming a folder the benchmarks keep downloads in between runs
(``nox -s bench`` sets it to the session's own); the system's temporary folder otherwise."""


def _tree_memory(root: int) -> int:
    """The memory of ``root`` and its descendants, in bytes (0 where it is gone): the sum of
    their proportional set sizes, which share a page that several processes map (a forked
    worker's, say) among them rather than count it in each; the resident set where the kernel
    does not give the proportional one."""
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            total += _memory_of(pid)
        except OSError:
            continue
        todo += [int(child) for child in children]
    return total


def _memory_of(pid: int) -> int:
    for name, field in (("smaps_rollup", "Pss:"), ("status", "VmRSS:")):
        try:
            text = Path(f"/proc/{pid}/{name}").read_text()
        except FileNotFoundError:
            continue
        for line in text.splitlines():
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    return 0


def run_measured(command: Sequence[str], timeout: float, env: dict[str, str]) -> Sample:
    """Run ``command``: wall and CPU time as :func:`timing.run_commands`, and ``peak_rss``, the
    peak of :func:`_tree_memory`."""
    wall, cpu = time.perf_counter(), _children_cpu()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
    )
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], _tree_memory(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise Failed(f"timed out after {timeout:.0f} s") from None
    finally:
        done.set()
        sampler.join()
    if process.returncode != 0:
        lines = stderr.strip().splitlines() or ["no output"]
        raise Failed(f"exit {process.returncode}: {lines[-1][:200]}")
    return {
        "wall": time.perf_counter() - wall,
        "cpu": _children_cpu() - cpu,
        "peak_rss": float(peak[0]),
    }


def _ours(spec: Path, out: Path, cache: Path | None = None) -> Callable[[], Sample]:
    """Our ``generate --spec`` of ``spec``: with an empty cache each run, or with ``cache`` (kept
    from run to run: the untimed first round fills it)."""

    def run() -> Sample:
        if cache is None:
            folder = Path(tempfile.mkdtemp(dir=out, prefix="cache-"))
        else:
            folder = cache
        target = Path(tempfile.mkdtemp(dir=out, prefix="ours-")) / "package"
        command = [sys.executable, "-m", "generator", "generate", "--spec", str(spec)]
        env = {**os.environ, "TOGETHER_RL_CODEGEN_CACHE": str(folder)}
        return run_measured([*command, "--out", str(target)], 900, env)

    return run


def _peer(name: str, spec: Path, out: Path) -> Callable[[], Sample]:
    return lambda: run_measured(_peer_commands(spec, out)[name], 900, dict(os.environ))


def _memory(result: dict[str, Any], name: str) -> float | None:
    samples = result["samples"].get(name) or []
    return max((s["peak_rss"] for s in samples), default=None)


def corpus(repeat: int) -> dict[str, Any]:
    if not CORPUS.is_file():
        return {"skipped": f"{CORPUS} not found"}
    peers = ("openapi-python-client", "datamodel-code-generator")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        contenders = {"ours": _ours(CORPUS, out)}
        contenders.update({name: _peer(name, CORPUS, out) for name in peers})
        result = rounds(contenders, repeat)
    return {
        "rounds": repeat,
        "times": {name: times(result, name) for name in contenders},
        "peak_rss": {name: _memory(result, name) for name in contenders},
        "ratios": {name: ratio(result, "ours", name) for name in peers},
    }


def _documents() -> list[Path]:
    """The real-world sample and the documents the generator is to read next (each file of
    their folders that describes an API: not one that only holds schemas for others to refer
    to), and the public document."""
    found = []
    for folder in (REAL_WORLD, REAL_WORLD_NEXT):
        if folder.is_dir():
            files = sorted(folder.rglob("*.yaml")) + sorted(folder.rglob("*.json"))
            found += [path for path in files if "paths" in (load_yaml(path) or {})]
    return found + ([CORPUS] if CORPUS.is_file() else [])


def github_document() -> Path | None:
    """GitHub's REST API document from the npm package (pinned), unpacked once into the work
    folder (see ``WORK_ENV``); ``None`` where npm or the registry cannot be reached."""
    work = Path(os.environ.get(WORK_ENV) or Path(tempfile.gettempdir()) / "together-rl-bench")
    folder = work / GITHUB_PACKAGE.replace("/", "+")
    document = folder / GITHUB_DOCUMENT
    if document.is_file():
        return document
    folder.mkdir(parents=True, exist_ok=True)
    try:
        packed = subprocess.run(
            ["npm", "pack", GITHUB_PACKAGE, "--pack-destination", str(folder)],
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        ).stdout.split()[-1]
        member = GITHUB_DOCUMENT
        subprocess.run(["tar", "-xzf", str(folder / packed), "-C", str(folder), member], check=True)
    except (OSError, IndexError, subprocess.SubprocessError):
        return None
    return document if document.is_file() else None


def _row(spec: Path, out: Path, repeat: int, label: str | None = None) -> dict[str, Any]:
    """Ours with an empty cache and with a warm one against openapi-python-client on ``spec``,
    paired and interleaved."""
    contenders = {
        "ours, empty cache": _ours(spec, out),
        "ours, warm cache": _ours(spec, out, cache=out / f"cache-{spec.parent.name}-{spec.stem}"),
        "openapi-python-client": _peer("openapi-python-client", spec, out),
    }
    result = rounds(contenders, repeat)
    print(f"  generate --spec, {label or spec.name}", flush=True)
    return {
        "document": label or spec.name,
        "folder": spec.parent.name,
        "bytes": spec.stat().st_size,
        "rounds": repeat,
        "times": {name: times(result, name) for name in contenders},
        "ratios": {
            name: ratio(result, name, "openapi-python-client")
            for name in ("ours, empty cache", "ours, warm cache")
        },
    }


def real_world(repeat: int, github_rounds: int = GITHUB_ROUNDS) -> dict[str, Any]:
    """Every real-world document (:func:`_documents`) and GitHub's (:func:`github_row`,
    ``github_rounds`` rounds; none: left out), ours with an empty cache and with a warm one,
    against openapi-python-client, paired and interleaved."""
    _tools_on_path()
    documents = _documents()
    if not documents:
        return {"skipped": f"{REAL_WORLD} not found"}
    with tempfile.TemporaryDirectory() as scratch:
        rows = [_row(spec, Path(scratch), repeat) for spec in documents]
    if github_rounds:
        rows.append(github_row(github_rounds))
    return {"rounds": repeat, "rows": rows}


def github_row(repeat: int) -> dict[str, Any]:
    """:func:`real_world`'s row of GitHub's document (:func:`github_document`)."""
    _tools_on_path()
    document = github_document()
    if document is None:
        return {"document": GITHUB_PACKAGE, "skipped": "npm pack failed"}
    with tempfile.TemporaryDirectory() as scratch:
        row = _row(document, Path(scratch), repeat, f"{GITHUB_PACKAGE} {document.name}")
    return {**row, "folder": "npm"}


def scaling(repeat: int, sizes: Sequence[int]) -> dict[str, Any]:
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        for size in sizes:
            spec = out / f"synthetic-{size}.json"
            spec.write_text(json.dumps(synthetic_spec(size)))
            contenders = {"ours": _ours(spec, out)}
            if size in PEER_SIZES:
                contenders["openapi-python-client"] = _peer("openapi-python-client", spec, out)
            result = rounds(contenders, repeat if size <= 5000 else max(2, repeat // 2))
            rows.append(
                {
                    "schemas": size,
                    "times": {name: times(result, name) for name in contenders},
                    "peak_rss": {name: _memory(result, name) for name in contenders},
                    "ratio": (
                        ratio(result, "ours", "openapi-python-client")
                        if size in PEER_SIZES
                        else None
                    ),
                }
            )
            print(f"  generate --spec, {size} schemas", flush=True)
    return {"rows": rows}


def _tools_on_path() -> None:
    """This environment's tools first on ``PATH`` (openapi-python-client runs ruff from it)."""
    here = str(Path(sys.executable).parent)
    if os.environ.get("PATH", "").split(os.pathsep)[0] != here:
        os.environ["PATH"] = f"{here}{os.pathsep}{os.environ.get('PATH', '')}"


def run(repeat: int = 5, quick: bool = False) -> dict[str, Any]:
    _tools_on_path()
    started = time.perf_counter()
    result = {
        "corpus": corpus(2 if quick else repeat),
        "real_world": real_world(
            2 if quick else repeat, github_rounds=0 if quick else GITHUB_ROUNDS
        ),
        "scaling": scaling(2 if quick else repeat, (500, 1000) if quick else SIZES),
    }
    result["seconds"] = time.perf_counter() - started
    return result
