"""The reference server as an HTTP/1.1 server under hostile input and load: strict framing, each
refusal answered in the API's JSON format (never HTML, never a dropped connection), slow senders
cut off without starving others, and a hundred clients at once."""

from __future__ import annotations

import asyncio
import json
import select
import socket

import pytest

from support import facts
from support.facts import NEWEST
from support.packages import load
from support.serving import ForkServer

PATH = facts.path(NEWEST, "framing")


def required_headers() -> str:
    """The lines of the headers the served operation requires (a new idempotency key each call)."""
    return "".join(f"{k}: {v}\r\n" for k, v in facts.required_headers(NEWEST).items())


@pytest.fixture(scope="module")
def forks():
    with ForkServer(NEWEST) as running:
        yield running


@pytest.fixture(scope="module")
def served(forks):
    with forks.start() as server:
        yield server


def exchange(served, data: bytes, timeout: float = 10) -> bytes:
    """Send ``data`` on a new connection and read until the server closes it."""
    with socket.create_connection((served.host, served.port), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def answer(raw: bytes) -> tuple[int, dict[str, str], dict]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split(" ")[1]), headers, json.loads(body)


def post(head: str, body: bytes = b"") -> bytes:
    return f"POST {PATH} HTTP/1.1\r\nHost: x\r\n{required_headers()}{head}\r\n".encode() + body


CHUNKS = b"".join(b"10000\r\n" + b"a" * 65536 + b"\r\n" for _ in range(20))

FRAMING = {
    "negative chunk size": (post("Transfer-Encoding: chunked\r\n", b"-1\r\nzz\r\n"), 400),
    "non-hex chunk size": (post("Transfer-Encoding: chunked\r\n", b"\xd9\xa3\r\nzz\r\n"), 400),
    "non-ASCII digit in Content-Length": (post("Content-Length: \xb2\r\n", b"{}"), 400),
    "negative Content-Length": (post("Content-Length: -1\r\n", b"{}"), 400),
    "two different Content-Lengths": (
        post("Content-Length: 2\r\nContent-Length: 3\r\n", b"{} "),
        400,
    ),
    "Content-Length and Transfer-Encoding": (
        post("Content-Length: 2\r\nTransfer-Encoding: chunked\r\n", b"2\r\n{}\r\n0\r\n\r\n"),
        400,
    ),
    "not HTTP": (b"HELLO\r\n\r\n", 400),
    "Content-Length over the limit": (post("Content-Length: 99999999\r\n", b"zz"), 413),
    "chunks over the limit": (post("Transfer-Encoding: chunked\r\n", CHUNKS), 413),
    "a URL over 8 KiB": (f"GET {PATH}/{'a' * 9000} HTTP/1.1\r\nHost: x\r\n\r\n".encode(), 414),
    "headers over 16 KiB": (post(f"X-Big: {'a' * 20000}\r\nContent-Length: 2\r\n", b"{}"), 431),
    "headers over 16 KiB, not ended": (post(f"X-Big: {'a' * 20000}"), 431),
    "a transfer coding other than chunked": (post("Transfer-Encoding: gzip\r\n"), 501),
}


@pytest.mark.parametrize("case", FRAMING)
def test_malformed_framing_is_answered_in_json_and_the_connection_closed(served, case):
    data, status = FRAMING[case]
    got, headers, payload = answer(exchange(served, data))
    assert got == status, payload
    assert headers["content-type"] == "application/json"
    assert headers["connection"] == "close"
    assert payload["error"]["type"] == "invalid_request_error"
    assert payload["error"]["message"] and "<" not in payload["error"]["message"]


def test_a_chunked_body_within_the_limit_is_read(served):
    data = json.dumps(facts.required_body(NEWEST)).encode()
    body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data)
    got, _, operation = answer(
        exchange(served, post("Transfer-Encoding: chunked\r\nConnection: close\r\n", body))
    )
    assert got == 200 and operation["output"]["step"] == facts.step(NEWEST, 1)


def test_percent_encodings_that_are_not_utf8_name_no_session(served):
    """``%ff`` and ``%fe`` once decoded to the same replacement character: one session."""
    for name in ("%ff", "%fe"):
        status, problem = served.request("POST", facts.path(NEWEST, name), {})
        assert status == 400 and "not UTF-8" in problem["error"]["message"]
    status, _ = served.request("GET", facts.path(NEWEST, "%ff") + "/op")
    assert status == 400


def test_slow_senders_are_cut_off_and_do_not_starve_others(forks):
    """200 connections sending a request's head a byte at a time are each answered 408 (the
    deadline is on the whole request: a byte does not extend it), and a normal client on its own
    kept-alive connection is answered while they are held open.

    Judged by what happens, not by when: every slow connection gets a byte each round until it
    is answered, and the rounds are bounded by count (``TRICKLE``, many times what a 1 s
    deadline needs at this pace: only a server that never cuts them off reaches it); the normal
    client asks once a round, and an answer counts as served beside them when some slow
    connections still have none once it came."""
    with forks.start("--read-timeout", "1") as server:
        connection = server.connection()

        def normal() -> int:
            status, _ = server.request(
                "POST", facts.path(NEWEST, "normal"), {}, connection=connection
            )
            return status

        assert normal() == 200
        slow = [
            socket.create_connection((server.host, server.port), timeout=10) for _ in range(200)
        ]
        for sock in slow:
            sock.sendall(f"POST {PATH} HTTP/1.1\r\nHost: x\r\nX-Slow: ".encode())
        answered: list[socket.socket] = []
        statuses: list[int] = []  # the normal client's, while slow connections are held
        beside = 0  # the normal answers that came while some slow connections had none
        for _ in range(TRICKLE):
            waiting = [s for s in slow if s not in answered]
            if not waiting:
                break
            readable, _, _ = select.select(waiting, [], [], 0.05)
            answered += readable
            for sock in waiting:
                if sock not in readable:
                    try:
                        sock.send(b"a")
                    except OSError:  # closed by the server before its answer was read
                        answered.append(sock)
            if len(statuses) < 20:
                statuses.append(normal())
                held = [s for s in slow if s not in answered]
                beside += len(select.select(held, [], [], 0)[0]) < len(held)
        replies = [sock.recv(65536) for sock in answered]
        after = normal()
        for sock in slow:
            sock.close()
        connection.close()
    assert len(answered) == 200, f"{200 - len(answered)} slow senders were never cut off"
    assert all(reply.startswith(b"HTTP/1.1 408 ") for reply in replies), replies[0]
    assert b'"invalid_request_error"' in replies[0]
    assert set(statuses) == {200} and beside > 0, (statuses, beside)
    assert after == 200


TRICKLE = 2000
"""The most rounds of a byte to every slow sender (a round waits at most 0.05 s for answers)."""


def test_a_hundred_concurrent_async_calls_all_succeed(forks):
    pkg = load(NEWEST)
    arguments = {**facts.required_body(NEWEST), **facts.required_arguments(NEWEST)}
    with forks.start() as server:

        async def run():
            async with pkg.AsyncClient(api_key="k", base_url=server.url, max_retries=0) as client:
                return await asyncio.gather(
                    *(client.optim_step("crowd", **arguments) for _ in range(100))
                )

        operations = asyncio.run(run())
    assert sorted(int(op.output.step) for op in operations) == list(range(1, 101))
