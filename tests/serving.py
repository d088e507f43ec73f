"""``python -m together_rl.reference.serve`` of a generated package, in its own process."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from packages import GENERATED


class Served:
    """A running server; ``url`` is its address, ``stop()`` ends it."""

    def __init__(
        self, revision: str, *args: str, env: dict[str, str] | None = None, root: Path = GENERATED
    ) -> None:
        environment = {k: v for k, v in os.environ.items() if k != "TOGETHER_API_KEY"}
        environment.update(env or {})
        self.process = subprocess.Popen(
            [sys.executable, "-m", "together_rl.reference.serve", "--port", "0", *args],
            cwd=root / revision,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        self.banner = self.process.stdout.readline()
        match = re.search(r"http://([\d.]+):(\d+)", self.banner)
        if match is None:
            self.process.kill()
            raise AssertionError(self.banner + self.process.stderr.read())
        self.host, self.port = match.group(1), int(match.group(2))
        self.url = match.group(0)

    def stop(self) -> str:
        """End the server; its log."""
        self.process.terminate()
        _, log = self.process.communicate(timeout=10)
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
        """One request (on ``connection`` where given, kept open); the status and JSON body."""
        own = connection is None
        connection = connection or self.connection()
        data = None if body is None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", **(headers or {})}
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        payload = json.loads(response.read() or b"null")
        if own:
            connection.close()
        return response.status, payload
