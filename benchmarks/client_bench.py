"""Client overhead per call on loopback: the generated client, raw httpx posting the same JSON,
and the official ``together`` SDK, against one fixed-response server in another process."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from timing import Sample, ratio, rounds as timing_rounds, run_call, times

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


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
