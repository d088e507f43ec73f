"""The adapter of uvicorn's internals (``together_rl_runtime.reference._uvicorn``) over a real
uvicorn server on loopback: each of its names does what the server relies on, and a uvicorn
without what it builds on is refused at import. ``nox -s uvicorn`` runs these on each end of the
range the runtime declares."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import h11
import uvicorn

from together_rl_runtime.reference import _uvicorn

KEEP_ALIVE = 1
"""Seconds uvicorn keeps an idle connection open (its ``timeout_keep_alive``)."""


def test_a_uvicorn_without_what_the_adapter_builds_on_is_refused_at_import_naming_it():
    """Importing the adapter (so the server) with a uvicorn that lacks one of the internals
    fails at once, naming that uvicorn's version, what it lacks and the pip command that
    installs a release of the range."""
    code = (
        "from uvicorn.protocols.http.h11_impl import H11Protocol\n"
        "del H11Protocol.on_response_complete\n"
        "import together_rl_runtime.reference.serve\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0
    assert (
        f"ImportError: uvicorn {uvicorn.__version__} lacks H11Protocol.on_response_complete, "
        "which the reference server builds on; it is tested with "
        f"uvicorn{_uvicorn.SUPPORTED}: pip install 'uvicorn{_uvicorn.SUPPORTED}'"
    ) in result.stderr


# -- the adapter over a real server ------------------------------------------------------------


class Watched(_uvicorn.Protocol):
    """The adapter's protocol as the server extends it, recording what the tests look at: each
    connection's protocol, and each time a hook is called. A request refused by its parser (one
    of at most ``head_bytes`` of head) is answered 431 unless ``plain``."""

    def __init__(
        self, *args: Any, seen: list[Any], head_bytes: int = 16384, plain: bool = False, **kw: Any
    ) -> None:
        super().__init__(
            *args, parser=h11.Connection(h11.SERVER, max_incomplete_event_size=head_bytes), **kw
        )
        self.seen = seen
        self.plain = plain

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.seen.append(self)

    def malformed(self, message: str) -> None:
        self.seen.append("malformed")
        if self.plain:
            super().malformed(message)
            return
        self.transport.write(b"HTTP/1.1 431 Too Large\r\ncontent-length: 0\r\n\r\n")
        self.transport.close()

    def response_done(self) -> None:
        self.seen.append("done")


class App:
    """An ASGI application: ``GET /`` is answered ``ok`` at once; ``GET /hold`` waits until the
    client has gone (or the protocol took the connection over), then answers all the same;
    ``GET /started`` sends its response's head, then waits for ``finish`` to send its body."""

    def __init__(self) -> None:
        self.holding = asyncio.Event()
        self.finish = asyncio.Event()
        self.told: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await receive()
        head = {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-length", b"2")],
        }
        if scope["path"] == "/started":
            await send(head)
            self.holding.set()
            await self.finish.wait()
        else:
            if scope["path"] == "/hold":
                self.holding.set()
                self.told.append((await receive())["type"])
            await send(head)
        await send({"type": "http.response.body", "body": b"ok"})


