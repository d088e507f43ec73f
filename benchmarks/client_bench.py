"""Client overhead per call on loopback: the generated client, raw httpx posting the same JSON,
and the official ``together`` SDK, against one fixed-response server in another process."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from timing import Measurement

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
    server = subprocess.Popen(
        [sys.executable, str(HERE / "fixed_server.py")], stdout=subprocess.PIPE, text=True
    )
    try:
        url = f"http://127.0.0.1:{server.stdout.readline().strip()}"
        contenders = _contenders(url)
        for call, _ in contenders.values():  # warm up connections, imports and caches
            for _ in range(50):
                call()
        per_call: dict[str, list[float]] = {name: [] for name in contenders}
        for _ in range(rounds):  # round robin, so that background load hits all alike
            for name, (call, _) in contenders.items():
                start = time.perf_counter()
                for _ in range(calls):
                    call()
                per_call[name].append((time.perf_counter() - start) / calls)
        for _, close in contenders.values():
            close()
    finally:
        server.terminate()
        server.wait()
    results = {name: Measurement.of(samples).to_dict() for name, samples in per_call.items()}
    raw = results["raw httpx"]["median"]
    ratios = {name: r["median"] / raw for name, r in results.items()}
    return {
        "calls_per_round": calls,
        "rounds": rounds,
        "body": BODY,
        "results": results,
        "ratio_to_raw_httpx": ratios,
        "versions": {name: _version(name) for name in ("httpx", "together")},
    }


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
