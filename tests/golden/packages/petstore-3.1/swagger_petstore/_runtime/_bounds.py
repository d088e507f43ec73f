"""The bounds an answer is read within: its size, once decoded, and the time of the attempt.

A response's body is read as it arrives and decoded here (``gzip`` and ``deflate``, the content
codings the client reads; it asks for none), never more of it past the decoder than the client's
``max_response_bytes``, so that neither a huge body nor a small one that decodes to a huge one
fills memory. An event stream is bounded the same way, line by line and event by event.

Each attempt ends at a moment (``time.monotonic()``): ``timeout`` after it starts, or the call's
deadline where that comes first. The async client cancels an attempt at its end. The sync client
cannot cancel a read that is under way, so it holds each read and write on the connections that
its requests open to the end of the attempt that makes it (:func:`hold_streams`): a server that
sends one byte at a time, each in time for the read timeout, cannot hold an attempt past its end.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

import httpx

from ._exceptions import APIResponseTooLargeError
from ._streaming import (
    ServerSentEvent,
    StreamTooLarge,
    aiter_events,
    aiter_lines,
    iter_events,
    iter_lines,
)

__all__ = [
    "aevents",
    "aread",
    "attempt",
    "events",
    "hold_streams",
    "read",
    "within",
]

T = TypeVar("T")

_ATTEMPT_ENDS: ContextVar[float | None] = ContextVar("attempt_ends", default=None)
"""When the attempt under way in this thread (or task) must be over, or None for no bound."""

_OPENED = (".connect_tcp.complete", ".connect_unix_socket.complete", ".start_tls.complete")
"""httpcore's trace events that return a network stream just opened."""


def _size(count: int) -> str:
    """A number of bytes as people read it: ``64 MiB (67108864 bytes)``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale and count % scale == 0:
            return f"{count // scale} {unit} ({count} bytes)"
    return f"{count} bytes"


def _too_large(
    response: httpx.Response, limit: int, what: str, *, memory: bool = False
) -> APIResponseTooLargeError:
    """The error for ``what`` (``the body``, ``a line of the event stream``) of ``response``
    over ``limit``, or (``memory``) for a body that memory ran out for under it."""
    request = response.request
    where = f"{request.method} {request.url}: {what} of the {response.status_code} response"
    if memory:
        problem = f"did not fit in memory, under the limit of {_size(limit)}"
    else:
        problem = f"is over the limit of {_size(limit)}"
    return APIResponseTooLargeError(
        f"{where} {problem} (the client's max_response_bytes)", response=response, limit=limit
    )


class _Decoder:
    """A response's content coding undone, a bounded piece at a time."""

    def __init__(self, response: httpx.Response) -> None:
        header = response.headers.get("content-encoding", "")
        named = [coding.strip().lower() for coding in header.split(",")]
        codings = [coding for coding in named if coding not in ("", "identity")]
        self._zlib: Any = None
        self._deflate_so_far: bytes | None = None
        """A deflate body's first bytes, until its zlib header is read (two bytes), to be read
        again as raw deflate where they are not one."""
        if len(codings) > 1 or (codings and codings[0] not in ("gzip", "x-gzip", "deflate")):
            raise httpx.DecodingError(
                f"the body's Content-Encoding {header!r} is not one the client reads "
                "(gzip or deflate)"
            )
        self.coding = codings[0] if codings else "identity"
        if self.coding == "deflate":  # zlib-wrapped as the standard says, or else raw
            self._zlib, self._deflate_so_far = zlib.decompressobj(), b""
        elif self.coding != "identity":
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS | 16)

    def pieces(self, data: bytes, most: int) -> Iterator[bytes]:
        """What ``data`` decodes to, in pieces of at most ``most`` bytes (``most`` >= 1), each
        decoded only when the one before has been taken."""
        if self._zlib is None:
            yield data
            return
        if self._deflate_so_far is not None:
            self._deflate_so_far += data
        while data:
            try:
                piece = self._zlib.decompress(data, most)
            except zlib.error as exc:
                if self._deflate_so_far is None:
                    raise httpx.DecodingError(
                        f"the {self.coding} body is corrupt ({exc})"
                    ) from None
                self._zlib, data = zlib.decompressobj(-zlib.MAX_WBITS), self._deflate_so_far
                self._deflate_so_far = None
                continue
            if self._deflate_so_far is not None and len(self._deflate_so_far) >= 2:
                self._deflate_so_far = None  # zlib read its header
            data = self._zlib.unconsumed_tail
            if piece:
                yield piece


class _Body:
    """A body as it arrives: decoded, counted against the limit and timed against the end of the
    attempt."""

    def __init__(self, response: httpx.Response, limit: int, ends: float | None) -> None:
        self.response, self.limit, self.ends = response, limit, ends
        self.decoder = _Decoder(response)
        self.parts: list[bytes] = []
        self.size = 0
        declared = response.headers.get("content-length", "")
        if self.decoder.coding == "identity" and declared.isdigit() and int(declared) > limit:
            raise _too_large(response, limit, "the body")

    def add(self, raw: bytes) -> None:
        """Take the next piece of the body as it came (encoded); past the limit, or with the
        attempt's time up, raise."""
        if self.ends is not None and time.monotonic() >= self.ends:
            raise httpx.ReadTimeout("the body did not arrive in full within the timeout")
        for piece in self.decoder.pieces(raw, self.limit - self.size + 1):
            self.size += len(piece)
            if self.size > self.limit:
                raise _too_large(self.response, self.limit, "the body")
            self.parts.append(piece)

    def whole(self) -> httpx.Response:
        """The response with the body read: its headers are those of the decoded body (no
        ``Content-Encoding``, the decoded ``Content-Length``)."""
        original = self.response
        headers = [
            (name, value)
            for name, value in original.headers.multi_items()
            if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")
        ]
        kept = {
            k: v for k, v in original.extensions.items() if k in ("http_version", "reason_phrase")
        }
        response = httpx.Response(
            original.status_code,
            headers=headers,
            content=b"".join(self.parts),
            request=original.request,
            extensions=kept,
        )
        response.elapsed = original.elapsed
        return response