@contextlib.asynccontextmanager
async def serving(app: App, **options: Any) -> AsyncIterator[tuple[int, list[Any]]]:
    """A uvicorn server of ``app`` on loopback, its protocol :class:`Watched` with ``options``,
    in this event loop: its port, and what the protocols recorded."""
    seen: list[Any] = []
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    config = uvicorn.Config(
        app,
        http=_uvicorn.http_protocol(Watched, seen=seen, **options),
        lifespan="off",
        ws="none",
        log_config=None,
        access_log=False,
        timeout_keep_alive=KEEP_ALIVE,
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield sock.getsockname()[1], seen
    finally:
        _uvicorn.stop(server)
        await task
        sock.close()


def run(test: Any) -> None:
    """Run the coroutine function ``test`` in an event loop of its own (stopped after 30 s, so
    that a test that hangs fails instead)."""
    asyncio.run(asyncio.wait_for(test(), 30))


GET = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"


async def read_answer(reader: asyncio.StreamReader) -> bytes:
    """An answer of :class:`App`: its head, and its body of two bytes."""
    head = await reader.readuntil(b"\r\n\r\n")
    return head + await reader.readexactly(2)


def test_the_parser_given_reads_the_requests_and_what_it_refuses_goes_to_malformed():
    """1 KiB of a head not ended yet is within uvicorn's own parser's bound (16 KiB), not within
    the one the protocol is given: that one reads the request, and its refusal is answered by
    ``malformed``; by default, with uvicorn's plain 400."""
    big = b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 1024

    async def test() -> None:
        for plain, answer in ((False, b"HTTP/1.1 431 Too Large"), (True, b"HTTP/1.1 400 ")):
            async with serving(App(), head_bytes=256, plain=plain) as (port, seen):
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(big)
                assert (await reader.read()).startswith(answer)
                writer.close()
                assert seen[1:] == ["malformed"]
        async with serving(App()) as (port, seen):  # the same request, within the bound
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(big)
            writer.write(b"\r\n\r\n")
            assert (await read_answer(reader)).endswith(b"ok")
            writer.close()

    run(test)


def test_response_done_follows_each_response_written_whole():
    """Two requests sent at once on one connection: both answered, ``response_done`` once after
    each (the second request is served once the first response is done). The protocol has the
    connection's transport, the event loop and uvicorn's logger."""

    async def test() -> None:
        async with serving(App()) as (port, seen):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(GET + GET)
            for _ in range(2):
                assert (await read_answer(reader)).startswith(b"HTTP/1.1 200 OK\r\n")
            writer.close()
            protocol, *hooks = seen
            assert hooks == ["done", "done"]
            assert isinstance(protocol.transport, asyncio.Transport)
            assert protocol.loop is asyncio.get_running_loop()
            assert protocol.logger.name == "uvicorn.error"

    run(test)


@contextlib.asynccontextmanager
async def held(path: str) -> AsyncIterator[tuple[App, Watched, asyncio.StreamReader]]:
    """A request for ``path`` that the application holds (see :class:`App`): the application,
    the connection's protocol, and the client's side of it."""
    app = App()
    async with serving(app) as (port, seen):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await app.holding.wait()
        (protocol,) = seen
        try:
            yield app, protocol, reader
        finally:
            writer.close()


def test_take_over_silences_the_application_before_its_response_and_not_after():
    """While the application holds its answer, ``take_over`` tells it the client has gone and
    what it sends then goes nowhere: the connection carries only what the protocol writes.
    Once the application has sent its response's head, it is too late (False)."""

    async def test() -> None:
        async with held("/hold") as (app, protocol, reader):
            assert protocol.take_over() is True
            protocol.transport.write(b"ours")
            protocol.transport.close()
            assert await reader.read() == b"ours"
            assert app.told == ["http.disconnect"]
        async with held("/started") as (app, protocol, reader):
            assert protocol.take_over() is False
            app.finish.set()
            assert (await read_answer(reader)).endswith(b"ok")

    run(test)


def test_take_over_stops_uvicorn_closing_an_idle_connection():
    """uvicorn closes a connection idle for ``timeout_keep_alive`` seconds; one the protocol took
    over stays open past that, and serves its next request."""

    async def test() -> None:
        async with serving(App()) as (port, seen):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(GET)
            await read_answer(reader)
            assert await reader.read() == b""  # closed by uvicorn once idle
            writer.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(GET)
            await read_answer(reader)
            assert seen[-1] == "done"
            assert seen[-2].take_over() is True
            # a timer of this event loop, due after uvicorn's keep-alive timer: had that one
            # still been set, it would have fired first, whatever the machine's load
            await asyncio.sleep(2 * KEEP_ALIVE)
            writer.write(GET)
            assert (await read_answer(reader)).endswith(b"ok")
            writer.close()

    run(test)
