"""The client's connection pool: ``limits`` sizes it, and many more concurrent calls than it has
connections all complete on the connections it keeps alive, against a real HTTP/1.1 server on
loopback that counts its connections and answers requests only in batches of the pool's size."""

from __future__ import annotations

import asyncio
import json
import ssl
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar

import httpx
import pytest

import together_rl_runtime as rt
from together_rl_runtime._pool import Slots, verified_tls

NO_KEY = {"default_auth": None, "key_required": False}
SPEC = rt.ClientSpec("pool_demo", "pool-demo/1.0", "http://127.0.0.1:9", **NO_KEY)
ANSWER = json.dumps({"ok": True}).encode()
EVENTS = b"data: 1\n\ndata: 2\n\n"
GUARD = 120.0
"""Seconds after which a test that would otherwise hang fails (never reached when it passes)."""


class Answer(rt.Model):
    _FIELDS: ClassVar[frozenset[str]] = frozenset()
    _STRICT: ClassVar[bool] = False

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Answer:
        return cls()

    def to_dict(self, path: str = "") -> dict[str, Any]:
        return {}


class Client(rt.SyncAPIClient):
    _spec = SPEC

    def step(self, number: int) -> Answer:
        request = self._build_request("POST", f"/steps/{number}", json={"n": number})
        return self._parse(self._send(request, resendable=False), Answer.from_dict, None)


class AsyncClient(rt.AsyncAPIClient):
    _spec = SPEC

    async def watch(self) -> AsyncIterator[rt.ServerSentEvent]:
        request = self._build_request("GET", "/events", accept="text/event-stream")
        return await self._events(request, resendable=True, error=None)

    async def step(self, number: int) -> Answer:
        request = self._build_request("POST", f"/steps/{number}", json={"n": number})
        response = await self._send(request, resendable=False)
        return self._parse(response, Answer.from_dict, None)


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


def test_slots_are_given_in_the_order_they_were_asked_for():
    async def run() -> list[int]:
        slots = Slots(1)
        first = await slots.acquire(None)
        order: list[int] = []

        async def wait_then_leave(number: int) -> None:
            pool = await slots.acquire(None)
            order.append(number)
            slots.release(pool)

        waiting = [asyncio.create_task(wait_then_leave(n)) for n in range(5)]
        await asyncio.sleep(0)  # every task waits now
        slots.release(first)
        await asyncio.gather(*waiting)
        assert slots.held == 0
        return order

    assert asyncio.run(run()) == [0, 1, 2, 3, 4]


def test_a_freed_slot_is_given_before_a_new_one_and_a_huge_limit_costs_nothing_up_front():
    async def run() -> None:
        slots = Slots(10**12)  # as many connections as anyone may allow: nothing made for them
        first, second = await slots.acquire(None), await slots.acquire(None)
        assert (first, second, slots.held) == (0, 1, 2)
        slots.release(first)
        assert await slots.acquire(None) == first  # the connection used last, not a new one
        assert await slots.acquire(None) == 2

    asyncio.run(run())


def test_a_wait_past_the_pool_timeout_raises_pool_timeout_and_loses_no_slot():
    async def run() -> None:
        slots = Slots(1)
        taken = await slots.acquire(None)
        with pytest.raises(httpx.PoolTimeout, match="max_connections 1"):
            await slots.acquire(0)
        slots.release(taken)
        assert slots.held == 0
        assert await slots.acquire(0) == taken

    asyncio.run(run())


def test_a_slot_given_to_a_cancelled_wait_is_passed_on():
    async def run() -> None:
        slots = Slots(1)
        taken = await slots.acquire(None)
        cancelled = asyncio.create_task(slots.acquire(None))
        after = asyncio.create_task(slots.acquire(None))
        await asyncio.sleep(0)
        slots.release(taken)  # to the first waiting, which is cancelled before it runs
        cancelled.cancel()
        assert await after == taken
        assert cancelled.cancelled()
        assert slots.held == 1

    asyncio.run(run())


@pytest.mark.parametrize(
    "other, says",
    [
        ({"transport": httpx.MockTransport(lambda r: httpx.Response(200))}, "transport"),
        ({"http_client": httpx.Client()}, "http_client"),
    ],
)
def test_limits_are_the_client_s_own_pool_s(other, says):
    with pytest.raises(rt.ConfigurationError, match=f"pass limits or {says}, not both"):
        Client(base_url="http://127.0.0.1:9", limits=httpx.Limits(max_connections=5), **other)


@pytest.mark.parametrize(
    "limits, says",
    [
        (10, "limits must be an httpx.Limits"),
        (httpx.Limits(max_connections=0), "limits.max_connections must be an integer of at least"),
        (httpx.Limits(max_keepalive_connections=-1), "limits.max_keepalive_connections must"),
    ],
)
def test_limits_are_checked_when_the_client_is_made(limits, says):
    for kind in (Client, AsyncClient):
        with pytest.raises(rt.ConfigurationError, match=says):
            kind(base_url="http://127.0.0.1:9", limits=limits)


def test_clients_share_one_tls_context_per_setting_of_the_certificate_variables(
    tmp_path, monkeypatch
):
    """Loading the certificate authorities takes tens of milliseconds: every client of the process
    uses one context that checks servers' certificates, a new one only where SSL_CERT_FILE (or
    SSL_CERT_DIR) names other authorities, as httpx reads them."""
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "SSLKEYLOGFILE"):
        monkeypatch.delenv(name, raising=False)
    shared = verified_tls()
    assert verified_tls() is shared
    assert shared.verify_mode == ssl.CERT_REQUIRED and shared.check_hostname
    assert len(shared.get_ca_certs()) > 1  # certifi's authorities

    one = tmp_path / "one.pem"
    one.write_text(ssl.DER_cert_to_PEM_cert(shared.get_ca_certs(binary_form=True)[0]))
    monkeypatch.setenv("SSL_CERT_FILE", str(one))
    named = verified_tls()
    assert named is not shared and verified_tls() is named
    assert len(named.get_ca_certs()) == 1
    monkeypatch.delenv("SSL_CERT_FILE")
    assert verified_tls() is shared
