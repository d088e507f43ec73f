"""``python -m together_rl.reference.serve`` of a generated package, in its own process."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from support.packages import GENERATED


class Served:
    """A running server; ``url`` is its address, ``stop()`` ends it."""

    def __init__(
        self,
        revision: str,
        *args: str,
        env: dict[str, str] | None = None,
        root: Path = GENERATED,
        wait: bool = True,
    ) -> None:
        environment = {k: v for k, v in os.environ.items() if k != "TOGETHER_API_KEY"}
        environment.update(env or {})
        self.log_file = tempfile.TemporaryFile(mode="w+")  # a pipe would fill and stall it
        self.process = subprocess.Popen(
            [sys.executable, "-m", "together_rl.reference.serve", "--port", "0", *args],
            cwd=root / revision,
            stdout=subprocess.PIPE,
            stderr=self.log_file,
            text=True,
            env=environment,
        )
        self.revision = revision
        self.required = _required_headers(revision, root)
        self.required_body = _required_body(revision, root)
        if wait:
            self.ready()

    def ready(self) -> Served:
        """Wait for the server to listen (for one started with ``wait=False``)."""
        self.banner = self.process.stdout.readline()
        match = re.search(r"http://([\d.]+):(\d+)", self.banner)
        if match is None:
            self.process.kill()
            raise AssertionError(self.banner + self.stop())
        self.host, self.port = match.group(1), int(match.group(2))
        self.url = match.group(0)
        return self

    def stop(self) -> str:
        """End the server; its log."""
        self.process.terminate()
        self.process.communicate(timeout=10)
        self.log_file.seek(0)
        log = self.log_file.read()
        self.log_file.close()
        return log

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection(self.host, self.port, timeout=10)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        connection: http.client.HTTPConnection | None = None,
    ) -> tuple[int, Any]:
        """One request (on ``connection`` where given, kept open); the status and JSON body. A
        POST carries the headers the revision requires (a new idempotency key each) unless
        ``headers`` gives them."""
        own = connection is None
        connection = connection or self.connection()
        data = None if body is None else json.dumps(body).encode()
        required = self.required() if method == "POST" else {}
        given = {name.lower() for name in headers or {}}
        required = {k: v for k, v in required.items() if k.lower() not in given}
        sent = {"Content-Type": "application/json", **required, **(headers or {})}
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        payload = json.loads(response.read() or b"null")
        if own:
            connection.close()
        return response.status, payload


class ForkServer:
    """A process that has imported a revision's reference server and forks a new server on each
    :meth:`start` (``tests/support/forkserve.py``): for tests that kill servers and start others."""

    def __init__(
        self, revision: str, env: dict[str, str] | None = None, root: Path = GENERATED
    ) -> None:
        environment = {k: v for k, v in os.environ.items() if k != "TOGETHER_API_KEY"}
        environment.update(env or {})
        tests = str(Path(__file__).resolve().parents[1])  # where `support` is
        environment["PYTHONPATH"] = os.pathsep.join(
            p for p in (tests, environment.get("PYTHONPATH")) if p
        )
        self.log_file = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "support.forkserve"],
            cwd=root / revision,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log_file,
            text=True,
            env=environment,
        )
        self.revision = revision
        self.root = root

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, *args: str) -> Forked:
        """A new server (``--port 0`` unless ``args`` say otherwise), listening."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("\0".join(["--port", "0", *args]) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line.startswith("pid "):
            raise AssertionError(line + self.close())
        forked = Forked(self.revision, int(line.split()[1]), self.root)
        forked.banner = self.process.stdout.readline()
        match = re.search(r"http://([\d.]+):(\d+)", forked.banner)
        if match is None:
            raise AssertionError(forked.banner + self.close())
        forked.host, forked.port = match.group(1), int(match.group(2))
        forked.url = match.group(0)
        return forked

    def close(self) -> str:
        """End the forking process (the servers it started end by themselves, or are killed);
        the log of all of them."""
        self.process.terminate()
        self.process.communicate(timeout=10)
        self.log_file.seek(0)
        log = self.log_file.read()
        self.log_file.close()
        return log


class Forked(Served):
    """A server that :class:`ForkServer` started (``with`` stops it)."""

    def __init__(self, revision: str, pid: int, root: Path = GENERATED) -> None:
        # not Served.__init__, which starts a process: this one runs already
        self.revision = revision
        self.pid = pid
        self.required = _required_headers(revision, root)
        self.required_body = _required_body(revision, root)

    def kill(self) -> None:
        """SIGKILL: no shutdown at all."""
        os.kill(self.pid, signal.SIGKILL)
        self._gone()

    def stop(self) -> str:
        """SIGTERM, and wait until it has ended (its log is the fork server's)."""
        os.kill(self.pid, signal.SIGTERM)
        self._gone()
        return ""

    def _gone(self, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                os.kill(self.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.01)
        raise AssertionError(f"server {self.pid} did not end")


def _facts_of(revision: str, root: Path) -> Any:
    """The facts of the spec folder beside ``root`` (a project's ``generated/``) where its index
    has the revision, else ``None`` (a package generated from a document alone)."""
    from support import facts

    if root == GENERATED:
        return facts.PROJECT if revision in facts.IDS else None
    spec = root.parent / "spec"
    if not (spec / "revisions.yaml").is_file():
        return None
    known = facts.of(spec)
    return known if revision in known.ids else None


def _required_body(revision: str, root: Path) -> Any:
    """What makes a body that sets nothing but what the revision requires (``{}`` for a package
    outside an index of revisions)."""
    known = _facts_of(revision, root)
    return dict if known is None else (lambda: known.required_body(revision))


def _required_headers(revision: str, root: Path) -> Any:
    """What makes the headers a POST of the revision requires (none for a package outside an
    index of revisions)."""
    known = _facts_of(revision, root)
    return dict if known is None else (lambda: known.required_headers(revision))
