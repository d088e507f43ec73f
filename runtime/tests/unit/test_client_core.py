"""The client core, tested once: a small client written by hand over the runtime, as a generated
one is, against scripted transports. (The generated clients of every revision are tested
against real servers in the project's tests; these run on every Python the runtime supports.)"""

from __future__ import annotations

import asyncio
import gzip
import logging
import tracemalloc
import uuid
import zlib
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import httpx
import pytest

import together_rl_runtime as rt

COMPLETED, FAILED, CANCELLED = "STATUS_COMPLETED", "STATUS_FAILED", "STATUS_CANCELLED"
STATUSES = {"STATUS_RUNNING": "in-progress", COMPLETED: "succeeded", FAILED: "failed"}
STATUSES[CANCELLED] = "cancelled"


class Status(rt.StrEnum):
    RUNNING = "STATUS_RUNNING"
    QUEUED = "STATUS_QUEUED"  # in the document, without a kind in STATUSES
    COMPLETED = COMPLETED
    FAILED = FAILED
    CANCELLED = CANCELLED


@dataclass(kw_only=True)
class Operation(rt.Model):
    """A response model, as the generator writes one."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"id", "status"})
    _STRICT: ClassVar[bool] = False
    id: str | rt.Unset = rt.UNSET
    status: Status | str | rt.Unset = rt.UNSET
    extra: dict[str, Any] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Operation:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            id=rt.received(fields, "id", path, rt.check_string, problems),
            status=rt.received(fields, "status", path, rt.open_enum(Status), problems),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = {}
        rt.put(data, "id", self.id, path, rt.check_string)
        rt.put(data, "status", self.status, path, rt.write_enum)
        return data


SPEC = rt.ClientSpec(
    package="demo_api",
    user_agent="demo/1.0 (API revision r2)",
    base_url="https://api.example.com",
    prefix="/v1",
    api_key_env="DEMO_API_KEY",
    base_url_env="DEMO_BASE_URL",
    revision="r2",
    not_applied_by={"r1": {"speed": "ignored: the server does not know the field"}},
)


class Client(rt.SyncAPIClient):
    _spec = SPEC

    def submit(
        self, thing: str, *, speed: float | rt.Unset = rt.UNSET, key: str | None = None
    ) -> Operation:
        payload = rt.wire({"speed": speed})
        self._warn_not_applied(payload)
        request = self._build_request(
            "POST",
            f"/things/{rt.path_parameter(thing, 'thing', rt.check_string)}",
            json=payload,
            headers=(
                {"Idempotency-Key": rt.idempotency_key_of(key, "Idempotency-Key", rt.check_string)}
                if key != "none"
                else None
            ),
        )
        return self._parse(self._send(request, resendable=key != "none"), Operation.from_dict, None)

    def plain(self, thing: str) -> Operation:
        """A POST without an idempotency key."""
        request = self._build_request("POST", f"/things/{thing}", json={})
        return self._parse(self._send(request, resendable=False), Operation.from_dict, None)

    def get(self, thing: str) -> Operation:
        """A GET, which may be sent again."""
        request = self._build_request("GET", f"/things/{thing}")
        return self._parse(self._send(request, resendable=True), Operation.from_dict, None)

    def watch(self, thing: str) -> Iterator[rt.ServerSentEvent]:
        """An operation that streams events."""
        request = self._build_request("GET", f"/things/{thing}/events", accept="text/event-stream")
        return self._events(request, resendable=True, error=None)

    def wait(self, operation_or_id: Operation | str, *, timeout: float = 5.0) -> Operation:
        return self._wait(
            operation_or_id,
            Operation,
            STATUSES,
            lambda operation_id: self._build_request("GET", f"/ops/{operation_id}"),
            None,
            timeout=timeout,
            interval=0.01,
        )


class AsyncClient(rt.AsyncAPIClient):
    _spec = SPEC

    async def plain(self, thing: str) -> Operation:
        request = self._build_request("POST", f"/things/{thing}", json={})
        response = await self._send(request, resendable=False)
        return self._parse(response, Operation.from_dict, None)

    async def watch(self, thing: str) -> AsyncIterator[rt.ServerSentEvent]:
        request = self._build_request("GET", f"/things/{thing}/events", accept="text/event-stream")
        return await self._events(request, resendable=True, error=None)

    async def wait(self, operation_id: str) -> Operation:
        return await self._wait(
            operation_id,
            Operation,
            STATUSES,
            lambda operation_id: self._build_request("GET", f"/ops/{operation_id}"),
            None,
            timeout=5.0,
            interval=0.01,
        )


def scripted(
    *answers: httpx.Response | Exception,
) -> tuple[list[httpx.Request], httpx.MockTransport]:
    """A transport that answers with ``answers`` in order (raising the exceptions)."""
    seen: list[httpx.Request] = []
    queue = list(answers)

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = queue.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    return seen, httpx.MockTransport(handle)


def operation(status: str = "STATUS_RUNNING", **headers: str) -> httpx.Response:
    return httpx.Response(200, json={"id": "op-1", "status": status}, headers=headers)


def client(transport: httpx.BaseTransport, **options: Any) -> Client:
    options.setdefault("max_retries", 2)
    return Client(api_key="k", transport=transport, **options)


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch):
    """Retries and polls do not wait here (the delays they would take are recorded)."""
    slept: list[float] = []
    monkeypatch.setattr("time.sleep", slept.append)
    return slept


def test_configuration_comes_from_the_arguments_then_the_environment(monkeypatch):
    monkeypatch.delenv("DEMO_API_KEY", raising=False)
    with pytest.raises(rt.ConfigurationError, match="set DEMO_API_KEY"):
        Client()
    monkeypatch.setenv("DEMO_API_KEY", "from-env")
    monkeypatch.setenv("DEMO_BASE_URL", "http://127.0.0.1:9/")
    seen, transport = scripted(operation())
    with Client(transport=transport) as c:
        c.plain("a")
    (request,) = seen
    assert str(request.url) == "http://127.0.0.1:9/v1/things/a"  # the prefix added once
    assert request.headers["authorization"] == "Bearer from-env"
    assert request.headers["user-agent"] == "demo/1.0 (API revision r2)"
    for bad in ("ftp://x", "not a url"):
        with pytest.raises(rt.ConfigurationError):
            Client(base_url=bad)
    with pytest.raises(rt.ConfigurationError, match="max_retries"):
        Client(max_retries=-1)


def test_a_resendable_call_is_retried_with_one_key():
    seen, transport = scripted(
        httpx.Response(503), httpx.Response(409), operation(), httpx.ReadError("gone")
    )
    with client(transport) as c:
        assert c.submit("a", speed=2.0).id == "op-1"
    keys = {r.headers["idempotency-key"] for r in seen}
    assert len(seen) == 3 and len(keys) == 1 and uuid.UUID(keys.pop()).version == 4


def test_a_call_without_a_key_is_sent_once_unless_provably_not_processed(no_sleep):
    for failure in (httpx.Response(500), httpx.Response(408), httpx.ReadError("broke")):
        seen, transport = scripted(failure, operation())
        with client(transport) as c:
            with pytest.raises(rt.APIError):
                c.plain("a")
        assert len(seen) == 1
    seen, transport = scripted(httpx.ConnectError("refused"), operation())
    with client(transport) as c:
        c.plain("a")  # the connection failed before the request left: sent again
    seen, transport = scripted(httpx.Response(429, headers={"retry-after-ms": "250"}), operation())
    with client(transport) as c:
        c.plain("a")
    assert len(seen) == 2 and no_sleep[-1] == pytest.approx(0.25)


@pytest.mark.parametrize(
    "answer",
    [
        httpx.Response(503, headers={"x-should-retry": "true"}),
        httpx.Response(409, headers={"x-should-retry": "true"}),
        httpx.Response(400, headers={"x-should-retry": "true"}),
        httpx.Response(429, headers={"x-should-retry": "false"}),
    ],
)
def test_the_server_s_headers_never_resend_a_call_without_a_key(answer):
    """The retry rule: a POST without an idempotency key is not sent again once the server has it,
    whatever ``x-should-retry`` says; ``false`` still stops the one retry it has (429)."""
    seen, transport = scripted(answer, operation())
    with client(transport) as c:
        with pytest.raises(rt.APIStatusError):
            c.plain("a")
    assert len(seen) == 1


def test_for_a_resendable_call_x_should_retry_decides():
    seen, transport = scripted(httpx.Response(503, headers={"x-should-retry": "false"}))
    with client(transport) as c:
        with pytest.raises(rt.InternalServerError):
            c.submit("a")
    assert len(seen) == 1
    seen, transport = scripted(httpx.Response(400, headers={"x-should-retry": "true"}), operation())
    with client(transport) as c:
        assert c.submit("a").id == "op-1"
    assert len(seen) == 2 and len({r.headers["idempotency-key"] for r in seen}) == 1


@pytest.mark.parametrize(
    ("failure", "kind", "says"),
    [
        (
            httpx.ReadTimeout(""),
            rt.APITimeoutError,
            "the server did not answer within the timeout (ReadTimeout)",
        ),
        (
            httpx.ConnectError(""),
            rt.APIConnectionError,
            "could not connect to the server (ConnectError)",
        ),
        (
            httpx.RemoteProtocolError("Server disconnected"),
            rt.APIConnectionError,
            "the server closed the connection or broke HTTP (RemoteProtocolError: Server disconnected)",
        ),
    ],
)
def test_connection_errors_say_what_happened(failure, kind, says):
    """Sync and async alike, also where httpx's exception has no message."""
    with client(scripted(failure)[1], max_retries=0) as c:
        with pytest.raises(kind) as caught:
            c.plain("a")
    assert str(caught.value) == f"POST https://api.example.com/v1/things/a: {says}"

    async def run() -> None:
        _, transport = scripted(failure)
        async with AsyncClient(api_key="k", transport=transport, max_retries=0) as c:
            await c.plain("a")

    with pytest.raises(kind) as caught:
        asyncio.run(run())
    assert str(caught.value).endswith(f": {says}")