def _whole_already(response: httpx.Response, limit: int) -> httpx.Response | None:
    """A response whose body was read before it came (one a test double's transport made
    whole), checked against the limit; None for one still to be read."""
    if not response.is_stream_consumed:
        return None
    if len(response.content) > limit:
        raise _too_large(response, limit, "the body")
    return response


def read(response: httpx.Response, limit: int, ends: float | None) -> httpx.Response:
    """``response`` with its body read and decoded: at most ``limit`` bytes, before ``ends``
    (``time.monotonic()``, None for no bound). Raises APIResponseTooLargeError past the limit,
    and httpx's errors where reading or decoding fails or time runs out."""
    try:
        whole = _whole_already(response, limit)
        if whole is not None:
            return whole
        body = _Body(response, limit, ends)
        for raw in response.iter_raw():
            body.add(raw)
        return body.whole()
    except MemoryError:  # a limit larger than this machine holds
        raise _too_large(response, limit, "the body", memory=True) from None
    finally:
        response.close()


async def aread(response: httpx.Response, limit: int, ends: float | None) -> httpx.Response:
    """:func:`read`, awaited."""
    try:
        whole = _whole_already(response, limit)
        if whole is not None:
            return whole
        body = _Body(response, limit, ends)
        async for raw in response.aiter_raw():
            body.add(raw)
        return body.whole()
    except MemoryError:  # a limit larger than this machine holds
        raise _too_large(response, limit, "the body", memory=True) from None
    finally:
        await response.aclose()


def events(response: httpx.Response, limit: int) -> Iterator[ServerSentEvent]:
    """The events of a streamed response as they arrive, each line and each event of at most
    ``limit`` bytes once decoded; the response is closed when they end."""
    try:
        decoder = _Decoder(response)
        decoded = (piece for raw in response.iter_raw() for piece in decoder.pieces(raw, limit))
        yield from iter_events(iter_lines(decoded, limit), limit)
    except StreamTooLarge as exc:
        raise _too_large(response, limit, exc.what) from None
    finally:
        response.close()


async def aevents(response: httpx.Response, limit: int) -> AsyncIterator[ServerSentEvent]:
    """:func:`events`, read asynchronously."""

    async def decoded() -> AsyncIterator[bytes]:
        async for raw in response.aiter_raw():
            for piece in decoder.pieces(raw, limit):
                yield piece

    try:
        decoder = _Decoder(response)
        async for event in aiter_events(aiter_lines(decoded(), limit), limit):
            yield event
    except StreamTooLarge as exc:
        raise _too_large(response, limit, exc.what) from None
    finally:
        await response.aclose()


@contextmanager
def attempt(ends: float | None) -> Iterator[None]:
    """Within it, the reads and writes of the streams :func:`hold_streams` holds end at
    ``ends`` (``time.monotonic()``; None: no bound beyond each one's timeout)."""
    token = _ATTEMPT_ENDS.set(ends)
    try:
        yield
    finally:
        _ATTEMPT_ENDS.reset(token)


def hold_streams(event: str, info: Mapping[str, Any]) -> None:
    """The sync client's ``trace`` extension (httpcore calls it at each step of a request): each
    network stream a request opens has its reads, writes and TLS handshake held to the end of
    the attempt under way, for as long as the connection lives (a later attempt that reuses
    it, its own end)."""
    if event.endswith(_OPENED) and info.get("return_value") is not None:
        _hold(info["return_value"])


def _left(timeout: float | None, timed_out: type[httpx.TimeoutException]) -> float | None:
    """``timeout`` for one read or write, cut to what is left of the attempt under way."""
    ends = _ATTEMPT_ENDS.get()
    if ends is None:
        return timeout
    left = ends - time.monotonic()
    if left <= 0:
        raise timed_out("the answer did not arrive in full within the timeout")
    return left if timeout is None else min(timeout, left)


def _hold(stream: Any) -> None:
    """Rebind the stream's reads, writes and TLS handshake (httpcore's network stream
    interface) to ones held to the attempt under way."""
    read, write, start_tls = stream.read, stream.write, stream.start_tls

    def held_read(max_bytes: int, timeout: float | None = None) -> bytes:
        data: bytes = read(max_bytes, _left(timeout, httpx.ReadTimeout))
        return data

    def held_write(buffer: bytes, timeout: float | None = None) -> None:
        write(buffer, _left(timeout, httpx.WriteTimeout))

    def held_start_tls(ssl_context: Any, server_hostname: Any = None, timeout: Any = None) -> Any:
        return start_tls(ssl_context, server_hostname, _left(timeout, httpx.ConnectTimeout))

    stream.read, stream.write, stream.start_tls = held_read, held_write, held_start_tls


async def within(ends: float | None, step: Awaitable[T]) -> T:
    """``step`` awaited, cancelled at ``ends`` (``time.monotonic()``; None: no bound), which
    raises httpx's TimeoutException."""
    if ends is None:
        return await step
    try:
        return await asyncio.wait_for(step, max(ends - time.monotonic(), 0.0))
    except asyncio.TimeoutError:
        raise httpx.TimeoutException(
            "the answer did not arrive in full within the timeout"
        ) from None
