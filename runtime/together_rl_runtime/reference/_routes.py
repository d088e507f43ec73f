"""Serving local sessions the way the API does, whatever carries the requests (an httpx transport
or the HTTP server): the POST returns the operation, the GET its current state, an unknown
operation id is a 404 with an ErrorData body. Like the API's gRPC gateway, request fields and
query parameters this revision does not know are ignored; the query parameters and headers it
declares are held to their rules (``ReferenceRevision.parameters``). With API keys, each key is a tenant that sees only its own
sessions: another key's session is as unknown as one that does not exist (404)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, unquote

from .._exceptions import IdempotencyKeyReusedError, UnknownOperationError
from ._definition import ReferenceRevision
from ._nesting import too_deep
from ._parameters import idempotency_headers
from ._session import LocalSession, StepRecord
from ._store import NotDurableError, SessionLimitError, StateError
from ._tenants import NO_KEY, Keys

__all__ = ["Answer", "Router", "Sessions", "SessionSource", "error"]

SessionSource = LocalSession | Mapping[str, LocalSession] | Callable[[str], LocalSession]
"""One session, the sessions by id, or a function that makes the session of an id."""

IDEMPOTENCY_HEADER = "idempotency-key"


class Sessions:
    """The training sessions served in process, one per session id, to one client (a
    :class:`~._transport.LocalTransport` has one API key at most, so one tenant: the ``tenant``
    its router passes is that one, and is not needed to tell sessions apart).

    From a function, each session is made on the first valid step for its id (a GET, or a step
    the request of which is refused, makes none); from a mapping, only its ids are served; a
    single session is bound to the first id it is asked for, and other ids are unknown (so that
    two ids never share one session by mistake).

    A :class:`Router` uses ``find`` (the session of an id, never made), ``fresh`` and ``adopt``
    (a new session, kept once its first request is found valid), ``release`` (the end of a use),
    ``commit`` (what records a step before it counts: nothing here) and ``gradients``, each
    with the request's ``tenant``; the server's :class:`~._store.SessionStore` answers the same,
    and keeps each tenant's sessions apart.
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
        session = self.find(session_id)
        if session is not None:
            return session
        made = self.fresh(session_id)
        return None if made is None else self.adopt(session_id, made)

    def find(self, session_id: str, tenant: str = NO_KEY) -> LocalSession | None:
        """The session of ``session_id`` where there is one (a single session is bound to the
        first id asked for); never made here."""
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None and self._single is not None and not self._sessions:
                session = self._sessions[session_id] = self._single
            return session

    def fresh(self, session_id: str, tenant: str = NO_KEY) -> LocalSession | None:
        """A new session for ``session_id``, not kept until :meth:`adopt`; ``None`` where this
        source makes no sessions."""
        return None if self._make is None else self._make(session_id)

    def forget(self, session: LocalSession) -> None:
        """Drop a session from :meth:`fresh` that was not adopted."""

    def adopt(self, session_id: str, session: LocalSession, tenant: str = NO_KEY) -> LocalSession:
        """Keep ``session`` for ``session_id``; where another request made one first, that one."""
        with self._lock:
            return self._sessions.setdefault(session_id, session)

    def release(self, session_id: str, tenant: str = NO_KEY) -> None:
        """The end of a use that :meth:`find` or :meth:`adopt` began."""

    def commit(self, session_id: str, tenant: str = NO_KEY) -> Callable[[StepRecord], None] | None:
        """What records a step before it counts: nothing, for sessions in memory."""
        return None

    def ids(self) -> list[str]:
        with self._lock:
            return sorted(self._sessions)


Answer = tuple[int, dict[str, Any], dict[str, str]]
"""A status, a JSON body and headers."""