def test_errors_are_typed_and_carry_the_body():
    seen, transport = scripted(httpx.Response(404, text="nothing here"))
    with client(transport) as c:
        with pytest.raises(rt.NotFoundError) as caught:
            c.plain("a")
    assert caught.value.status_code == 404 and caught.value.body == "nothing here"
    assert str(caught.value) == "404 Not Found: nothing here"
    seen, transport = scripted(httpx.Response(200, text="[1, 2"))
    with client(transport) as c:
        with pytest.raises(rt.APIResponseValidationError, match="not valid JSON"):
            c.plain("a")
    with client(scripted(httpx.DecodingError("bad gzip"))[1]) as c:
        with pytest.raises(rt.APIConnectionError, match="bad gzip"):
            c.plain("a")


def test_path_parameters_are_checked_and_escaped():
    seen, transport = scripted(operation())
    with client(transport) as c:
        with pytest.raises(rt.ValidationError, match="^thing: must not be empty"):
            c.submit("")
        for dots in (".", ".."):
            with pytest.raises(
                rt.ValidationError, match=r"^thing: must not be '\.' or '\.\.', which would change"
            ):
                c.submit(dots)
        c.submit("a/b c", key="k-1")
    assert seen[0].url.raw_path == b"/v1/things/a%2Fb%20c"
    assert seen[0].headers["idempotency-key"] == "k-1"


