"""The one place the reference server builds on uvicorn's internals.

The server (``serve``) answers itself what uvicorn's HTTP/1.1 protocol would otherwise answer
its own way, or not at all: a request over the server's limits, a malformed one, one too slow to
arrive, a connection beyond the server's bound. For that it extends uvicorn's h11 protocol class
(``uvicorn.protocols.http.h11_impl.H11Protocol``), which is no part of uvicorn's public API; all
the server uses of it is here, behind :class:`Protocol`'s few documented names, so that a new
uvicorn release that moves one of them breaks this module alone. Everything else the server uses
of uvicorn is its public API (``uvicorn.Config``, ``uvicorn.Server.run``).

The runtime declares the range of uvicorn it is tested with (:data:`SUPPORTED`, its ``reference``
extra); ``nox -s uvicorn`` runs the server's tests on the oldest and the newest release of that
range. Importing this module with a uvicorn that lacks what it builds on fails at once, naming
that uvicorn's version and what it lacks, rather than in the middle of a request.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any, cast

import h11
import uvicorn

__all__ = ["SUPPORTED", "Protocol", "http_protocol", "missing", "stop"]

SUPPORTED = ">=0.36,<0.55"
"""The releases of uvicorn the server is tested with (the runtime's ``reference`` extra)."""

_INTERNALS = ("send_400_response", "on_response_complete", "_unset_keepalive_if_required")
"""What :class:`Protocol` overrides or calls of uvicorn's h11 protocol class, by name."""


def _unsupported(lacking: str) -> str:
    return (
        f"uvicorn {uvicorn.__version__} lacks {lacking}, which the reference server builds on; "
        f"it is tested with uvicorn{SUPPORTED}: pip install 'uvicorn{SUPPORTED}'"
    )


try:
    from uvicorn.protocols.http.h11_impl import H11Protocol
except ImportError as exc:  # a uvicorn outside the range
    raise ImportError(_unsupported("uvicorn.protocols.http.h11_impl.H11Protocol")) from exc


def missing(protocol: type[asyncio.Protocol] = H11Protocol) -> list[str]:
    """What :class:`Protocol` uses of uvicorn's h11 protocol class that ``protocol`` (by default,
    that class of the uvicorn installed) lacks; empty where it has everything."""
    return [name for name in _INTERNALS if not callable(getattr(protocol, name, None))]


if missing():  # a uvicorn outside the range
    raise ImportError(_unsupported(", ".join(f"H11Protocol.{name}" for name in missing())))


class Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol over h11, seen through what the server needs of it.

    Made by uvicorn with its own arguments, which it passes on, and ``parser``: the h11
    connection that reads the requests, in place of the one uvicorn would make. It is an
    :class:`asyncio.Protocol`: a subclass extends ``connection_made``, ``connection_lost`` and
    ``data_received`` (which feeds the received bytes to ``parser`` and serves the requests it
    reads), calling them here, and answers ``eof_received`` itself. Beside, it has:

    - ``transport`` (the connection's :class:`asyncio.Transport`, from ``connection_made``),
      ``loop`` (the event loop it runs in) and ``logger`` (uvicorn's ``uvicorn.error``);
    - :meth:`malformed` and :meth:`response_done`, to extend: what happens where ``parser``
      refuses the bytes received, and once a response is written whole;
    - :meth:`take_over`, to call: from then on the subclass answers and closes the connection.
    """

    transport: asyncio.Transport
    loop: asyncio.AbstractEventLoop
    logger: logging.Logger

    def __init__(self, *args: Any, parser: h11.Connection, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = parser

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(cast(asyncio.Transport, transport))

    def malformed(self, message: str) -> None:
        """``parser`` refused the bytes received (an ``h11.RemoteProtocolError``; ``message``:
        uvicorn's words for it). By default, uvicorn's own answer: ``message`` in a plain-text
        400, then the connection closed."""
        super().send_400_response(message)

    def response_done(self) -> None:
        """A response has been written whole, and uvicorn has readied the connection for the
        next request (and begun to serve it, where it had arrived already). By default,
        nothing more."""

    def take_over(self) -> bool:
        """Take the connection from uvicorn, to answer it and close it: uvicorn's keep-alive
        timer no longer closes it, and the application's response under way, if any, goes
        nowhere (the application is told that the client has gone). False where that response
        has begun to be written: too late for another answer on this connection."""
        self._unset_keepalive_if_required()
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            return True
        if cycle.response_started:
            return False
        cycle.disconnected = True
        cycle.message_event.set()
        return True

    # uvicorn's names for the two hooks

    def send_400_response(self, msg: str) -> None:
        self.malformed(msg)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.response_done()


def http_protocol(protocol: type[Protocol], **options: Any) -> type[asyncio.Protocol]:
    """What ``uvicorn.Config(http=...)`` takes to make each connection's protocol a
    ``protocol``, made with ``options`` besides uvicorn's own arguments."""
    return cast("type[asyncio.Protocol]", functools.partial(protocol, **options))


def stop(server: uvicorn.Server) -> None:
    """Ask ``server`` to stop (from any thread): it stops taking connections, finishes the
    requests under way, and its ``run`` returns."""
    server.should_exit = True
