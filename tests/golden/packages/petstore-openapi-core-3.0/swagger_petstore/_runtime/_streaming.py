"""Server-sent events (``text/event-stream``), as the operations that stream return them: the
stream's lines, each of a bounded size, and the events they make, each of a bounded size too."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ._exceptions import ValidationError

__all__ = [
    "ServerSentEvent",
    "StreamTooLarge",
    "aiter_events",
    "aiter_lines",
    "iter_events",
    "iter_lines",
]

_LINE_END = re.compile(rb"\r\n|\r|\n")


class StreamTooLarge(Exception):
    """A line or an event of a stream over its limit; ``what`` says which (``a line``)."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


@dataclass(frozen=True)
class ServerSentEvent:
    """One event of a stream: its type (``message`` unless the server names one), its data (the
    ``data`` lines joined), and its id and retry delay where the server sends them."""

    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None

    def json(self) -> Any:
        """The event's data as JSON."""
        try:
            return json.loads(self.data)
        except ValueError as exc:
            raise ValidationError("data", f"not valid JSON ({exc})", self.data) from None


class _Lines:
    """Splits a stream's bytes into lines at CRLF, LF or CR, as the event-stream format says;
    a line over ``limit`` bytes raises StreamTooLarge before more of it is kept."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.part = bytearray()
        self.after_cr = False
        """Whether the last chunk ended in CR, whose LF may begin the next one."""

    def split(self, chunk: bytes) -> list[str]:
        """The lines that ``chunk`` ends (the bytes after the last of them wait for more)."""
        if not chunk:
            return []
        start = 1 if self.after_cr and chunk.startswith(b"\n") else 0
        lines = []
        for end in _LINE_END.finditer(chunk, start):
            self.keep(chunk[start : end.start()])
            lines.append(self.part.decode("utf-8", "replace"))
            self.part.clear()
            start = end.end()
        self.keep(chunk[start:])
        self.after_cr = chunk.endswith(b"\r")
        return lines

    def keep(self, piece: bytes) -> None:
        if len(self.part) + len(piece) > self.limit:
            raise StreamTooLarge("a line of the event stream")
        self.part += piece

    def rest(self) -> list[str]:
        """The last line, where the stream ends without ending it."""
        return [self.part.decode("utf-8", "replace")] if self.part else []


def iter_lines(chunks: Iterable[bytes], limit: int) -> Iterator[str]:
    """The lines of a stream's (decoded) bytes, each of at most ``limit`` bytes."""
    lines = _Lines(limit)
    for chunk in chunks:
        yield from lines.split(chunk)
    yield from lines.rest()


async def aiter_lines(chunks: AsyncIterable[bytes], limit: int) -> AsyncIterator[str]:
    """:func:`iter_lines`, read asynchronously."""
    lines = _Lines(limit)
    async for chunk in chunks:
        for line in lines.split(chunk):
            yield line
    for line in lines.rest():
        yield line


class _Reader:
    """Gathers lines into events, as the HTML standard's event-stream format says; an event
    whose data is over ``limit`` bytes raises StreamTooLarge."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.event = ""
        self.data: list[str] = []
        self.size = 0
        self.id: str | None = None
        self.retry: int | None = None

    def line(self, line: str) -> ServerSentEvent | None:
        if not line:
            return self.dispatch()
        if line.startswith(":"):
            return None  # a comment
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            self.event = value
        elif name == "data":
            self.size += len(value.encode()) + 1
            if self.limit is not None and self.size > self.limit:
                raise StreamTooLarge("an event of the stream")
            self.data.append(value)
        elif name == "id" and "\0" not in value:
            self.id = value
        elif name == "retry" and value.isdigit():
            self.retry = int(value)
        return None

    def dispatch(self) -> ServerSentEvent | None:
        if not self.data and not self.event:
            return None
        event = ServerSentEvent(self.event or "message", "\n".join(self.data), self.id, self.retry)
        self.event, self.data, self.size, self.retry = "", [], 0, None
        return event


def iter_events(lines: Iterable[str], limit: int | None = None) -> Iterator[ServerSentEvent]:
    """The events of a stream's lines, each with at most ``limit`` bytes of data."""
    reader = _Reader(limit)
    for line in lines:
        event = reader.line(line.rstrip("\r\n"))
        if event is not None:
            yield event
    last = reader.dispatch()
    if last is not None:
        yield last


async def aiter_events(
    lines: AsyncIterable[str], limit: int | None = None
) -> AsyncIterator[ServerSentEvent]:
    """The events of a stream's lines, read asynchronously."""
    reader = _Reader(limit)
    async for line in lines:
        event = reader.line(line.rstrip("\r\n"))
        if event is not None:
            yield event
    last = reader.dispatch()
    if last is not None:
        yield last