@pytest.mark.parametrize(
    ("status", "error"),
    [(FAILED, rt.OperationFailedError), (CANCELLED, rt.OperationCancelledError)],
)
def test_a_wait_ends_on_every_terminal_status(status, error):
    seen, transport = scripted(operation(), operation(status))
    with client(transport) as c:
        with pytest.raises(error):
            c.wait("op-1")
    seen, transport = scripted(operation(), operation(COMPLETED))
    with client(transport) as c:
        assert c.wait("op-1").status == COMPLETED
    assert [r.url.path for r in seen] == ["/v1/ops/op-1"] * 2


def test_a_status_the_package_does_not_know_is_polled_on_and_named_at_the_deadline(
    caplog, monkeypatch
):
    clock = iter(float(n) for n in range(1000))
    monkeypatch.setattr("time.monotonic", lambda: next(clock))
    answers = [operation("STATUS_PAUSED")] * 20
    with client(scripted(*answers)[1]) as c, caplog.at_level(logging.WARNING, "demo_api"):
        with pytest.raises(rt.OperationTimeoutError, match="last status STATUS_PAUSED"):
            c.wait("op-1", timeout=5)
    warnings = [r.getMessage() for r in caplog.records]
    assert (
        len(warnings) == 1 and "STATUS_PAUSED, which this package (API revision r2)" in warnings[0]
    )


