"""The reference server's own limits, of a server in its own process: connections beyond the
bound answered 503 with Retry-After, a bound beyond the file limit and a second server on a held
state folder refused at start (the limits themselves: runtime/tests/unit/test_reference_limits.py).
"""

from __future__ import annotations

import http.client
import json
import socket

import pytest

from support import facts
from support.facts import NEWEST
from support.serving import ForkServer, Served


def path(session: str) -> str:
    return facts.path(NEWEST, session)


@pytest.fixture(scope="module")
def forks():
    with ForkServer(NEWEST) as running:
        yield running


def refused_at_once(server) -> tuple[int, dict[str, str], dict]:
    """What a new connection reads without sending a byte, until the server closes it."""
    with socket.create_connection((server.host, server.port), timeout=30) as sock:
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    head, _, payload = b"".join(chunks).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split(" ")[1]), headers, json.loads(payload)


def test_connections_beyond_the_bound_are_answered_503_with_retry_after(forks):
    with forks.start("--max-connections", "3") as server:
        held = [server.connection() for _ in range(3)]
        for connection in held:  # answered, so counted by the server
            assert (
                server.request("POST", path("held"), server.required_body(), connection=connection)[
                    0
                ]
                == 200
            )
        status, headers, problem = refused_at_once(server)
        assert status == 503 and headers["retry-after"] == "1"
        assert headers["x-should-retry"] == "true" and headers["connection"] == "close"
        assert "--max-connections" in problem["error"]["message"]
        client = server.connection()  # a client that sends its request first reads the same
        client.request("POST", path("held"), b"{}", facts.required_headers(NEWEST))
        response = client.getresponse()
        assert response.status == 503 and response.getheader("Retry-After") == "1"
        client.close()
        held.pop().close()
        for _ in range(1000):  # once the server has seen one close, a new one is served
            try:
                status = server.request("POST", path("held"), server.required_body())[0]
            except (ConnectionError, http.client.HTTPException):
                continue
            if status == 200:
                break
            assert status == 503
        assert status == 200
        for connection in held:  # the connections served all along still are
            assert (
                server.request("POST", path("held"), server.required_body(), connection=connection)[
                    0
                ]
                == 200
            )


def test_more_connections_than_the_file_limit_allows_refuse_to_start():
    server = Served(NEWEST, "--max-connections", "100000000", wait=False)
    assert server.process.wait(timeout=120) == 2
    assert "--max-connections 100000000 is more than the file limit" in server.stop()


def test_a_second_server_on_a_held_state_folder_refuses_to_start(forks, tmp_path):
    with forks.start("--state-dir", str(tmp_path)) as first:
        second = Served(NEWEST, "--state-dir", str(tmp_path), wait=False)
        assert second.process.wait(timeout=120) == 1
        log = second.stop()
        assert f"the state folder {tmp_path} is in use by another server (pid {first.pid})" in log
        assert first.request("POST", path("still"), first.required_body())[0] == 200
