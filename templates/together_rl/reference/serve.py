"""Serve a local session over HTTP on loopback, for tools written in other languages.

    python -m together_rl.reference.serve --port 8000 --optimizer adam

The server answers the optim-step operations of the package's revision as the API does (see
``LocalTransport``). This API has no way to send gradients, so before each step the served
session computes the gradients of a small demonstration model on a fixed random regression
batch: the steps do real optimizer work, deterministically for a given ``--seed``.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import torch
from torch import nn

from .._revision import SPEC_REVISION
from ._routes import respond
from ._session import LocalSession


def demo_model(seed: int) -> tuple[nn.Module, Callable[[], None]]:
    """A small two-layer model and a function that puts its loss's gradients in ``.grad``."""
    generator = torch.Generator().manual_seed(seed)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=generator) * 0.1)
    inputs = torch.randn(64, 16, generator=generator)
    targets = torch.randn(64, 4, generator=generator)

    def backward() -> None:
        torch.autograd.backward(nn.functional.mse_loss(model(inputs), targets))

    return model, backward


def make_server(
    host: str, port: int, session: LocalSession, before_step: Callable[[], None] | None = None
) -> ThreadingHTTPServer:
    """An HTTP server answering the API's optim-step operations from ``session``."""
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            path = self.path.partition("?")[0]
            if self.command == "POST" and before_step is not None:
                with lock:
                    before_step()
                    status, payload = respond(session, self.command, path, body)
            else:
                status, payload = respond(session, self.command, path, body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _answer

    return ThreadingHTTPServer((host, port), Handler)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m together_rl.reference.serve", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)"
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="port (default: 8000; 0 picks a free one)"
    )
    parser.add_argument("--optimizer", choices=("adam", "muon"), default="adam")
    parser.add_argument("--muon-scaling", choices=("original", "match_adam"), default="original")
    parser.add_argument("--seed", type=int, default=0, help="seed of the demonstration model")
    args = parser.parse_args(argv)
    model, backward = demo_model(args.seed)
    session = LocalSession(model, args.optimizer, muon_scaling=args.muon_scaling)
    server = make_server(args.host, args.port, session, before_step=backward)
    print(
        f"serving revision {SPEC_REVISION} ({args.optimizer}) on http://{args.host}:{server.server_port}",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