def test_a_status_of_the_package_s_own_enum_without_a_kind_is_named_as_such(caplog):
    answers = [operation("STATUS_QUEUED"), operation(COMPLETED)]
    with client(scripted(*answers)[1]) as c, caplog.at_level(logging.WARNING, "demo_api"):
        assert c.wait("op-1").status == COMPLETED
    (warning,) = [r.getMessage() for r in caplog.records]
    assert "STATUS_QUEUED, which the document of this package (API revision r2) lists" in warning
    assert "spec/statuses.yaml had no entry for it" in warning and "does not know" not in warning


def test_a_server_of_another_revision_is_warned_of(caplog):
    with caplog.at_level(logging.WARNING, "demo_api"):
        Client(api_key="k", server_revision="r0")
        assert "revision r0 is not known to this package" in caplog.text
        caplog.clear()
        seen, transport = scripted(operation())
        with Client(api_key="k", transport=transport, server_revision="r1") as c:
            c.submit("a", speed=1.0)
    assert "speed: ignored" in caplog.text


def test_the_async_client_sends_retries_and_waits():
    seen, transport = scripted(httpx.ConnectError("refused"), operation(), operation(COMPLETED))

    async def run() -> Operation:
        async with AsyncClient(api_key="k", transport=transport) as c:
            await c.plain("a")
            return await c.wait("op-1")

    assert asyncio.run(run()).status == COMPLETED
    assert [r.method for r in seen] == ["POST", "POST", "GET"]


def test_models_check_what_they_read_and_keep_what_they_do_not_know():
    read = Operation.from_dict({"id": 7, "status": "STATUS_NEW", "more": 1})
    assert read.status == "STATUS_NEW" and read.extra == {"more": 1}
    assert "id" in read.problems
    assert Operation.from_dict({"status": "STATUS_COMPLETED"}).status is Status.COMPLETED
    assert str(Status.COMPLETED) == f"{Status.COMPLETED}" == COMPLETED
    with pytest.raises(rt.ValidationError, match=r"^\(body\): expected an object, got \[\]"):
        Operation.from_dict([])
    assert rt.check_number(5, "x") == 5 and rt.check_integer(5.0, "x") == 5
    with pytest.raises(rt.ValidationError, match="expected a finite number"):
        rt.check_number(float("nan"), "x")
    with pytest.raises(rt.ValidationError, match="a double"):
        rt.check_number(10**400, "x")


def test_the_interface_is_what_generated_code_may_import():
    assert sorted(rt.__all__) == sorted(set(rt.__all__))
    for name in rt.__all__:
        assert getattr(rt, name) is not None, name
    callables: Mapping[str, Callable[..., object]] = {
        n: getattr(rt, n) for n in rt.__all__ if n[0].islower() and n != "__version__"
    }
    assert all(callable(f) for f in callables.values())


SCHEMES = {
    "token": rt.AuthScheme("bearer"),
    "login": rt.AuthScheme("basic"),
    "header": rt.AuthScheme("header", "X-Key"),
    "query": rt.AuthScheme("query", "key"),
    "cookie": rt.AuthScheme("cookie", "session"),
}


