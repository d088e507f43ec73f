"""Server-sent events (``text/event-stream``), as the operations that stream return them."""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ._exceptions import ValidationError

__all__ = ["ServerSentEvent", "aiter_events", "iter_events"]


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


class _Reader:
    """Gathers lines into events, as the HTML standard's event-stream format says."""

    def __init__(self) -> None:
        self.event = ""
        self.data: list[str] = []
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
        self.event, self.data, self.retry = "", [], None
        return event


def iter_events(lines: Iterable[str]) -> Iterator[ServerSentEvent]:
    """The events of a stream's lines."""
    reader = _Reader()
    for line in lines:
        event = reader.line(line.rstrip("\r\n"))
        if event is not None:
            yield event
    last = reader.dispatch()
    if last is not None:
        yield last


async def aiter_events(lines: AsyncIterable[str]) -> AsyncIterator[ServerSentEvent]:
    """The events of a stream's lines, read asynchronously."""
    reader = _Reader()
    async for line in lines:
        event = reader.line(line.rstrip("\r\n"))
        if event is not None:
            yield event
    last = reader.dispatch()
    if last is not None:
        yield last
