"""Serve local sessions over HTTP, for tools written in other languages and for tests.

    python -m together_rl.reference.serve --port 8000 --optimizer NAME

(each revision's package runs :func:`main` with its own session class).

Each training session id gets a session of its own, over a model of its own, made on its first
valid step (a GET, or a step whose request is refused, makes none). The API has no way to send
gradients, so the server computes each step's gradients itself, once the request is checked: by
default from a demonstration model (a small regression network on a fixed random batch,
deterministic for a given ``--seed``), or from your model with ``--model module:function``, where
``function(seed)`` returns the ``torch.nn.Module`` and a function that returns the loss of a step.
``--state-dir`` keeps a journal of every session's steps, flushed to the disk before each answer,
and snapshots of its tensors, so that a restarted server continues where it stopped; one server
at a time uses a state folder.

With API keys (``--api-keys-file``, or ``TOGETHER_RL_REFERENCE_API_KEYS``), a request needs one
of them, and each key sees only its own sessions. Without, the server listens on loopback only
(``--no-auth`` lets it listen elsewhere, open to anyone who reaches it).
"""

from __future__ import annotations

import argparse
import asyncio
import http
import importlib
import ipaddress
import json
import logging
import os
import re
import signal
import socket
import sys
import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import h11
import torch
import uvicorn
from torch import Tensor, nn

from .._model import UNSET
from ..optimizers import DEFAULT, choices
from ..settings import OPTIMIZERS
from . import _uvicorn, distributed
from ._connections import RETRY_AFTER, Budget, Gate, Verdict, raise_file_limit
from ._routes import Router, error
from ._session import LocalSession
from ._statedir import StateDirInUse
from ._store import SessionStore
from ._tenants import KEYS_ENV, NO_KEY, Keys, KeysError, keys_from_environment, read_keys_file

__all__ = ["ModelFactory", "ReferenceServer", "demo_model", "main", "make_server"]

ModelFactory = Callable[[int], tuple[nn.Module, Callable[[], Tensor]]]
"""``function(seed)``: a model and a function that returns the loss of one step."""

MAX_BODY_BYTES = 1 << 20
READ_TIMEOUT = 30.0
MAX_HEAD_BYTES = 16 * 1024
"""The request line and headers together, at most (431 beyond)."""
MAX_URL_BYTES = 8 * 1024
"""The request target, at most (414 beyond)."""
MAX_SESSIONS = 1000
SNAPSHOT_EVERY = 100
BACKLOG = 2048
LINGER = 2.0
"""Seconds a refused connection's further bytes are read and dropped before it is closed, so
that the client reads the answer rather than a reset."""
WORKERS = 64
"""Threads that run steps and reads (a step blocks its thread while it waits its turn)."""


def demo_model(seed: int) -> tuple[nn.Module, Callable[[], Tensor]]:
    """A small two-layer regression network and the loss of a fixed random batch."""
    generator = torch.Generator().manual_seed(seed)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) * 0.1)
    inputs = torch.randn(64, 16, generator=generator)
    targets = torch.randn(64, 4, generator=generator)
    return model, lambda: nn.functional.mse_loss(model(inputs), targets)


class _StepLog:
    """Logs each step (``--log-steps``): tenant (the name the state folder knows it by, never
    its key; absent without keys), session, operation, status and the settings it used."""

    def __call__(self, tenant: str, session_id: str, session: LocalSession, operation: Any) -> None:
        completed = operation.output is not UNSET
        line = {
            **({} if tenant == NO_KEY else {"tenant": tenant}),
            "session": session_id,
            "operation": operation.id,
            "status": str(operation.status),
            "settings": session.last_settings if completed else None,
        }
        sys.stderr.write(f"step {json.dumps(line)}\n")
        sys.stderr.flush()