class OpenClient(rt.SyncAPIClient):
    """A client of an API whose operations each name their scheme, some none."""

    _spec = rt.ClientSpec(
        package="demo_open",
        user_agent="open/1.0",
        base_url="https://open.example.com",
        api_key_env="OPEN_API_KEY",
        schemes=SCHEMES,
        default_auth=None,
        key_required=False,
    )

    def call(self, auth: str | None, optional: bool = False) -> httpx.Request:
        request = self._build_request("GET", "/x", auth=auth, auth_optional=optional)
        return request


def test_credentials_travel_as_each_operation_s_scheme_says(monkeypatch):
    monkeypatch.delenv("OPEN_API_KEY", raising=False)
    anonymous = OpenClient()
    assert "authorization" not in anonymous.call(None).headers
    assert "key" not in anonymous.call("query", optional=True).url.params
    with pytest.raises(rt.ConfigurationError, match="GET /x needs an API key: .* OPEN_API_KEY"):
        anonymous.call("token")
    c = OpenClient(api_key="ada:pw")
    assert c.call("token").headers["authorization"] == "Bearer ada:pw"
    assert c.call("login").headers["authorization"] == "Basic YWRhOnB3"
    assert c.call("header").headers["x-key"] == "ada:pw"
    assert c.call("query").url.params["key"] == "ada:pw"
    assert c.call("cookie").headers["cookie"] == "session=ada:pw"
    assert "authorization" not in c.call(None).headers
    with pytest.raises(rt.ConfigurationError, match="user:password"):
        OpenClient(api_key="no-colon").call("login")


# -- the bounds of a call: the size of an answer and the time it takes ---------------------------

LIMIT = 1 << 20


