"""A real HTTP server on 127.0.0.1 for the client tests: it serves scripted replies in order and
records every request it receives."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    """JSON-encoded unless it is ``str`` or ``bytes``."""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    held: threading.Event | None = None
    """Answer only once this is set (the server holds the request till then)."""
    drop: bool = False
    """Close the connection after reading the request, with no response."""


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> Any:
        return json.loads(self.body)


class LoopbackServer:
    """``with LoopbackServer() as server: server.script(Reply(...), ...)``; then ``server.seen``."""

    def __init__(self, reserved: socket.socket | None = None) -> None:
        """On a port of its own, or listening on ``reserved`` (a socket of
        :func:`refused_port`, which refused connections until now)."""
        self.replies: deque[Reply] = deque()
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def handle(self) -> None:
                try:
                    super().handle()
                except ConnectionResetError:  # the client closed with the answer unread (bounds)
                    pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with server._lock:
                    server.seen.append(
                        Seen(
                            self.command,
                            self.path,
                            {k.lower(): v for k, v in self.headers.items()},
                            body,
                            time.monotonic(),
                        )
                    )
                    reply = (
                        server.replies.popleft()
                        if server.replies
                        else Reply(599, {"error": {"type": "test", "message": "no reply scripted"}})
                    )
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.held is not None:
                    reply.held.wait()
                if reply.drop:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if isinstance(reply.body, bytes):
                    payload = reply.body
                elif isinstance(reply.body, str):
                    payload = reply.body.encode()
                else:
                    payload = json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    if "content-type" not in {k.lower() for k in reply.headers}:
                        self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (
                    BrokenPipeError,
                    ConnectionResetError,
                ):  # the client gave up (timeouts, cancels)
                    pass

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _handle

        if reserved is None:
            self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        else:
            self.httpd = ThreadingHTTPServer(
                reserved.getsockname(), Handler, bind_and_activate=False
            )
            self.httpd.socket.close()
            self.httpd.socket = reserved
            self.httpd.server_address = reserved.getsockname()
            self.httpd.server_activate()
        self.httpd.daemon_threads = True
        # a short poll interval: shutdown() waits for the serving loop's next poll
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def __enter__(self) -> LoopbackServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def refused_port() -> Iterator[socket.socket]:
    """A socket bound to a port of 127.0.0.1 that does not listen, for the ``with`` block: a
    connection to its port is refused, and no other process (another test's server, a rank's
    collective) can take the port meanwhile, as one merely free a moment ago could be."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock


def free_port() -> int:
    """A port nothing listens on right now, for a server started in another process that must
    be told its port (pypiserver): another process may take it before that server does, which
    then fails to start; where nothing is to listen, :func:`refused_port` holds the port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return port_of(sock)


def port_of(sock: socket.socket) -> int:
    return int(sock.getsockname()[1])


class DripServer:
    """A server on 127.0.0.1 that answers every request a byte at a time, each byte
    ``interval`` seconds after the one before (well within any read timeout), and never finishes
    the answer: only the client's own bound ends the exchange. With ``head``, it is the head of
    the response that never ends (one header line after another); else the head comes at once
    and then a body without end. After ``give_up`` seconds it closes the connection, so that a
    client without a bound fails with a broken answer rather than hanging the test."""

    def __init__(self, *, head: bool, interval: float = 0.01, give_up: float = 30.0) -> None:
        self.drip_head = head
        self.interval = interval
        self.give_up = give_up
        self.connections = 0
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        host, port = self._listener.getsockname()[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> DripServer:
        thread = threading.Thread(target=self._accept, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        try:
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accept() under way
        except OSError:
            pass
        self._listener.close()
        for thread in list(self._threads):
            thread.join(timeout=5)

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except OSError:  # the listener was closed
                return
            self.connections += 1
            thread = threading.Thread(target=self._drip, args=(connection,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _drip(self, connection: socket.socket) -> None:
        with connection:
            received = b""
            while b"\r\n\r\n" not in received:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                received += chunk
            if self.drip_head:
                endless = _forever(b"HTTP/1.1 200 OK\r\n", b"X-Drip: a\r\n")
            else:
                head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                connection.sendall(head + b"Content-Length: 1000000\r\n\r\n")
                endless = _forever(b"", b" ")  # JSON allows any amount of white space
            ends = time.monotonic() + self.give_up
            for part in endless:
                for byte in part:
                    if self._stop.wait(self.interval) or time.monotonic() > ends:
                        return
                    try:
                        connection.sendall(bytes([byte]))
                    except OSError:  # the client gave up
                        return


def _forever(first: bytes, then: bytes) -> Iterator[bytes]:
    """``first``, then ``then`` again and again."""
    yield first
    while True:
        yield then
