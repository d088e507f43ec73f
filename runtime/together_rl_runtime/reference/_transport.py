"""httpx transports that serve the generated client from local sessions, with no network."""

from __future__ import annotations

import asyncio
from typing import ClassVar

import httpx

from ._definition import ReferenceRevision
from ._routes import Router, Sessions, SessionSource
from ._tenants import Keys

__all__ = ["LocalTransport"]


class LocalTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Serve requests from local sessions, for ``Client(transport=...)`` and
    ``AsyncClient(transport=...)``.

    ``sessions`` is one :class:`LocalSession` (served under the first session id the client
    uses), a mapping of session ids to sessions, or a function that makes the session of an id
    on its first request. With an ``api_key``, requests must carry it as a bearer token. The
    async side runs each step in a worker thread, so a long step does not block the event loop.

    A revision's package subclasses it with the revision's definitions (``revision``).
    """

    revision: ClassVar[ReferenceRevision]
    """The revision whose requests the transport answers (set by the revision's package)."""

    def __init__(self, sessions: SessionSource, *, api_key: str | None = None) -> None:
        keys = None if api_key is None else Keys([api_key])
        self.router = Router(Sessions(sessions), self.revision, keys=keys)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        status, payload, headers = self.router.handle(
            request.method, _raw_path(request), request.headers, request.read()
        )
        return httpx.Response(status, json=payload, headers=headers, request=request)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        status, payload, headers = await asyncio.to_thread(
            self.router.handle, request.method, _raw_path(request), request.headers, body
        )
        return httpx.Response(status, json=payload, headers=headers, request=request)


def _raw_path(request: httpx.Request) -> str:
    """The request's raw path with its query."""
    return request.url.raw_path.decode("ascii")