def flood(piece: bytes, pulled: list[bytes]) -> Iterator[bytes]:
    """A body of ``piece`` again and again, four times the limit (so that a client that read
    past the limit would fail on the body, not hang); ``pulled`` gets each piece as it is
    taken."""
    for _ in range(4 * LIMIT // len(piece) + 1):
        pulled.append(piece)
        yield piece


async def aflood(piece: bytes, pulled: list[bytes], pause: float = 0.0) -> AsyncIterator[bytes]:
    """:func:`flood`, for the async client, ``pause`` seconds between pieces."""
    for _ in range(4 * LIMIT // len(piece) + 1):
        pulled.append(piece)
        yield piece
        await asyncio.sleep(pause)


def streamed(body: Any, **headers: str) -> httpx.Response:
    """A 200 response whose body the client reads as it arrives."""
    return httpx.Response(200, content=body, headers=headers)


async def a_plain(transport: httpx.MockTransport, **options: Any) -> Operation:
    async with AsyncClient(api_key="k", transport=transport, **options) as c:
        return await c.plain("a")


def test_a_body_is_read_up_to_the_limit_and_no_further():
    """Sync and async alike: the body passes the limit in its 17th piece of 64 KiB, the last one
    taken from the server."""
    pulled: list[bytes] = []
    with client(scripted(streamed(flood(b" " * 65536, pulled)))[1], max_response_bytes=LIMIT) as c:
        with pytest.raises(rt.APIResponseTooLargeError) as caught:
            c.plain("a")
    assert (caught.value.limit, caught.value.status_code, len(pulled)) == (LIMIT, 200, 17)
    assert str(caught.value) == (
        "POST https://api.example.com/v1/things/a: the body of the 200 response is over the "
        "limit of 1 MiB (1048576 bytes) (the client's max_response_bytes)"
    )
    pulled.clear()
    transport = scripted(streamed(aflood(b" " * 65536, pulled)))[1]
    with pytest.raises(rt.APIResponseTooLargeError, match="over the limit of 1 MiB"):
        asyncio.run(a_plain(transport, max_response_bytes=LIMIT))
    assert len(pulled) == 17


def test_a_body_declared_over_the_limit_is_not_read_and_an_error_s_body_is_bounded_too():
    pulled: list[bytes] = []
    answer = streamed(flood(b"{}", pulled), **{"content-length": str(LIMIT + 1)})
    with client(scripted(answer)[1], max_response_bytes=LIMIT) as c:
        with pytest.raises(rt.APIResponseTooLargeError):
            c.plain("a")
    assert pulled == []
    error = httpx.Response(404, content=flood(b"no " * 1000, pulled))
    with client(scripted(error)[1], max_response_bytes=LIMIT) as c:
        with pytest.raises(rt.APIResponseTooLargeError, match="the body of the 404 response"):
            c.plain("a")


def gzip_bomb(size: int) -> bytes:
    """A gzip body of about ``size`` / 1000 bytes that decodes to ``size`` bytes."""
    compressor = zlib.compressobj(wbits=zlib.MAX_WBITS | 16)
    megabyte = b"0" * (1 << 20)
    return b"".join(compressor.compress(megabyte) for _ in range(size >> 20)) + compressor.flush()


def test_a_gzip_bomb_is_decoded_no_further_than_the_limit():
    """64 KiB that decode to 64 MiB, past a limit of 1 MiB: our error, sync and async, and no
    more than the limit decoded on the way; what decodes within the limit is read."""
    bomb = gzip_bomb(64 << 20)
    assert len(bomb) < 100_000
    answer = streamed(iter([bomb]), **{"content-encoding": "gzip"})
    with client(scripted(answer)[1], max_response_bytes=LIMIT) as c:
        tracemalloc.start()
        try:
            with pytest.raises(rt.APIResponseTooLargeError, match="over the limit of 1 MiB"):
                c.plain("a")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 4 * LIMIT
    transport = scripted(streamed(aiter_of(bomb), **{"content-encoding": "gzip"}))[1]
    with pytest.raises(rt.APIResponseTooLargeError):
        asyncio.run(a_plain(transport, max_response_bytes=LIMIT))
    body = b'{"id": "op-1", "status": "STATUS_RUNNING"}'
    raw_deflate = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    for coding, encoded in [
        ("gzip", gzip.compress(body)),
        ("deflate", zlib.compress(body)),
        ("deflate", raw_deflate.compress(body) + raw_deflate.flush()),
    ]:
        pieces = [encoded[i : i + 7] for i in range(0, len(encoded), 7)]
        answer = streamed(iter(pieces), **{"content-encoding": coding})
        with client(scripted(answer)[1], max_response_bytes=len(body)) as c:
            assert c.plain("a").id == "op-1"
    with client(scripted(streamed(iter([body]), **{"content-encoding": "br"}))[1]) as c:
        with pytest.raises(rt.APIConnectionError, match="Content-Encoding 'br' is not one"):
            c.plain("a")


async def aiter_of(*pieces: bytes) -> AsyncIterator[bytes]:
    for piece in pieces:
        yield piece


def test_an_event_stream_is_bounded_line_by_line_and_event_by_event():
    lines = [
        b"event: step\r",
        b"\ndata: 1\r\n",
        b"\r\ndata: two\n",
        b"data: lines\n\n: a comment\n\ndata: last",
    ]
    with client(scripted(streamed(iter(lines)))[1]) as c:
        got = [(e.event, e.data) for e in c.watch("a")]
    assert got == [("step", "1"), ("message", "two\nlines"), ("message", "last")]
    pulled: list[bytes] = []
    for stream, what in [
        (flood(b"data: " + b"x" * 65536, pulled), "a line of the event stream"),
        (flood(b"data: " + b"x" * 1000 + b"\n", pulled), "an event of the stream"),
    ]:
        with client(scripted(streamed(stream))[1], max_response_bytes=LIMIT) as c:
            with pytest.raises(rt.APIResponseTooLargeError, match=f"^GET .*: {what} of the 200"):
                list(c.watch("a"))

    async def watch_a_flood() -> None:
        transport = scripted(streamed(aflood(b"data: " + b"x" * 65536, [])))[1]
        async with AsyncClient(api_key="k", transport=transport, max_response_bytes=LIMIT) as c:
            async for _ in await c.watch("a"):
                pass

    with pytest.raises(rt.APIResponseTooLargeError, match="a line of the event stream"):
        asyncio.run(watch_a_flood())


def test_the_deadline_bounds_the_call_and_no_wait_crosses_it(no_sleep):
    """A retry whose wait would end past the deadline is not taken, whatever the server asks."""
    slow_down = httpx.Response(503, headers={"retry-after": "30"})
    seen, transport = scripted(slow_down, slow_down, slow_down)
    with client(transport, deadline=10) as c:
        with pytest.raises(rt.APITimeoutError) as caught:
            c.submit("a")
    assert str(caught.value) == (
        "POST https://api.example.com/v1/things/a: the call did not finish within its deadline "
        "of 10 s (the client's deadline); the last attempt answered 503"
    )
    assert len(seen) == 1 and no_sleep == []
    seen, transport = scripted(slow_down, slow_down, slow_down)
    with client(transport) as c:  # without a deadline, the server's wait is taken
        with pytest.raises(rt.InternalServerError):
            c.submit("a")
    assert len(seen) == 3 and no_sleep == [30.0, 30.0]


@pytest.fixture
def clock(monkeypatch):
    """A clock that only the client's waits and the test move (``clock[0]``, in seconds)."""
    now = [0.0]
    monkeypatch.setattr("time.monotonic", lambda: now[0])
    monkeypatch.setattr("time.sleep", lambda seconds: now.__setitem__(0, now[0] + seconds))
    return now


def test_backoff_waits_stop_at_the_deadline(clock):
    """The first backoff (0.375-0.5 s) fits in the deadline of 1 s, the second (0.75-1 s) not."""
    seen, transport = scripted(*[httpx.Response(503)] * 10)
    with client(transport, max_retries=9, deadline=1.0) as c:
        with pytest.raises(rt.APITimeoutError, match="deadline of 1 s"):
            c.get("a")
    assert len(seen) == 2 and 0.375 <= clock[0] <= 0.5


def test_timeout_bounds_each_attempt_as_a_whole(clock):
    """A server that sends a byte every 0.1 s, each in time for any read timeout, without end:
    each attempt is cut at its timeout of 1 s; a GET is retried, a POST is not."""

    def drip() -> Iterator[bytes]:
        for _ in range(1000):  # 100 s: a client without the bound fails on the body
            clock[0] += 0.1
            yield b" "

    seen, transport = scripted(*[streamed(drip()) for _ in range(3)])
    with client(transport, timeout=1.0) as c:
        with pytest.raises(rt.APITimeoutError, match="did not arrive in full within the timeout"):
            c.get("a")
    assert len(seen) == 3
    seen, transport = scripted(streamed(drip()), operation())
    with client(transport, timeout=1.0, deadline=60) as c:
        with pytest.raises(rt.APITimeoutError):
            c.plain("a")
    assert len(seen) == 1


def test_the_async_client_cancels_an_attempt_at_its_timeout():
    """A body that would take 4 MiB x 10 ms, and a server that would answer after 30 s: only
    the bound of 0.2 s can end the calls in time."""
    seen, transport = scripted(streamed(aflood(b" ", [], pause=0.01)))
    with pytest.raises(rt.APITimeoutError, match="did not arrive in full within the timeout"):
        asyncio.run(a_plain(transport, timeout=0.2))
    assert len(seen) == 1

    async def answer_late(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(30)
        return operation()

    with pytest.raises(rt.APITimeoutError, match="did not arrive in full within the timeout"):
        asyncio.run(a_plain(httpx.MockTransport(answer_late), timeout=0.2))


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("deadline", 0),
        ("deadline", float("inf")),
        ("deadline", "10"),
        ("deadline", True),
        ("max_response_bytes", 0),
        ("max_response_bytes", 1.5),
        ("max_response_bytes", True),
    ],
)
def test_the_bounds_are_checked_when_the_client_is_made(option, value):
    with pytest.raises(rt.ConfigurationError, match=f"^{option} must be"):
        Client(api_key="k", **{option: value})
