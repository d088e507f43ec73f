"""Client overhead per call on loopback: the generated client, raw httpx posting the same JSON,
and the official ``together`` SDK, against one fixed-response server in another process; and
(:func:`run_concurrent`) many concurrent async calls against the reference server: the generated
``AsyncClient``, the SDK's ``AsyncTogether`` and a minimal asyncio HTTP/1.1 client on raw
sockets."""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import re
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import report
from server_bench import SESSION_PATH, Server
from timing import Sample, ratio, rounds as timing_rounds, run_call, summary, times

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent / "generated" / "f4885bc38424"
BODY = {"adam_params": {"learning_rate": 1e-4}}
SESSION = "session-1"


def _contenders(url: str) -> dict[str, tuple[Callable[[], Any], Callable[[], None]]]:
    sys.path.insert(0, str(PACKAGE))
    import together_rl

    ours = together_rl.Client(api_key="k", base_url=url + "/v1", max_retries=0)
    raw = httpx.Client(timeout=60)
    headers = {"Authorization": "Bearer k", "Accept": "application/json"}
    path = f"{url}/v1/rl/training-sessions/{SESSION}/operations/optim-step"

    def call_raw() -> Any:
        response = raw.post(path, json=BODY, headers=headers)
        response.raise_for_status()
        return response.json()

    contenders: dict[str, tuple[Callable[[], Any], Callable[[], None]]] = {
        "raw httpx": (call_raw, raw.close),
        "generated client": (
            lambda: ours.optim_step(SESSION, adam_params=BODY["adam_params"]),
            ours.close,
        ),
    }
    try:
        from together import Together
    except ImportError:
        return contenders
    sdk = Together(api_key="k", base_url=url, max_retries=0)
    operations = sdk.post_training.operations

    def call_sdk() -> Any:
        return operations.optim_step(
            SESSION, idempotency_key=uuid.uuid4().hex, adam_params=BODY["adam_params"]
        )

    contenders["together SDK 3.1.1"] = (call_sdk, sdk.close)
    return contenders


