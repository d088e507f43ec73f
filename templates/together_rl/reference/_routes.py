"""Serving a local session the way the API does: the POST returns the operation, the GET its
current state, an unknown operation id is a 404 with an ErrorData body. Like the API's gRPC
gateway, request fields this revision does not know are ignored."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from ._fields import KNOWN_FIELDS, OPERATION_ID, RETRIEVE, SUBMIT
from ._session import LocalSession, UnknownOperationError

__all__ = ["respond"]


def respond(
    session: LocalSession, method: str, path: str, body: bytes
) -> tuple[int, dict[str, Any]]:
    """The status and JSON body the API answers ``method path`` with, served by ``session``.

    ``path`` is the raw (still percent-encoded) path; anything before the operation's path, such
    as ``/v1``, is ignored.
    """
    retrieve = RETRIEVE.fullmatch(path)
    if retrieve is not None:
        if method != "GET":
            return _error(405, "invalid_request_error", f"{method} is not allowed here; use GET")
        try:
            return 200, session.get_operation(unquote(retrieve[OPERATION_ID])).to_dict()
        except UnknownOperationError as exc:
            return _error(404, "not_found_error", str(exc))
    if SUBMIT.fullmatch(path) is not None:
        if method != "POST":
            return _error(405, "invalid_request_error", f"{method} is not allowed here; use POST")
        try:
            data = json.loads(body or b"{}")
        except ValueError as exc:
            return _error(400, "invalid_request_error", f"the request body is not JSON: {exc}")
        if not isinstance(data, dict):
            return _error(400, "invalid_request_error", "the request body must be a JSON object")
        return 200, session.optim_step(_known_only(data, KNOWN_FIELDS)).to_dict()
    return _error(404, "not_found_error", f"no operation at {method} {path}")


def _known_only(data: dict[str, Any], known: dict[str, Any]) -> dict[str, Any]:
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


def _error(status: int, kind: str, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"error": {"type": kind, "message": message, "param": None, "code": None}}