class Router:
    """Answers requests as the API of ``revision`` would, from ``sessions``. With ``keys``,
    requests must carry one of them as a bearer token (401 otherwise), and the key's tenant is
    the one whose sessions the request sees; without, every request is the tenant
    :data:`~._tenants.NO_KEY`'s, whatever it carries. ``gradients(session_id, tenant)`` gives
    the function that computes a step's gradients, where the router should have them computed;
    ``after_step(tenant, session_id, session, operation)`` runs after every POST that reached a
    session (a server logs the step there).

    A body that nests deeper than ``_nesting.MAX_DEPTH`` is refused (400, naming its JSON path)
    before it is parsed.

    Where ``sessions`` records steps (a server's state folder), a step whose record cannot be
    written is taken back and answered 503 with ``x-should-retry: true``: nothing was applied,
    and a resend with the same idempotency key applies it once.
    """

    def __init__(
        self,
        sessions: Any,
        revision: ReferenceRevision,
        *,
        keys: Keys | None = None,
        gradients: Callable[[str, str], Callable[[], object] | None] | None = None,
        after_step: Callable[[str, str, LocalSession, Any], None] | None = None,
    ) -> None:
        self.sessions = sessions
        self.revision = revision
        self.keys = keys
        self._gradients = gradients
        self._after_step = after_step

    def respond(
        self, method: str, path: str, headers: Mapping[str, str], body: bytes
    ) -> tuple[int, dict[str, Any]]:
        """The status and JSON body the API answers ``method path`` with (see :meth:`handle`)."""
        status, payload, _ = self.handle(method, path, headers, body)
        return status, payload

    def handle(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Answer:
        """The status, JSON body and headers the API answers ``method path`` with.

        ``path`` is the raw (still percent-encoded) path, with its query where it has one;
        anything before the operation's path, such as ``/v1``, is ignored. ``headers`` are
        matched without case.
        """
        path, _, query = path.partition("?")
        lowered = {name.lower(): value for name, value in headers.items()}
        tenant = NO_KEY if self.keys is None else self.keys.tenant(lowered)
        if tenant is None:
            return error(401, "authentication_error", "a valid API key is required (Bearer)")
        retrieve = self.revision.retrieve.fullmatch(path)
        if retrieve is not None:
            if method != "GET":
                return error(405, "invalid_request_error", f"{method} is not allowed here; use GET")
            return self._retrieve(retrieve, tenant)
        submit = self.revision.submit.fullmatch(path)
        if submit is not None:
            if method != "POST":
                return error(
                    405, "invalid_request_error", f"{method} is not allowed here; use POST"
                )
            return self._step(submit, tenant, lowered, body, query)
        return error(404, "not_found_error", f"no operation at {method} {path}")

    def _retrieve(self, match: Any, tenant: str) -> Answer:
        try:
            session_id = _segment(match[self.revision.session_id], "session id")
            operation_id = _segment(match[self.revision.operation_id], "operation id")
        except ValueError as exc:
            return error(400, "invalid_request_error", str(exc))
        try:
            session = self.sessions.find(session_id, tenant=tenant)
        except StateError as exc:
            return _unloadable(session_id, exc)
        if session is None:
            return _unknown_session(session_id)
        try:
            return 200, session.get_operation(operation_id).to_dict(), {}
        except UnknownOperationError as exc:
            return error(404, "not_found_error", str(exc))
        finally:
            self.sessions.release(session_id, tenant=tenant)

    def _step(
        self, match: Any, tenant: str, headers: Mapping[str, str], body: bytes, raw_query: str
    ) -> Answer:
        deep = too_deep(body)
        if deep is not None:
            return error(400, "invalid_request_error", deep)
        try:
            data = json.loads(body or b"{}")
        except ValueError as exc:
            return error(400, "invalid_request_error", f"the request body is not JSON: {exc}")
        if not isinstance(data, dict):
            return error(400, "invalid_request_error", "the request body must be a JSON object")
        missing = [n for n in self.revision.required_headers if not headers.get(n.lower())]
        if missing:
            return error(400, "invalid_request_error", f"the header {missing[0]} is required")
        try:
            session_id = _segment(match[self.revision.session_id], "session id")
        except ValueError as exc:
            return error(400, "invalid_request_error", str(exc))
        known = _known_only(data, self.revision.known_fields)
        try:
            query = parse_qs(raw_query, keep_blank_values=True, errors="strict")
        except UnicodeDecodeError:
            return error(400, "invalid_request_error", "the query is not UTF-8 once decoded")
        try:
            session = self.sessions.find(session_id, tenant=tenant)
        except StateError as exc:
            return _unloadable(session_id, exc)
        if session is None:
            made = self.sessions.fresh(session_id, tenant=tenant)
            if made is None:
                return _unknown_session(session_id)
            refused = made._check(known, query, headers)
            if refused is not None:  # an invalid request makes no session
                self.sessions.forget(made)
                return 200, refused.to_dict(), {}
            try:
                session = self.sessions.adopt(session_id, made, tenant=tenant)
            except SessionLimitError as exc:
                headers = {"x-should-retry": "false"}
                return error(
                    429, "rate_limit_error", str(exc), code="session_limit", headers=headers
                )
            except (NotDurableError, StateError) as exc:
                return _not_durable(exc)
        key = next(
            (
                headers[name]
                for name in (*idempotency_headers(self.revision.parameters), IDEMPOTENCY_HEADER)
                if headers.get(name)
            ),
            None,
        )
        try:
            gradients = None if self._gradients is None else self._gradients(session_id, tenant)
            operation = session.optim_step(
                known,
                idempotency_key=key,
                gradients=gradients,
                commit=self.sessions.commit(session_id, tenant=tenant),
                query=query,
                headers=headers,
            )
        except IdempotencyKeyReusedError as exc:
            return error(422, "invalid_request_error", str(exc), code="idempotency_key_reused")
        except NotDurableError as exc:
            return _not_durable(exc)
        finally:
            self.sessions.release(session_id, tenant=tenant)
        if self._after_step is not None:
            self._after_step(tenant, session_id, session, operation)
        return 200, operation.to_dict(), {}


def _segment(raw: str, what: str) -> str:
    """A path segment, percent-decoded: it must be UTF-8 (so that two byte strings never name one
    session)."""
    try:
        return unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise ValueError(f"the {what} {raw!r} is not UTF-8 once percent-decoded") from None


def _not_durable(exc: Exception) -> Answer:
    message = (
        f"the step was not applied: {exc}; nothing was changed, and resending it with the same "
        "Idempotency-Key applies it once"
    )
    return error(
        503,
        "server_error",
        message,
        code="not_durable",
        headers={"x-should-retry": "true", "retry-after": "1"},
    )


def _unloadable(session_id: str, exc: Exception) -> Answer:
    return error(
        500,
        "server_error",
        f"the saved training session {session_id!r} cannot be loaded: {exc}",
    )


def _unknown_session(session_id: str) -> Answer:
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
    status: int,
    kind: str,
    message: str,
    *,
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Answer:
    """An error answer in the API's format (ErrorData), with ``headers``."""
    payload = {"error": {"type": kind, "message": message, "param": None, "code": code}}
    return status, payload, dict(headers or {})