def run(calls: int = 200, rounds: int = 15) -> dict[str, Any]:
    """Each round runs ``calls`` calls of every contender in turn (the order rotating); figures
    per call, wall and CPU (this process: the client's own work), ratios paired by round."""
    server = subprocess.Popen(
        [sys.executable, str(HERE / "fixed_server.py")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        url = f"http://127.0.0.1:{server.stdout.readline().strip()}"
        contenders = _contenders(url)
        for call, _ in contenders.values():  # warm up connections, imports and caches
            for _ in range(50):
                call()

        def batch(call: Callable[[], Any]) -> Callable[[], Sample]:
            def run_batch() -> Sample:
                sample = run_call(lambda: [call() for _ in range(calls)])
                return {clock: value / calls for clock, value in sample.items()}

            return run_batch

        result = timing_rounds({n: batch(c) for n, (c, _) in contenders.items()}, rounds, warmup=0)
        for _, close in contenders.values():
            close()
    finally:
        server.terminate()
        server.wait()
    return {
        "calls_per_round": calls,
        "rounds": rounds,
        "body": BODY,
        "times": {name: times(result, name) for name in contenders},
        "ratio_to_raw_httpx": {
            name: ratio(result, name, "raw httpx") for name in contenders if name != "raw httpx"
        },
        "versions": {name: _version(name) for name in ("httpx", "together")},
    }


RAW_CONNECTIONS = 100
"""The raw-socket client's kept-alive connections: as many as the generated client's pool."""
CONCURRENT_FIGURES = ("per_second", "p99", "wall", "cpu", "server_cpu", "failures")


async def _raw_calls(host: str, port: int, sessions: list[str]) -> list[float | None]:
    """A minimal HTTP/1.1 client on raw sockets: one POST for each of ``sessions`` at once, over
    RAW_CONNECTIONS kept-alive connections; each call's seconds from the start (None: failed)."""
    body = json.dumps(BODY).encode()
    free: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()
    start = time.perf_counter()

    async def call(session: str) -> float | None:
        reader, writer = await free.get()
        try:
            writer.write(
                f"POST {SESSION_PATH.format(session)} HTTP/1.1\r\nHost: {host}\r\n"
                f"Content-Type: application/json\r\nAuthorization: Bearer k\r\n"
                f"Content-Length: {len(body)}\r\n\r\n".encode() + body
            )
            head = await reader.readuntil(b"\r\n\r\n")
            length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
            await reader.readexactly(int(length.group(1)) if length else 0)
            return time.perf_counter() - start if head.startswith(b"HTTP/1.1 200") else None
        finally:
            free.put_nowait((reader, writer))

    for _ in range(min(RAW_CONNECTIONS, len(sessions))):
        free.put_nowait(await asyncio.open_connection(host, port))
    try:
        return await asyncio.gather(*(call(session) for session in sessions))
    finally:
        while not free.empty():
            free.get_nowait()[1].close()


async def _timed(call: Callable[[str], Awaitable[object]], session: str, start: float) -> float:
    await call(session)
    return time.perf_counter() - start


def _concurrent_contenders(
    server: Server,
) -> dict[str, Callable[[list[str]], Awaitable[list[float | None]]]]:
    """Each contender: ``sessions`` (one call each) to seconds from the start for each call."""
    sys.path.insert(0, str(PACKAGE))
    import together_rl

    url = f"http://{server.host}:{server.port}"

    async def through(client: Any, call: Callable[[str], Awaitable[object]], sessions: list[str]):
        async with client:
            start = time.perf_counter()
            done = await asyncio.gather(
                *(_timed(call, s, start) for s in sessions), return_exceptions=True
            )
        return [None if isinstance(d, BaseException) else d for d in done]

    async def ours(sessions: list[str]) -> list[float | None]:
        client = together_rl.AsyncClient(api_key="k", base_url=url + "/v1", max_retries=0)
        return await through(
            client, lambda s: client.optim_step(s, adam_params=BODY["adam_params"]), sessions
        )

    async def raw(sessions: list[str]) -> list[float | None]:
        return await _raw_calls(server.host, server.port, sessions)

    contenders = {"generated AsyncClient": ours, "raw sockets": raw}
    try:
        from together import AsyncTogether
    except ImportError:
        return contenders

    async def sdk(sessions: list[str]) -> list[float | None]:
        client = AsyncTogether(api_key="k", base_url=url, max_retries=0)
        operations = client.post_training.operations
        return await through(
            client,
            lambda s: operations.optim_step(
                s, idempotency_key=uuid.uuid4().hex, adam_params=BODY["adam_params"]
            ),
            sessions,
        )

    contenders["together SDK 3.1.1 AsyncTogether"] = sdk
    return contenders


def run_concurrent(calls: int = 1000, rounds: int = 3, sessions: int = 10) -> dict[str, Any]:
    """Each round, every contender (the order rotating) makes ``calls`` optim-step calls at once
    to the reference server (another process), spread over ``sessions`` sessions new to the
    round; figures per round: calls per second, the 99th percentile of the calls' times from
    the start, wall, this process's CPU and the server's, failures; ratios to raw sockets are
    paired by round."""
    server = Server()
    try:
        contenders = _concurrent_contenders(server)
        counter = {name: 0 for name in contenders}

        def contender(name: str) -> Callable[[], Sample]:
            def one_round() -> Sample:
                counter[name] += 1
                ids = [f"{name[:3]}-{counter[name]}-{i % sessions}" for i in range(calls)]
                wall, cpu, server_cpu = time.perf_counter(), time.process_time(), server.cpu()
                seconds = asyncio.run(contenders[name](ids))
                wall = time.perf_counter() - wall
                done = sorted(s for s in seconds if s is not None)
                return {
                    "per_second": len(done) / wall,
                    "p99": done[max(0, round(0.99 * len(done)) - 1)] if done else float("nan"),
                    "wall": wall,
                    "cpu": time.process_time() - cpu,
                    "server_cpu": server.cpu() - server_cpu,
                    "failures": float(calls - len(done)),
                }

            return one_round

        for name, make in contenders.items():  # warm up imports, the server and its caches
            asyncio.run(make([f"warm-{name[:3]}-{i % sessions}" for i in range(50)]))
        result = timing_rounds({n: contender(n) for n in contenders}, rounds, warmup=0)
    finally:
        server.stop()
    samples = result["samples"]
    figures = {
        name: (
            {"failed": result["failed"][name]}
            if name in result["failed"]
            else {
                k: {**summary(values), "max": max(values)}
                for k in CONCURRENT_FIGURES
                for values in [[s[k] for s in samples[name]]]
            }
        )
        for name in contenders
    }
    raw = samples.get("raw sockets", [])
    to_raw = {
        name: {
            "median": statistics.median(
                a["per_second"] / b["per_second"] for a, b in zip(samples[name], raw)
            ),
            "best": max(a["per_second"] for a in samples[name]) / max(b["per_second"] for b in raw),
        }
        for name in contenders
        if name != "raw sockets" and samples.get(name) and raw
    }
    return {
        "machine": report.machine(),
        "calls": calls,
        "rounds": rounds,
        "sessions": sessions,
        "raw_connections": RAW_CONNECTIONS,
        "figures": figures,
        "throughput_to_raw": to_raw,
        "most_failures": {
            name: figures[name]["failures"]["max"] for name in samples if samples[name]
        },
        "versions": {name: _version(name) for name in ("httpx", "httpcore", "together")},
    }


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


if __name__ == "__main__":
    print(json.dumps(run_concurrent() if "concurrent" in sys.argv else run(), indent=2))
