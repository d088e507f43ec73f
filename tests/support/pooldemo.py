"""A client of a made-up API of two calls (``POST /steps/{number}``, an event stream at
``GET /events``) made with the runtime alone: what the tests of the client's connection pool
call."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, ClassVar

import together_rl_runtime as rt

NO_KEY = {"default_auth": None, "key_required": False}
SPEC = rt.ClientSpec("pool_demo", "pool-demo/1.0", "http://127.0.0.1:9", **NO_KEY)


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
