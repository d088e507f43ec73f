"""httpx transports that serve the generated client from a local session, with no network."""

from __future__ import annotations

import asyncio

import httpx

from ._routes import respond
from ._session import LocalSession

__all__ = ["LocalTransport"]


class LocalTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Serve requests from ``session``, for ``Client(transport=...)`` and ``AsyncClient(transport=...)``.

    The async side runs each step in a worker thread, so a long step does not block the event loop.
    """

    def __init__(self, session: LocalSession) -> None:
        self.session = session

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        status, payload = respond(self.session, request.method, _raw_path(request), request.read())
        return httpx.Response(status, json=payload, request=request)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        status, payload = await asyncio.to_thread(
            respond, self.session, request.method, _raw_path(request), body
        )
        return httpx.Response(status, json=payload, request=request)


def _raw_path(request: httpx.Request) -> str:
    return request.url.raw_path.decode("ascii").partition("?")[0]
