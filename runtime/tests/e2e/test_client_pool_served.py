"""The client's connection pool on the wire: many more concurrent calls than it has connections
all complete on the connections it keeps alive, against a real HTTP/1.1 server on loopback that
counts its connections and answers requests only in batches of the pool's size."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import together_rl_runtime as rt
from support.pooldemo import Answer, AsyncClient, Client

ANSWER = json.dumps({"ok": True}).encode()
EVENTS = b"data: 1\n\ndata: 2\n\n"
GUARD = 120.0
"""Seconds after which a test that would otherwise hang fails (never reached when it passes)."""


class BatchServer:
    """An HTTP/1.1 server on loopback, in a thread of its own, that holds each request until
    ``batch`` requests are waiting and then answers them all (on kept-alive connections; a GET
    of ``/events`` at once, with an event stream of two events): a
    client that never has ``batch`` requests on the wire at once gets no answer, and one that
    has more is seen opening more connections. It counts the connections it accepted, the most
    open at once and the requests it answered."""

    def __init__(self, batch: int) -> None:
        self.batch = batch
        self.accepted = self.open = self.most_open = self.received = self.answered = 0
        self._held: list[asyncio.StreamWriter] = []
        self._serving: set[asyncio.Task[None]] = set()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0, backlog=1024)
        )
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        self._ready.set()
        self._loop.run_forever()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._serving.add(task)
        self.accepted += 1
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                self.received += 1
                if head.startswith(b"GET /events "):
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                        b"Content-Length: %d\r\n\r\n%s" % (len(EVENTS), EVENTS)
                    )
                    continue
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                await reader.readexactly(length)
                self._held.append(writer)
                if len(self._held) == self.batch:
                    held, self._held = self._held, []
                    self.answered += len(held)  # counted before the client can see an answer
                    for waiting in held:
                        waiting.write(
                            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                            b"Content-Length: %d\r\n\r\n%s" % (len(ANSWER), ANSWER)
                        )
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.open -= 1
            self._serving.discard(task)
            writer.close()

    async def _shut_down(self) -> None:
        self._server.close()
        for task in self._serving:
            task.cancel()
        await asyncio.gather(*self._serving, return_exceptions=True)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self._shut_down(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


@pytest.fixture
def server_of() -> Iterator[Any]:
    servers: list[BatchServer] = []

    def make(batch: int) -> BatchServer:
        servers.append(BatchServer(batch))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


async def concurrently(client: AsyncClient, calls: int) -> list[object]:
    """``calls`` calls at once; what each returned or raised."""
    steps = (client.step(number) for number in range(calls))
    return await asyncio.wait_for(asyncio.gather(*steps, return_exceptions=True), GUARD)


@pytest.mark.parametrize("size", [1, 7])
def test_concurrent_async_calls_fill_the_pool_s_limit_and_no_more(server_of, size):
    server = server_of(batch=size)

    async def run() -> list[object]:
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        async with AsyncClient(base_url=server.url, limits=limits, max_retries=0) as client:
            return await concurrently(client, 20 * size)

    results = asyncio.run(run())
    assert [r for r in results if not isinstance(r, Answer)] == []
    assert server.answered == 20 * size
    assert server.most_open == server.accepted == size  # kept alive, none opened again


def test_the_default_pool_serves_many_concurrent_calls_on_its_hundred_connections(server_of):
    assert rt.DEFAULT_CONNECTION_LIMITS.max_connections == 100
    server = server_of(batch=100)

    async def run() -> list[object]:
        async with AsyncClient(base_url=server.url, max_retries=0) as client:
            return await concurrently(client, 500)

    results = asyncio.run(run())
    assert [r for r in results if not isinstance(r, Answer)] == []
    assert server.answered == 500
    assert server.most_open == server.accepted == 100


def test_the_sync_client_s_pool_takes_the_limits_too(server_of):
    server = server_of(batch=1)
    with Client(base_url=server.url, max_retries=0) as client:  # the default keeps it alive
        assert all(isinstance(client.step(n), Answer) for n in range(5))
    assert server.accepted == 1
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=0)
    with Client(base_url=server.url, limits=limits, max_retries=0) as client:
        assert all(isinstance(client.step(n), Answer) for n in range(5))
    assert server.answered == 10 and server.accepted == 1 + 5  # none kept alive


def test_a_call_that_waits_past_its_timeout_for_a_connection_says_so_and_was_not_sent(
    server_of,
):
    server = server_of(batch=2)  # holds the one request the pool has room for, unanswered

    async def run() -> list[object]:
        limits = httpx.Limits(max_connections=1)
        async with AsyncClient(
            base_url=server.url, limits=limits, timeout=0.5, max_retries=0
        ) as client:
            return await concurrently(client, 2)

    sent, queued = asyncio.run(run())
    assert isinstance(sent, rt.APITimeoutError) and "pool" not in str(sent)
    assert isinstance(queued, rt.APITimeoutError)
    assert "no connection of the pool was free" in str(queued)
    assert server.received == server.accepted == 1


def test_a_call_made_while_an_event_stream_is_read_gets_another_connection(server_of):
    server = server_of(batch=1)

    async def run() -> tuple[Answer, list[str]]:
        async with AsyncClient(
            base_url=server.url, limits=httpx.Limits(max_connections=2), max_retries=0
        ) as client:
            events = await client.watch()  # its connection stays busy until it is read
            answer = await asyncio.wait_for(client.step(1), GUARD)
            return answer, [event.data async for event in events]

    answer, data = asyncio.run(run())
    assert isinstance(answer, Answer) and data == ["1", "2"]
    assert server.received == server.accepted == 2
