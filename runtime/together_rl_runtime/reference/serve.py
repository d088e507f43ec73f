"""Serve local sessions over HTTP, for tools written in other languages and for tests.

    python -m together_rl.reference.serve --port 8000 --optimizer adam

(each revision's package runs :func:`main` with its own session class).

Each training session id gets a session of its own, over a model of its own, made on its first
request. The API has no way to send gradients, so the server computes each step's gradients
itself, once the request is checked: by default from a demonstration model (a small regression
network on a fixed random batch, deterministic for a given ``--seed``), or from your model with
``--model module:function``, where ``function(seed)`` returns the ``torch.nn.Module`` and a
function that returns the loss of a step. ``--state-dir`` saves every session after each step,
so that a restarted server continues where it stopped.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import socket
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from .._model import UNSET
from ._routes import Router, Sessions, error
from ._session import LocalSession

__all__ = ["ModelFactory", "demo_model", "main", "make_server"]

ModelFactory = Callable[[int], tuple[nn.Module, Callable[[], Tensor]]]
"""``function(seed)``: a model and a function that returns the loss of one step."""

MAX_BODY_BYTES = 1 << 20
READ_TIMEOUT = 30.0


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


class _Sessions:
    """Makes the session of each id over its own model, loading it from ``state_dir`` where a
    saved one is there, and saves it after each step."""

    def __init__(
        self,
        session_class: type[LocalSession],
        factory: ModelFactory,
        seed: int,
        options: dict[str, Any],
        state_dir: Path | None,
        log_steps: bool = False,
    ) -> None:
        self.session_class = session_class
        self.factory, self.seed, self.options, self.state_dir = factory, seed, options, state_dir
        self.log_steps = log_steps
        self.losses: dict[str, Callable[[], Tensor]] = {}

    def make(self, session_id: str) -> LocalSession:
        model, loss = self.factory(self.seed)
        session = self.session_class(model, rollback=True, **self.options)
        path = self._path(session_id)
        if path is not None and path.is_file():
            saved = torch.load(path, weights_only=True)
            session.load_state_dict(saved["state"])
        self.losses[session_id] = loss
        return session

    def gradients(self, session_id: str) -> Callable[[], object]:
        loss = self.losses[session_id]
        return lambda: torch.autograd.backward(loss())

    def after_step(self, session_id: str, session: LocalSession, operation: Any) -> None:
        """Log the step (with ``--log-steps``) and save the session (with ``--state-dir``)."""
        if self.log_steps:
            completed = operation.output is not UNSET
            line = {
                "session": session_id,
                "operation": operation.id,
                "status": str(operation.status),
                "settings": session.last_settings if completed else None,
            }
            sys.stderr.write(f"step {json.dumps(line)}\n")
            sys.stderr.flush()
        self.save(session_id, session)

    def save(self, session_id: str, session: LocalSession) -> None:
        path = self._path(session_id)
        if path is None:
            return
        revision = session.revision.revision
        state = {"revision": revision, "session_id": session_id, "state": session.state_dict()}
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".", delete=False) as file:
            torch.save(state, file)
        os.replace(file.name, path)

    def _path(self, session_id: str) -> Path | None:
        if self.state_dir is None:
            return None
        return self.state_dir / (hashlib.sha256(session_id.encode()).hexdigest()[:32] + ".pt")


class _BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.read_timeout)  # while a request is read
        # answers are small: send them at once rather than waiting for the client's ACK
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"{self.address_string()} {format % args}\n")

    def _answer(self) -> None:
        try:
            body = self._body()
        except _BadRequest as exc:
            self.close_connection = True
            self._send(*error(exc.status, "invalid_request_error", str(exc)))
            return
        path = self.path.partition("?")[0]
        try:
            headers = dict(self.headers.items())
            status, payload = self.server.router.respond(self.command, path, headers, body)
        except Exception:  # a fault of the server: still an answer, in the API's format
            traceback.print_exc()
            status, payload = error(500, "server_error", "the server failed; see its log")
        self._send(status, payload)

    def _body(self) -> bytes:
        limit = self.server.max_body_bytes
        try:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                return self._chunked(limit)
            given = self.headers.get("Content-Length")
            if given is None:
                return b""
            if not given.strip().isdigit():
                raise _BadRequest(400, f"Content-Length is not a number of bytes: {given!r}")
            length = int(given)
            if length > limit:
                raise _BadRequest(413, f"the request body is over {limit} bytes")
            body = self.rfile.read(length)
        except TimeoutError:
            raise _BadRequest(408, "the request body did not arrive in time") from None
        if len(body) != length:
            raise _BadRequest(400, "the request body is shorter than its Content-Length")
        return body

    def _chunked(self, limit: int) -> bytes:
        body = bytearray()
        while True:
            line = self.rfile.readline(1024).strip()
            size_text = line.split(b";", 1)[0]
            try:
                size = int(size_text, 16)
            except ValueError:
                raise _BadRequest(400, f"a malformed chunk size: {line[:40]!r}") from None
            if size == 0:
                while self.rfile.readline(1024).strip():  # trailers
                    pass
                return bytes(body)
            if len(body) + size > limit:
                raise _BadRequest(413, f"the request body is over {limit} bytes")
            chunk = self.rfile.read(size)
            if len(chunk) != size or self.rfile.readline(1024).strip():
                raise _BadRequest(400, "a chunk is shorter than its size")
            body += chunk

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _answer


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self, address: tuple[str, int], router: Router, max_body_bytes: int, read_timeout: float
    ) -> None:
        self.router = router
        self.max_body_bytes = max_body_bytes
        self.read_timeout = read_timeout
        super().__init__(address, _Handler)


def make_server(
    host: str,
    port: int,
    router: Router,
    *,
    max_body_bytes: int = MAX_BODY_BYTES,
    read_timeout: float = READ_TIMEOUT,
) -> ThreadingHTTPServer:
    """An HTTP/1.1 server (keep-alive, chunked request bodies) answering the API's optim-step
    operations with ``router``. A body over ``max_body_bytes`` is refused with 413; a request
    that does not arrive within ``read_timeout`` seconds is answered 408 and its connection
    closed."""
    return _Server((host, port), router, max_body_bytes, read_timeout)


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
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="port (default: 8000; 0 picks a free one)"
    )
    parser.add_argument("--optimizer", choices=("adam", "muon"), default="adam")
    parser.add_argument("--muon-scaling", choices=("original", "match_adam"), default="original")
    parser.add_argument(
        "--model",
        default="together_rl_runtime.reference.serve:demo_model",
        help="module:function making each session's model and loss (default: the demonstration "
        "model)",
    )
    parser.add_argument("--seed", type=int, default=0, help="passed to the model function")
    parser.add_argument(
        "--state-dir", type=Path, help="save each session here after every step, and load it back"
    )
    parser.add_argument(
        "--api-key",
        default=os.environ.get("TOGETHER_API_KEY"),
        help="require this bearer token (default: TOGETHER_API_KEY; none: no check)",
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
        help=f"seconds a request may take to arrive (default: {READ_TIMEOUT:g})",
    )
    args = parser.parse_args(argv)
    if args.state_dir is not None:
        args.state_dir.mkdir(parents=True, exist_ok=True)
    options = {"optimizer": args.optimizer, "muon_scaling": args.muon_scaling}
    sessions = _Sessions(
        session_class, _factory(args.model), args.seed, options, args.state_dir, args.log_steps
    )
    router = Router(
        Sessions(sessions.make),
        session_class.revision,
        api_key=args.api_key or None,
        gradients=sessions.gradients,
        after_step=sessions.after_step,
    )
    server = make_server(
        args.host,
        args.port,
        router,
        max_body_bytes=args.max_body_bytes,
        read_timeout=args.read_timeout,
    )
    model = "the demonstration model" if args.model == parser.get_default("model") else args.model
    print(
        f"serving revision {session_class.revision.revision} on "
        f"http://{args.host}:{server.server_port}: "
        f"one {args.optimizer} session per session id, over {model}; "
        + (f"saved in {args.state_dir}" if args.state_dir else "not saved (--state-dir)")
        + ("; API key required" if args.api_key else ""),
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
