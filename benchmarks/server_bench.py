"""The reference server against the one before it (``http.server``, a whole-state save after every
step; the runtime of commit ``a0566c3``), each a process of its own serving the newest revision's
package, with and without a state folder.

- latency: kept-alive POSTs of a step, a new session each round;
- age: the cost of a step at about 10 steps and at about 10,000 (a soak: our server is driven
  there over HTTP; the server before would take over an hour to get there, since its save grows
  with every step, so its session is the state file it would have written at that step, made in
  process by the same LocalSession).

Figures per call: wall time seen by the client (the server's answer time on loopback) and the
server process's CPU time (from /proc). Contenders run in turn, round after round, the order
rotating; ratios are paired by round.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from timing import Sample, ratio, rounds as timing_rounds, times

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
REVISION = "f4885bc38424"
PACKAGE = ROOT / "generated" / REVISION
BEFORE = "a0566c3"
SESSION_PATH = "/v1/rl/training-sessions/{}/operations/optim-step"
BODY = json.dumps({"adam_params": {"learning_rate": 1e-4}}).encode()
HEADERS = {"Content-Type": "application/json", "Authorization": "Bearer k"}
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class Server:
    """One server process and a kept-alive connection to it."""

    def __init__(self, *args: str, runtime: Path | None = None) -> None:
        env = {k: v for k, v in os.environ.items() if k != "TOGETHER_API_KEY"}
        env["OMP_NUM_THREADS"] = "1"
        if runtime is not None:  # the runtime before, ahead of the installed one
            env["PYTHONPATH"] = str(runtime)
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "together_rl.reference.serve", "--port", "0", *args],
            cwd=PACKAGE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        banner = self.process.stdout.readline()
        match = re.search(r"http://([\d.]+):(\d+)", banner)
        if match is None:
            self.process.kill()
            raise RuntimeError(f"the server did not start: {banner!r}")
        self.host, self.port = match.group(1), int(match.group(2))
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=600)

    def post(self, session: str) -> None:
        try:
            self.connection.request(
                "POST", SESSION_PATH.format(session), body=BODY, headers=HEADERS
            )
        except (BrokenPipeError, ConnectionResetError):  # closed while idle: connect again
            self.connection.close()
            self.connection.request(
                "POST", SESSION_PATH.format(session), body=BODY, headers=HEADERS
            )
        response = self.connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{response.status}: {data[:200]!r}")

    def cpu(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK

    def batch(self, session: str, calls: int) -> Sample:
        """``calls`` POSTs to ``session``; per call, wall and the server's CPU."""
        wall, cpu = time.perf_counter(), self.cpu()
        for _ in range(calls):
            self.post(session)
        return {
            "wall": (time.perf_counter() - wall) / calls,
            "cpu": (self.cpu() - cpu) / calls,
        }

    def stop(self) -> None:
        self.connection.close()
        self.process.terminate()
        self.process.wait(timeout=60)
        self.log.close()


def _runtime_before(folder: Path) -> Path:
    """The runtime of commit BEFORE, extracted into ``folder``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", BEFORE, "runtime/together_rl_runtime"],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "runtime"


def _state_before(state_dir: Path, session: str, steps: int) -> None:
    """The file the server before writes for ``session`` after ``steps`` steps without keys."""
    sys.path.insert(0, str(PACKAGE))
    import torch
    from together_rl.reference import LocalSession

    from together_rl_runtime.reference.serve import demo_model

    model, loss = demo_model(0)
    local = LocalSession(model, "adam", rollback=True)
    for _ in range(steps):
        local.optim_step(
            {"adam_params": {"learning_rate": 1e-4}},
            gradients=lambda: torch.autograd.backward(loss()),
        )
    state = {"revision": REVISION, "session_id": session, "state": local.state_dict()}
    name = hashlib.sha256(session.encode()).hexdigest()[:32] + ".pt"
    torch.save(state, state_dir / name)


def run(
    calls: int = 50, rounds: int = 15, old: int = 10_000, age_calls: int = 20
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        before = _runtime_before(work)
        for name in ("ours", "before"):
            (work / f"state-{name}").mkdir()
        _state_before(work / "state-before", "old", old)
        servers = {
            "ours": Server(),
            "ours, state dir": Server("--state-dir", str(work / "state-ours")),
            "before": Server(runtime=before),
            "before, state dir": Server("--state-dir", str(work / "state-before"), runtime=before),
        }
        try:
            latency = _latency(servers, calls, rounds)
            age = _age(servers, old, age_calls, rounds)
        finally:
            for server in servers.values():
                server.stop()
    return {"before": BEFORE, "revision": REVISION, "latency": latency, "age": age}


def _latency(servers: dict[str, Server], calls: int, rounds: int) -> dict[str, Any]:
    counter = {name: 0 for name in servers}

    def contender(name: str) -> Callable[[], Sample]:
        def one_round() -> Sample:
            counter[name] += 1
            return servers[name].batch(f"latency-{counter[name]}", calls)

        return one_round

    result = timing_rounds({name: contender(name) for name in servers}, rounds, warmup=1)
    pairs = {
        "ours / before, no state dir": ("ours", "before"),
        "ours / before, state dir": ("ours, state dir", "before, state dir"),
        "ours: state dir / none": ("ours, state dir", "ours"),
        "before: state dir / none": ("before, state dir", "before"),
    }
    return {
        "calls_per_round": calls,
        "rounds": rounds,
        "times": {name: times(result, name) for name in servers},
        "ratios": {label: ratio(result, *pair) for label, pair in pairs.items()},
    }


def _age(servers: dict[str, Server], old: int, calls: int, rounds: int) -> dict[str, Any]:
    ours, theirs = servers["ours, state dir"], servers["before, state dir"]
    soak = time.perf_counter()
    for _ in range(old):  # the soak: our session driven to `old` steps over HTTP
        ours.post("old")
    soak = time.perf_counter() - soak
    theirs.connection.close()  # idle through the soak: the server may have closed it
    theirs.post("old")  # the server before loads its file of `old` steps
    young = {"ours": 0, "before": 0}

    def at_young(name: str, server: Server) -> Callable[[], Sample]:
        def one_round() -> Sample:
            young[name] += 1
            session = f"young-{young[name]}"
            server.batch(session, 10)  # to step 10, untimed
            return server.batch(session, calls)

        return one_round

    def at_old(server: Server) -> Callable[[], Sample]:
        return lambda: server.batch("old", calls)

    contenders = {
        "ours at 10": at_young("ours", ours),
        f"ours at {old:,}": at_old(ours),
        "before at 10": at_young("before", theirs),
        f"before at {old:,}": at_old(theirs),
    }
    result = timing_rounds(contenders, rounds, warmup=0)
    return {
        "young": 10,
        "old": old,
        "calls_per_round": calls,
        "rounds": rounds,
        "soak_seconds": soak,
        "times": {name: times(result, name) for name in contenders},
        "ratios": {
            f"ours: at {old:,} / at 10": ratio(result, f"ours at {old:,}", "ours at 10"),
            f"before: at {old:,} / at 10": ratio(result, f"before at {old:,}", "before at 10"),
            f"at {old:,}: ours / before": ratio(result, f"ours at {old:,}", f"before at {old:,}"),
            "at 10: ours / before": ratio(result, "ours at 10", "before at 10"),
        },
    }


if __name__ == "__main__":
    print(json.dumps(run(calls=20, rounds=3, old=500), indent=2))
