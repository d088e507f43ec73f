"""The reference of the newest revision without a server: its session store and router in this
process, and steps sent through them as the server would pass them on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support import facts
from support.facts import NEWEST
from support.packages import reference
from together_rl_runtime.reference import _routes, _store, serve


def make_sessions(revision: str = NEWEST):
    """The server's factory of Adam sessions of the demo model, for ``revision``'s reference."""
    session_class = reference(revision).LocalSession
    options = {"optimizer": "adam", "muon_scaling": "original"}
    return serve.session_factory(session_class, serve.demo_model, 0, options)


def store_and_router(state_dir: Path, **options: Any) -> tuple[_store.SessionStore, _routes.Router]:
    """A session store on ``state_dir`` (``options``: its bounds) and the router over it."""
    store = _store.SessionStore(make_sessions(), NEWEST, state_dir=state_dir, **options)
    router = _routes.Router(
        store, reference(NEWEST).LocalSession.revision, gradients=store.gradients
    )
    return store, router


def plain(revision: str = NEWEST) -> dict:
    """A body that sets nothing but what the revision requires."""
    return facts.required_body(revision)


def step(router: _routes.Router, session: str, data: dict, key: str | None = None):
    """A step of ``session`` with the body ``data`` (and the idempotency key ``key``) through
    ``router``: its status, answer and headers."""
    headers = facts.required_headers(NEWEST)
    if key is not None:
        headers["Idempotency-Key"] = key
    return router.handle("POST", facts.path(NEWEST, session), headers, json.dumps(data).encode())
