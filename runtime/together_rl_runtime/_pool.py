"""The client's own connection pool: its size, and how the async client keeps many concurrent
calls at the server's pace.

A client's pool is made with the client's ``limits`` (:data:`DEFAULT_CONNECTION_LIMITS` unless
it is given others), as httpx's ``limits=`` and the official SDK's ``DefaultAsyncHttpxClient``
take them. httpx's pool (httpcore's) looks at every connection it holds, and again at each one
for every idle connection and every queued request, whenever a request arrives or ends: the
work of one request grows with the square of the pool's size, and with the number of requests
beyond it. A thousand concurrent calls on a pool of a hundred connections spend most of their
time there, not on the wire (about 20 ms of CPU a call, against 1 ms). So the async client's
own pool (:func:`async_pool`) is an httpx pool of one connection for each connection it may
hold, behind one transport, and the client hands them at most ``max_connections`` requests at
once (:class:`Slots`), each to a pool whose connection is free: the others wait their turn in
the client, first come first served, each for at most the pool timeout (``httpx.Timeout.pool``)
as they would in httpx's pool, raising its ``PoolTimeout`` past it. No httpx pool then queues a
request, nor has more than one connection to look at.

httpx closes a connection that a request frees wherever its pool holds more connections than
``max_keepalive_connections`` (it counts them all, busy or idle), so that with fewer kept alive
than the pool holds, a busy pool opens a new connection for nearly every request. The default
keeps every connection alive; with fewer, the async client keeps alive the connections of its
first ``max_keepalive_connections`` pools, those it uses first.
"""

from __future__ import annotations

import asyncio
import functools
import os
import ssl
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from contextvars import ContextVar
from typing import Any

import httpx

from ._exceptions import ConfigurationError

__all__ = [
    "DEFAULT_CONNECTION_LIMITS",
    "Held",
    "Slots",
    "async_pool",
    "checked_limits",
    "slot",
    "verified_tls",
]

DEFAULT_CONNECTION_LIMITS = httpx.Limits(
    max_connections=100, max_keepalive_connections=100, keepalive_expiry=5.0
)
"""The client's pool unless it is given ``limits``: a hundred connections, all kept alive for
five seconds idle (less than servers commonly keep an idle connection, so that the client, not
the server, closes it)."""

_SHARD: ContextVar[int] = ContextVar("shard", default=0)
"""The pool of the slot that the attempt under way in this task holds (:func:`slot`)."""


def checked_limits(limits: object) -> httpx.Limits:
    """``limits`` as the client's pool takes them: an ``httpx.Limits`` whose counts are whole
    numbers (``max_connections`` at least 1) or None (no bound), else ConfigurationError."""
    if not isinstance(limits, httpx.Limits):
        raise ConfigurationError(f"limits must be an httpx.Limits, got {limits!r}")
    for name, least in (("max_connections", 1), ("max_keepalive_connections", 0)):
        value = getattr(limits, name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < least
        ):
            raise ConfigurationError(
                f"limits.{name} must be an integer of at least {least}, or None, got {value!r}"
            )
    return limits