def session_factory(
    session_class: type[LocalSession], factory: ModelFactory, seed: int, options: dict[str, Any]
) -> Callable[[], tuple[LocalSession, Callable[[], object]]]:
    """What makes each new session of the server (with ``rollback``, so that a step whose record
    cannot be written is taken back) and the function that computes its step's gradients."""

    def make() -> tuple[LocalSession, Callable[[], object]]:
        model, loss = factory(seed)
        session = session_class(model, rollback=True, **options)
        return session, lambda: torch.autograd.backward(loss())

    return make


# -- HTTP ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Limits:
    max_body_bytes: int
    read_timeout: float
    max_head_bytes: int = MAX_HEAD_BYTES
    max_url_bytes: int = MAX_URL_BYTES


def _answer_bytes(
    status: int, payload: dict[str, Any], *, close: bool, headers: Mapping[str, str]
) -> bytes:
    """A whole JSON answer, as it goes on the wire (for answers written outside the app)."""
    body = json.dumps(payload).encode()
    phrase = http.HTTPStatus(status).phrase
    head = (
        f"HTTP/1.1 {status} {phrase}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        + "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        + ("connection: close\r\n" if close else "")
        + "\r\n"
    )
    return head.encode("ascii") + body


class _StrictConnection(h11.Connection):
    """h11's server side, with the server's limits: the request target, the request's head and
    its body (by Content-Length, or counted as chunks arrive); a request with both Content-Length
    and Transfer-Encoding is refused. The last protocol error is kept for the answer."""

    def __init__(self, limits: _Limits) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=limits.max_head_bytes)
        self.limits = limits
        self.error: h11.RemoteProtocolError | None = None
        self._body = 0

    def next_event(self) -> Any:
        try:
            event = super().next_event()
            if isinstance(event, h11.Request):
                self._check(event)
            elif isinstance(event, h11.Data):
                self._body += len(event.data)
                if self._body > self.limits.max_body_bytes:
                    raise h11.RemoteProtocolError(
                        f"the request body is over {self.limits.max_body_bytes} bytes", 413
                    )
            return event
        except h11.RemoteProtocolError as exc:
            self.error = exc
            raise

    def _check(self, request: h11.Request) -> None:
        limits = self.limits
        self._body = 0
        if len(request.target) > limits.max_url_bytes:
            raise h11.RemoteProtocolError(
                f"the request's URL is over {limits.max_url_bytes} bytes", 414
            )
        head = len(request.target) + sum(len(n) + len(v) + 4 for n, v in request.headers)
        if head > limits.max_head_bytes:
            raise h11.RemoteProtocolError("Receive buffer too long", 431)
        names = {name for name, _ in request.headers}
        if b"transfer-encoding" in names and b"content-length" in names:
            raise h11.RemoteProtocolError(
                "the request has both Content-Length and Transfer-Encoding", 400
            )
        for name, value in request.headers:
            if name == b"content-length" and int(value) > limits.max_body_bytes:
                raise h11.RemoteProtocolError(
                    f"the request body is over {limits.max_body_bytes} bytes", 413
                )


def _described(exc: h11.RemoteProtocolError | None, limits: _Limits) -> tuple[int, str]:
    """The status and message of the answer to a request h11 or the limits refused."""
    if exc is None:
        return 400, "the request is not valid HTTP/1.1"
    status = exc.error_status_hint
    text = re.sub(r"bytearray\((b'.*?')\)", r"\1", str(exc))
    if status == 431:
        return status, (
            f"the request's line and headers are over {limits.max_head_bytes} bytes together"
        )
    if status == 501:
        return status, f"the request's transfer coding is not supported ({text}): use chunked"
    if text == "bad Content-Length":
        return status, "the request's Content-Length is not a number of bytes"
    if text == "conflicting Content-Length headers":
        return status, "the request has two different Content-Length values"
    if status != 400 or text.startswith("the request"):
        return status, text
    return status, f"the request is not valid HTTP/1.1: {text}"


