"""Serving local sessions the way the API does, whatever carries the requests (an httpx transport
or the HTTP server): the POST returns the operation, the GET its current state, an unknown
operation id is a 404 with an ErrorData body. Like the API's gRPC gateway, request fields this
revision does not know are ignored."""

from __future__ import annotations

import hmac
import json
import threading
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import unquote

from .._exceptions import IdempotencyKeyReusedError, UnknownOperationError
from ._definition import ReferenceRevision
from ._session import LocalSession

__all__ = ["Router", "Sessions", "SessionSource"]

SessionSource = LocalSession | Mapping[str, LocalSession] | Callable[[str], LocalSession]
"""One session, the sessions by id, or a function that makes the session of an id."""

IDEMPOTENCY_HEADER = "idempotency-key"


class Sessions:
    """The training sessions served, one per session id.

    From a function, each session is made on the first request for its id; from a mapping, only
    its ids are served; a single session is bound to the first id it is asked for, and other
    ids are unknown (so that two ids never share one session by mistake).
    """

    def __init__(self, source: SessionSource) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, LocalSession] = {}
        self._make: Callable[[str], LocalSession] | None = None
        self._single: LocalSession | None = None
        if isinstance(source, LocalSession):
            self._single = source
        elif isinstance(source, Mapping):
            self._sessions.update(source)
        else:
            self._make = source

    def get(self, session_id: str) -> LocalSession | None:
        """The session of ``session_id``, made now where the source makes sessions; ``None``
        where this source serves no such session."""
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None:
                return session
            if self._single is not None and not self._sessions:
                self._sessions[session_id] = self._single
                return self._single
            if self._make is not None:
                session = self._sessions[session_id] = self._make(session_id)
                return session
            return None

    def ids(self) -> list[str]:
        with self._lock:
            return sorted(self._sessions)


class Router:
    """Answers requests as the API of ``revision`` would, from ``sessions``; with an ``api_key``,
    requests must carry it as a bearer token. ``gradients(session_id)`` gives the function that computes a
    step's gradients, where the router should have them computed; ``after_step(session_id,
    session, operation)`` runs after every POST that reached a session (a server saves the
    session and logs the step there)."""

    def __init__(
        self,
        sessions: Sessions,
        revision: ReferenceRevision,
        *,
        api_key: str | None = None,
        gradients: Callable[[str], Callable[[], object] | None] | None = None,
        after_step: Callable[[str, LocalSession, Any], None] | None = None,
    ) -> None:
        self.sessions = sessions
        self.revision = revision
        self.api_key = api_key
        self._gradients = gradients
        self._after_step = after_step

    def respond(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes
    ) -> tuple[int, dict[str, Any]]:
        """The status and JSON body the API answers ``method path`` with.

        ``path`` is the raw (still percent-encoded) path; anything before the operation's path,
        such as ``/v1``, is ignored. ``headers`` are matched without case.
        """
        lowered = {name.lower(): value for name, value in headers.items()}
        if self.api_key is not None and not _authorized(lowered, self.api_key):
            return error(401, "authentication_error", "a valid API key is required (Bearer)")
        retrieve = self.revision.retrieve.fullmatch(path)
        if retrieve is not None:
            if method != "GET":
                return error(405, "invalid_request_error", f"{method} is not allowed here; use GET")
            session = self._session(retrieve)
            if session is None:
                return _unknown_session(unquote(retrieve[self.revision.session_id]))
            try:
                operation_id = unquote(retrieve[self.revision.operation_id])
                return 200, session.get_operation(operation_id).to_dict()
            except UnknownOperationError as exc:
                return error(404, "not_found_error", str(exc))
        submit = self.revision.submit.fullmatch(path)
        if submit is not None:
            if method != "POST":
                return error(
                    405, "invalid_request_error", f"{method} is not allowed here; use POST"
                )
            return self._step(submit, lowered, body)
        return error(404, "not_found_error", f"no operation at {method} {path}")

    def _session(self, match: Any) -> LocalSession | None:
        return self.sessions.get(unquote(match[self.revision.session_id]))

    def _step(
        self, match: Any, headers: Mapping[str, str], body: bytes
    ) -> tuple[int, dict[str, Any]]:
        try:
            data = json.loads(body or b"{}")
        except ValueError as exc:
            return error(400, "invalid_request_error", f"the request body is not JSON: {exc}")
        except RecursionError:
            return error(400, "invalid_request_error", "the request body is nested too deeply")
        if not isinstance(data, dict):
            return error(400, "invalid_request_error", "the request body must be a JSON object")
        missing = [n for n in self.revision.required_headers if not headers.get(n.lower())]
        if missing:
            return error(400, "invalid_request_error", f"the header {missing[0]} is required")
        session_id = unquote(match[self.revision.session_id])
        session = self.sessions.get(session_id)
        if session is None:
            return _unknown_session(session_id)
        key = headers.get(IDEMPOTENCY_HEADER) or None
        gradients = self._gradients(session_id) if self._gradients is not None else None
        try:
            operation = session.optim_step(
                _known_only(data, self.revision.known_fields),
                idempotency_key=key,
                gradients=gradients,
            )
        except IdempotencyKeyReusedError as exc:
            return error(422, "invalid_request_error", str(exc), code="idempotency_key_reused")
        if self._after_step is not None:
            self._after_step(session_id, session, operation)
        return 200, operation.to_dict()


def _authorized(headers: Mapping[str, str], api_key: str) -> bool:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(token.encode(), api_key.encode())


def _unknown_session(session_id: str) -> tuple[int, dict[str, Any]]:
    return error(404, "not_found_error", f"no training session {session_id!r} here")


def _known_only(data: Mapping[str, Any], known: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` without the fields this revision does not define, at every depth."""
    return {
        key: (
            _known_only(value, known[key])
            if isinstance(known[key], dict) and isinstance(value, dict)
            else value
        )
        for key, value in data.items()
        if key in known
    }


def error(
    status: int, kind: str, message: str, *, code: str | None = None
) -> tuple[int, dict[str, Any]]:
    """An error answer in the API's format (ErrorData)."""
    return status, {"error": {"type": kind, "message": message, "param": None, "code": code}}
