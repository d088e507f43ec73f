"""A session's operations and its idempotency keys: what a resend with a key returns, and how a
key compares the bodies it comes with (by content: numbers by value, keys in any order)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from .._exceptions import IdempotencyKeyReusedError, UnknownOperationError
from .._model import Model

__all__ = ["Operations", "fingerprint", "wire"]


class Operations:
    """The operations of a session by id, and for each idempotency key the fingerprint of the
    request it came with and the id of its operation."""

    def __init__(self) -> None:
        self._operations: dict[str, Any] = {}
        self._keys: dict[str, tuple[str, str]] = {}
        """Idempotency key -> (fingerprint of the request body, id of its operation)."""

    def resent(self, key: str, fingerprint: str, body: Model | Mapping[str, Any]) -> Any | None:
        """The operation of the request that came with ``key`` before, where one did (raising
        IdempotencyKeyReusedError where it had another body than ``body``, whose fingerprint
        is ``fingerprint``); else ``None``."""
        if key not in self._keys:
            return None
        seen, operation_id = self._keys[key]
        if not _same_request(seen, fingerprint, body):
            raise IdempotencyKeyReusedError(key, operation_id)
        return self._operations[operation_id]

    def add(self, operation: Any, key: str | None, fingerprint: str) -> None:
        """Keep ``operation``, and where it came with ``key``, the key with its request's
        ``fingerprint``."""
        self._operations[operation.id] = operation
        if key is not None:
            self._keys[key] = (fingerprint, operation.id)

    def restore(self, operation: Any, record: Mapping[str, Any]) -> None:
        """Keep ``operation`` and its key, as the step's record that a journal kept has them."""
        self._operations[operation.id] = operation
        key = record.get("idempotency_key")
        if key is not None:
            self._keys[key] = (_recorded_fingerprint(record), operation.id)

    def get(self, operation_id: str) -> Any:
        """The operation with this id (UnknownOperationError where there is none)."""
        try:
            return self._operations[operation_id]
        except KeyError:
            raise UnknownOperationError(f"no operation {operation_id!r} in this session") from None

    def saved(self) -> dict[str, Any]:
        """The operations (in the wire format) and keys, as ``state_dict`` holds them."""
        return {
            "operations": {key: op.to_dict() for key, op in self._operations.items()},
            "idempotency_keys": {key: list(entry) for key, entry in self._keys.items()},
        }

    def load(self, state: Mapping[str, Any], operation: type[Model]) -> None:
        """Take the operations and keys of a ``state_dict`` (:meth:`saved`), each operation read
        as the ``operation`` model."""
        self._operations = {key: operation.from_dict(op) for key, op in state["operations"].items()}
        self._keys = {key: (entry[0], entry[1]) for key, entry in state["idempotency_keys"].items()}


def _recorded_fingerprint(record: Mapping[str, Any]) -> str:
    """The fingerprint of the request of a step's record: its digest, else that of its request;
    a key without its request or digest (taken over from runtime 1.0.0) matches any body."""
    request = record.get("request")
    digest: str | None = record.get("request_digest")
    return digest or ("any" if request is None else fingerprint(request))


def wire(body: Model | Mapping[str, Any]) -> dict[str, Any]:
    """The body in the wire format."""
    return body.to_dict() if isinstance(body, Model) else dict(body)


def fingerprint(body: Model | Mapping[str, Any]) -> str:
    """What an idempotency key is compared by: the body's content, with numbers by value and
    keys in any order (``{"a": 1, "b": 2.50}`` and ``{"b": 2.5, "a": 1.0}`` are the same)."""
    try:
        text = _canonical(wire(body))
    except RecursionError:
        text = repr(wire(body))
    return "v2:" + hashlib.sha256(text.encode()).hexdigest()


def _same_request(seen: str, fingerprint: str, body: Model | Mapping[str, Any]) -> bool:
    """Whether a body whose fingerprint is ``fingerprint`` is the request a key saw before
    (``seen``; a key kept by runtime 1.0.0 has the fingerprint of the body's text)."""
    if seen == "any":
        return True
    if seen.startswith("v2:"):
        return seen == fingerprint
    data = wire(body)
    try:
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=repr)
    except (TypeError, ValueError, RecursionError):
        text = repr(data)
    return seen == hashlib.sha256(text.encode()).hexdigest()


def _canonical(value: Any) -> str:
    """JSON-like text of ``value`` that is the same for the same content: keys sorted, every
    number written by its exact value (``1``, ``1.0`` and ``1e0`` alike), ``true`` never a number.
    """
    if value is None or isinstance(value, (bool, str)):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, Mapping):
        items = sorted((str(k), v) for k, v in value.items())
        return "{" + ",".join(f"{json.dumps(k)}:{_canonical(v)}" for k, v in items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_canonical(item) for item in value) + "]"
    return json.dumps(repr(value))


def _number(value: int | float) -> str:
    """A number's exact value as ``digits e exponent`` without trailing zeros (``0`` for zero,
    either sign); not-a-number and the infinities as Python writes them."""
    exact = Decimal(value) if isinstance(value, int) else Decimal(repr(value))
    if not exact.is_finite():
        return repr(value)
    if exact.is_zero():
        return "0"
    sign, digits, exponent = exact.as_tuple()
    assert isinstance(exponent, int)
    figures = "".join(map(str, digits)).rstrip("0")
    exponent += len(digits) - len(figures)
    return f"{'-' if sign else ''}{figures}e{exponent}"