class _Protocol(_uvicorn.Protocol):
    """uvicorn's HTTP/1.1 over h11, with the server's limits, a deadline on each whole request
    (from its first byte, or from the connection's start, to its last byte of body), and every
    refusal answered in the API's JSON format, then the connection closed gracefully. The
    ``gate`` counts the connections: one beyond the server's bound is answered 503 with
    ``Retry-After`` as soon as it is made (or, past the refusals the bound allows, closed)."""

    def __init__(self, *args: Any, limits: _Limits, gate: Gate, **kwargs: Any) -> None:
        self.strict = _StrictConnection(limits)
        super().__init__(*args, parser=self.strict, **kwargs)
        self.limits = limits
        self.gate = gate
        self.verdict: Verdict | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._receiving = False
        self._refused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.verdict = self.gate.enter()
        if self.verdict is Verdict.DROP:
            self.transport.abort()
            return
        # answers are small and written in parts (head, body): send each at once rather than
        # waiting for the client's delayed ACK (asyncio sets this only on sockets made with
        # IPPROTO_TCP)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.verdict is Verdict.REFUSE:
            bound = self.gate.budget.connections
            self._refuse(
                503,
                f"the server holds as many connections as it serves at once ({bound}, "
                f"--max-connections); try again in {RETRY_AFTER} s",
                kind="server_error",
                headers={"retry-after": str(RETRY_AFTER), "x-should-retry": "true"},
            )
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.verdict is not None:
            self.gate.leave(self.verdict)
            self.verdict = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # read and dropped until the connection closes
        if self.strict.their_state in (h11.IDLE, h11.SEND_BODY):
            if self._deadline is None:
                self._arm()
            self._receiving = True
        super().data_received(data)
        self._settle()

    def response_done(self) -> None:
        if self.transport.is_closing() or self._refused:
            return
        # a pipelined request that had begun to arrive has its deadline too
        if self.strict.their_state is h11.SEND_BODY or self.strict.trailing_data[0]:
            self._receiving = True
            if self._deadline is None:
                self._arm()
        self._settle()

    def malformed(self, message: str) -> None:
        self._refuse(*_described(self.strict.error, self.limits))

    def _settle(self) -> None:
        """Once the request has arrived whole (or the connection ends), its deadline is off."""
        if self.strict.their_state not in (h11.IDLE, h11.SEND_BODY):
            self._disarm()
            self._receiving = False

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.limits.read_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or self._refused:
            return
        if not self._receiving:  # an idle connection: closed without a word, as when kept alive
            self.transport.close()
            return
        self._refuse(
            408,
            f"the request did not arrive whole within {self.limits.read_timeout:g} s "
            "(--read-timeout)",
        )

    def _refuse(
        self,
        status: int,
        message: str,
        *,
        kind: str = "invalid_request_error",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Answer ``status`` with an ErrorData body and close: the client's further bytes are
        read and dropped for a while first, so that it reads the answer rather than a reset."""
        self._disarm()
        self._refused = True
        if not self.take_over():  # a response has begun: too late for an answer of its own
            self.transport.close()
            return
        self.logger.info("refused a request: %d %s", status, message)
        _, payload, extra = error(status, kind, message, headers=headers)
        self.transport.write(_answer_bytes(status, payload, close=True, headers=extra))
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.transport.resume_reading()
        self.loop.call_later(LINGER, self.transport.close)

    def eof_received(self) -> None:
        if self._refused:
            self.transport.close()


class _App:
    """The ASGI application: reads the body, answers from the router in a worker thread."""

    def __init__(self, router: Router, limits: _Limits, executor: ThreadPoolExecutor) -> None:
        self.router = router
        self.limits = limits
        self.executor = executor

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > self.limits.max_body_bytes:  # the protocol refuses this first
                limit = self.limits.max_body_bytes
                await _send(send, *error(413, "invalid_request_error", f"over {limit} bytes"))
                return
            if not message.get("more_body", False):
                break
        headers = {
            name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]
        }
        path = (scope.get("raw_path") or scope["path"].encode()).decode("ascii").partition("?")[0]
        query = scope.get("query_string", b"").decode("latin-1")
        if query:
            path = f"{path}?{query}"
        loop = asyncio.get_running_loop()
        try:
            answer = await loop.run_in_executor(
                self.executor, self.router.handle, scope["method"], path, headers, bytes(body)
            )
        except Exception:  # a fault of the server: still an answer, in the API's format
            traceback.print_exc()
            answer = error(500, "server_error", "the server failed; see its log")
        await _send(send, *answer)


async def _send(send: Any, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
    data = json.dumps(payload).encode()
    raw = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
        *((name.encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data, "more_body": False})


class ReferenceServer:
    """The reference's HTTP/1.1 server: uvicorn with its h11 protocol, on a socket bound (and
    listening, with a backlog of ``backlog``) as soon as it is made, so that its port is known and
    clients may connect before :meth:`serve_forever` runs.

    Keep-alive (an idle connection is closed after ``read_timeout`` seconds), chunked request
    bodies, ``TCP_NODELAY``. A request must arrive whole, head and body, within ``read_timeout``
    seconds (408); a body over ``max_body_bytes`` is refused with 413, a URL over 8 KiB with 414,
    a head over 16 KiB with 431, a transfer coding other than chunked with 501, and malformed
    framing (a bad chunk size or Content-Length, two different Content-Lengths, both
    Content-Length and Transfer-Encoding) with 400: each with an ErrorData body, then the
    connection is closed.

    It serves ``budget.connections`` connections at once (by default three quarters of what the
    file limit leaves, see ``_connections``); one beyond is answered 503 with ``Retry-After``
    and closed, so that a flood of connections never takes the files the server needs."""

    def __init__(
        self,
        host: str,
        port: int,
        router: Router,
        *,
        max_body_bytes: int = MAX_BODY_BYTES,
        read_timeout: float = READ_TIMEOUT,
        backlog: int = BACKLOG,
        budget: Budget | None = None,
    ) -> None:
        if budget is None:
            budget = Budget.of(raise_file_limit(), own_files=WORKERS + 1, backlog=backlog)
        self.budget = budget
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.socket.bind((host, port))
        self.socket.listen(budget.backlog)
        self.socket.set_inheritable(True)
        self.host = host
        self.server_port: int = self.socket.getsockname()[1]
        self.executor = ThreadPoolExecutor(WORKERS, thread_name_prefix="reference")
        limits = _Limits(max_body_bytes, read_timeout)
        config = uvicorn.Config(
            _App(router, limits, self.executor),
            http=_uvicorn.http_protocol(_Protocol, limits=limits, gate=Gate(budget)),
            interface="asgi3",
            lifespan="off",
            ws="none",
            loop="asyncio",
            log_config=None,
            access_log=False,
            server_header=False,
            backlog=budget.backlog,
            timeout_keep_alive=max(1, int(read_timeout)),
            timeout_graceful_shutdown=5,
            h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        )
        self.uvicorn = uvicorn.Server(config)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.server_port}"

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown` (or SIGINT/SIGTERM where run in the main thread), then
        finish the requests under way, and return."""
        main = threading.current_thread() is threading.main_thread()
        # SIGTERM asks uvicorn to stop, whenever it comes (before uvicorn's own handler is in
        # place too); uvicorn raises the signal it stopped for again once it is done: here, that
        # only asks again
        previous = signal.signal(signal.SIGTERM, self._stop_on_signal) if main else None
        try:
            self.uvicorn.run(sockets=[self.socket])
        except KeyboardInterrupt:
            pass
        finally:
            if main:
                signal.signal(signal.SIGTERM, previous)

    def shutdown(self) -> None:
        _uvicorn.stop(self.uvicorn)

    def _stop_on_signal(self, signum: int, frame: Any) -> None:
        self.shutdown()

    def server_close(self) -> None:
        """Close the socket and wait for the steps under way."""
        self.socket.close()
        self.executor.shutdown(wait=True)