class Slots:
    """The requests the client's ``size`` pools of one connection serve at once, one each,
    given to the tasks that ask in the order they asked. A task that leaves hands its slot to
    the first one waiting; a free slot is the pool freed last (at first, pool 0, then 1, ...),
    so that few connections are opened where few calls are made at once. Futures of the
    running event loop are made only while waiting, so that one ``Slots`` serves any loop the
    client is used in."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._free: list[int] = []
        """The slots left (their pools), the next one given last."""
        self._unused = 0
        """The first slot never given: those from it to ``size`` are free too (a large
        ``max_connections`` costs nothing until that many calls are made at once)."""
        self._waiting: deque[asyncio.Future[int]] = deque()

    @property
    def held(self) -> int:
        """How many slots are taken."""
        return self._unused - len(self._free)

    async def acquire(self, timeout: float | None) -> int:
        """Take a slot (the number of its pool), waiting for at most ``timeout`` seconds (None:
        for as long as it takes; cancelled with the task that waits); past it, raise httpx's
        PoolTimeout."""
        if not self._waiting:
            if self._free:
                return self._free.pop()
            if self._unused < self.size:
                self._unused += 1
                return self._unused - 1
        return await self._wait(timeout)

    async def _wait(self, timeout: float | None) -> int:
        waiter: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        try:
            return await asyncio.wait_for(waiter, timeout)
        except BaseException as exc:
            if waiter.done() and not waiter.cancelled():
                self.release(waiter.result())  # given a slot just as the wait ended: pass it on
            else:
                waiter.cancel()
                with suppress(ValueError):  # unless a release passed over it already
                    self._waiting.remove(waiter)
            if isinstance(exc, asyncio.TimeoutError):
                raise httpx.PoolTimeout(
                    f"no connection of the pool (limits.max_connections {self.size}) was free "
                    f"within the pool timeout of {timeout:g} s"
                ) from None
            raise

    def release(self, pool: int) -> None:
        """Leave a slot of ``pool``: to the first task still waiting, else free."""
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(pool)
                return
        self._free.append(pool)


class Held:
    """A slot held: left at the end of :func:`slot`, or when the response it is handed to
    (:meth:`keep`) is closed."""

    def __init__(self, slots: Slots, pool: int) -> None:
        self.slots, self.pool = slots, pool
        self.kept = False

    def keep(self, response: httpx.Response) -> None:
        """Hold the slot until ``response`` (a stream left to be read) is closed, as its
        connection is busy until then."""
        self.kept = True
        response.stream = _Releasing(response.stream, self._leave)

    def _leave(self) -> None:
        self.slots.release(self.pool)


class _Releasing(httpx.AsyncByteStream):
    """A response's stream that leaves its slot once, when it is closed."""

    def __init__(self, stream: Any, leave: Callable[[], None]) -> None:
        self._stream, self._leave = stream, leave
        self._left = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        finally:
            if not self._left:
                self._left = True
                self._leave()


@asynccontextmanager
async def slot(slots: Slots, timeout: float | None) -> AsyncIterator[Held]:
    """Within it, this task holds a slot of ``slots`` (:meth:`Slots.acquire`), and its requests
    go to that slot's pool; the slot is left at its end, unless handed to a response
    (:meth:`Held.keep`)."""
    held = Held(slots, await slots.acquire(timeout))
    token = _SHARD.set(held.pool)
    try:
        yield held
    finally:
        _SHARD.reset(token)
        if not held.kept:
            slots.release(held.pool)


class _Pools(httpx.AsyncBaseTransport):
    """httpx pools behind one transport, each made when it is first used: a request goes to
    the pool of its task's slot."""

    def __init__(self, make: Callable[[int], httpx.AsyncHTTPTransport]) -> None:
        self.pools: dict[int, httpx.AsyncHTTPTransport] = {}
        self._make = make

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        number = _SHARD.get()
        pool = self.pools.get(number)
        if pool is None:
            pool = self.pools[number] = self._make(number)
        return await pool.handle_async_request(request)

    async def aclose(self) -> None:
        for pool in self.pools.values():
            await pool.aclose()


def async_pool(limits: httpx.Limits) -> tuple[httpx.AsyncBaseTransport, Slots | None]:
    """The async client's own pool of ``limits`` and the slots that keep to it; no slots where
    ``limits`` bound no connections (one httpx pool then, as httpx has it)."""
    size = limits.max_connections
    if size is None:
        return httpx.AsyncHTTPTransport(verify=verified_tls(), limits=limits), None
    kept = size if limits.max_keepalive_connections is None else limits.max_keepalive_connections

    def make(number: int) -> httpx.AsyncHTTPTransport:
        return httpx.AsyncHTTPTransport(
            verify=verified_tls(),
            limits=httpx.Limits(
                max_connections=1,
                max_keepalive_connections=1 if number < kept else 0,
                keepalive_expiry=limits.keepalive_expiry,
            ),
        )

    return _Pools(make), Slots(size)


def verified_tls() -> ssl.SSLContext:
    """The TLS context that checks a server's certificate, as httpx makes one for each client it
    makes (certifi's authorities, or those that ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` name):
    made once per process for each setting of those variables, since loading the authorities
    takes tens of milliseconds, and shared by the clients' pools."""
    return _verified_tls(*(os.environ.get(name) for name in _TLS_ENVIRONMENT))


_TLS_ENVIRONMENT = ("SSL_CERT_FILE", "SSL_CERT_DIR", "SSLKEYLOGFILE")
"""The variables that httpx reads into the TLS context it makes (``trust_env``)."""


@functools.lru_cache(maxsize=4)
def _verified_tls(*environment: str | None) -> ssl.SSLContext:
    return httpx.create_ssl_context(trust_env=True)