def make_server(
    host: str,
    port: int,
    router: Router,
    *,
    max_body_bytes: int = MAX_BODY_BYTES,
    read_timeout: float = READ_TIMEOUT,
    budget: Budget | None = None,
) -> ReferenceServer:
    """An HTTP/1.1 server answering the API's optim-step operations with ``router`` (see
    :class:`ReferenceServer`)."""
    return ReferenceServer(
        host,
        port,
        router,
        max_body_bytes=max_body_bytes,
        read_timeout=read_timeout,
        budget=budget,
    )


def _factory(spec: str) -> ModelFactory:
    module_name, _, function_name = spec.partition(":")
    if not module_name or not function_name:
        raise SystemExit(f"--model takes module:function, got {spec!r}")
    try:
        function = getattr(importlib.import_module(module_name), function_name)
    except (ImportError, AttributeError) as exc:
        raise SystemExit(f"--model {spec}: {exc}") from None
    if not callable(function):
        raise SystemExit(f"--model {spec}: {function_name} is not a function")
    factory: ModelFactory = function
    return factory


def main(
    argv: Sequence[str] | None = None,
    *,
    session_class: type[LocalSession],
    prog: str = "python -m together_rl.reference.serve",
) -> int:
    """Serve sessions of ``session_class`` (a revision's ``LocalSession``) as the command line
    ``argv`` says."""
    if distributed.launched_by_torchrun():  # one of N ranks: rank 0 serves, the others follow
        return distributed.serve_ranks(argv, session_class=session_class, prog=prog, serve=main)
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: 127.0.0.1); an address other than loopback needs "
        "API keys, or --no-auth",
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="port (default: 8000; 0 picks a free one)"
    )
    parser.add_argument("--optimizer", choices=OPTIMIZERS, default=DEFAULT.name)
    for choice in choices():
        parser.add_argument(choice.flag, choices=choice.values, default=choice.default)
    parser.add_argument(
        "--model",
        default="together_rl_runtime.reference.serve:demo_model",
        help="module:function making each session's model and loss (default: the demonstration "
        "model)",
    )
    parser.add_argument("--seed", type=int, default=0, help="passed to the model function")
    parser.add_argument(
        "--state-dir",
        type=Path,
        help="keep each session's journal of steps (flushed before every answer) and snapshots "
        "here, and load them back after a restart",
    )
    parser.add_argument(
        "--snapshot-every",
        type=_positive,
        default=SNAPSHOT_EVERY,
        help="snapshot a session's tensors every N completed steps (default: "
        f"{SNAPSHOT_EVERY}; also at eviction and shutdown): a restart applies again at most "
        "this many steps",
    )
    parser.add_argument(
        "--max-sessions",
        type=_positive,
        default=MAX_SESSIONS,
        help=f"sessions held in memory, at most (default: {MAX_SESSIONS}); beyond, the least "
        "recently used is moved to --state-dir, or without one a new session is refused (429)",
    )
    parser.add_argument(
        "--api-keys-file",
        type=Path,
        help="the API keys the server accepts, one a line (blank lines and # comments skipped); "
        f"each key sees only its own sessions. Keys also come from {KEYS_ENV} (separated by "
        "commas or whitespace)",
    )
    parser.add_argument(
        "--api-key",
        help="deprecated, as every user of the machine sees it (ps): one more API key; use "
        f"--api-keys-file or {KEYS_ENV}",
    )
    parser.add_argument(
        "--no-auth",
        action="store_true",
        help="serve without API keys on an address other than loopback, on purpose: anyone who "
        "reaches it uses every session",
    )
    parser.add_argument(
        "--log-steps",
        action="store_true",
        help="log each step's session, operation, status and the hyperparameters it used",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=int,
        default=MAX_BODY_BYTES,
        help=f"refuse larger request bodies with 413 (default: {MAX_BODY_BYTES})",
    )
    parser.add_argument(
        "--read-timeout",
        type=float,
        default=READ_TIMEOUT,
        help=f"seconds a whole request, head and body, may take to arrive (408 after), and an "
        f"idle connection stays open (default: {READ_TIMEOUT:g})",
    )
    parser.add_argument(
        "--max-connections",
        type=_positive,
        help="connections served at once (default: three quarters of what the file limit, "
        "ulimit -n, leaves the server); one beyond is answered 503 with Retry-After",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s", stream=sys.stderr)
    try:
        keys = _api_keys(args, os.environ)
    except KeysError as exc:
        parser.error(str(exc))
    if keys and args.no_auth:
        parser.error("--no-auth serves without API keys, but keys were given")
    loopback = _loopback(args.host)
    if not keys and not args.no_auth and not loopback:
        parser.error(
            f"--host {args.host} is not a loopback address, and the server has no API key: "
            "anyone who reaches it would use every session. Give it keys (--api-keys-file, or "
            f"{KEYS_ENV}), or pass --no-auth to serve without them on purpose"
        )
    own_files = WORKERS + 1 + (args.max_sessions if args.state_dir else 0)
    try:
        budget = Budget.of(
            raise_file_limit(),
            own_files=own_files,
            backlog=BACKLOG,
            connections=args.max_connections,
        )
    except ValueError as exc:
        parser.error(str(exc))
    options = {
        "optimizer": args.optimizer,
        **{c.keyword: getattr(args, c.keyword) for c in choices()},
    }
    revision = session_class.revision
    try:
        store = SessionStore(
            session_factory(session_class, _factory(args.model), args.seed, options),
            revision.revision,
            state_dir=args.state_dir,
            max_sessions=args.max_sessions,
            snapshot_every=args.snapshot_every,
        )
    except StateDirInUse as exc:
        raise SystemExit(str(exc)) from None
    except OSError as exc:
        raise SystemExit(f"--state-dir {args.state_dir}: {exc}") from None
    keyring = Keys(keys) if keys else None
    router = Router(
        store,
        revision,
        keys=keyring,
        gradients=store.gradients,
        after_step=_StepLog() if args.log_steps else None,
    )
    try:
        server = make_server(
            args.host,
            args.port,
            router,
            max_body_bytes=args.max_body_bytes,
            read_timeout=args.read_timeout,
            budget=budget,
        )
    except OSError as exc:
        store.close()
        raise SystemExit(f"cannot listen on {args.host}:{args.port}: {exc}") from None
    model = "the demonstration model" if args.model == parser.get_default("model") else args.model
    print(
        f"serving revision {revision.revision} on {server.url}: "
        f"one {args.optimizer} session per session id, over {model}; "
        + (
            f"saved in {args.state_dir} (a journal flushed before every answer)"
            if args.state_dir
            else "not saved (--state-dir)"
        )
        + "; "
        + _access(0 if keyring is None else len(keyring), loopback=loopback),
        flush=True,
    )
    try:
        server.serve_forever()
    finally:
        server.server_close()
        store.close()
    return 0


def _api_keys(args: argparse.Namespace, environ: Mapping[str, str]) -> list[str]:
    """The API keys of the command line and the environment (KeysError where one is
    malformed). ``TOGETHER_API_KEY``, the client's own key, is never one."""
    keys = keys_from_environment(environ)
    if args.api_keys_file is not None:
        keys += read_keys_file(args.api_keys_file)
    if args.api_key:
        sys.stderr.write(
            "warning: --api-key is deprecated: every user of this machine can read it (ps); "
            f"give keys in --api-keys-file or {KEYS_ENV}\n"
        )
        keys.append(args.api_key)
    if not keys and "TOGETHER_API_KEY" in environ:
        sys.stderr.write(
            "note: the server does not read TOGETHER_API_KEY (the client's key); give it keys "
            f"in --api-keys-file or {KEYS_ENV}\n"
        )
    return keys


def _loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback address (only this machine reaches
    it)."""
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    addresses = {str(info[4][0]).partition("%")[0] for info in found}
    return bool(addresses) and all(ipaddress.ip_address(a).is_loopback for a in addresses)


def _access(keys: int, *, loopback: bool) -> str:
    """Who may use the server, as its banner says."""
    if keys:
        return f"{keys} API key{'s' if keys != 1 else ''}, each seeing only its own sessions"
    if loopback:
        return "no API key: on loopback only, where every client sees every session"
    return "no API key (--no-auth): anyone who reaches it uses every session"


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
