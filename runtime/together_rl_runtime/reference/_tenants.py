"""The API keys of the reference server, and the tenants they stand for.

Each key is a tenant of its own: it sees only the sessions it made, and a session id names a
session within its tenant (two keys may each have a session ``"s-1"``, and neither can tell that
the other has one). A server without keys has one tenant, :data:`NO_KEY`, which is also the
tenant of sessions saved before tenants existed.

A key is never kept as it is: a request's bearer token is compared with the SHA-256 digest of
each key (:func:`hmac.compare_digest`), and a tenant is named by a slow digest of its key
(PBKDF2), which is what the state folder holds; neither appears in an answer, and nothing of
this module's objects shows a key in its ``repr``.

Keys come from a file (``--api-keys-file``: one a line; blank lines and lines starting with
``#`` are skipped) and from the environment variable :data:`KEYS_ENV` (separated by commas or
whitespace), never from the client's ``TOGETHER_API_KEY``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["KEYS_ENV", "NO_KEY", "Keys", "KeysError", "keys_from_environment", "read_keys_file"]

NO_KEY = ""
"""The tenant of a server without API keys, and of sessions saved before tenants existed."""

KEYS_ENV = "TOGETHER_RL_REFERENCE_API_KEYS"
"""The environment variable the server reads its API keys from (commas or whitespace between
them)."""

_TENANT_SALT = b"together-rl-reference-tenant"
_TENANT_ROUNDS = 200_000


class KeysError(ValueError):
    """The server's keys cannot be read: a file that is missing or holds a malformed line. The
    message names the place (file and line), never a key."""


class Keys:
    """The API keys a server accepts, each a tenant. ``tenant(headers)`` is the tenant of a
    request's bearer token, or ``None`` where it carries none of these keys."""

    def __init__(self, keys: Iterable[str]) -> None:
        distinct = sorted(set(keys))
        if not distinct:
            raise KeysError("no API key given")
        self._digests = [(_digest(key), _tenant(key)) for key in distinct]

    def __len__(self) -> int:
        return len(self._digests)

    def __repr__(self) -> str:
        return f"<Keys: {len(self)} API key{'s' if len(self) != 1 else ''}>"

    def tenant(self, headers: Mapping[str, str]) -> str | None:
        """The tenant of the bearer token in ``headers`` (lower-cased names), or ``None``. Every
        key is compared, in constant time, whichever matches."""
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return None
        given = _digest(token.strip())
        found = None
        for digest, tenant in self._digests:
            if hmac.compare_digest(given, digest):
                found = tenant
        return found


def read_keys_file(path: Path) -> list[str]:
    """The keys in ``path``: one a line, blank lines and ``#`` comments skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problem = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise KeysError(f"--api-keys-file {path}: cannot be read ({problem})") from None
    keys = []
    for number, line in enumerate(text.splitlines(), start=1):
        key = line.strip()
        if not key or key.startswith("#"):
            continue
        problem = _malformed(key)
        if problem:
            raise KeysError(f"--api-keys-file {path}, line {number}: {problem}")
        keys.append(key)
    if not keys:
        raise KeysError(f"--api-keys-file {path} holds no API key")
    return keys


def keys_from_environment(environ: Mapping[str, str]) -> list[str]:
    """The keys in :data:`KEYS_ENV` (none where it is unset or empty)."""
    keys = environ.get(KEYS_ENV, "").replace(",", " ").split()
    for number, key in enumerate(keys, start=1):
        problem = _malformed(key)
        if problem:
            raise KeysError(f"{KEYS_ENV}, key {number}: {problem}")
    return keys


def _malformed(key: str) -> str:
    """What is wrong with ``key`` as a bearer token (empty where nothing is)."""
    if any(character.isspace() for character in key):
        return "a key cannot contain spaces"
    if not key.isascii() or not key.isprintable():
        return "a key must be printable ASCII"
    return ""


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()


def _tenant(key: str) -> str:
    """The name of a key's tenant in the state folder: slow to compute, so that a state folder
    does not make a weak key easy to find."""
    return hashlib.pbkdf2_hmac(
        "sha256", key.encode("utf-8", "surrogatepass"), _TENANT_SALT, _TENANT_ROUNDS
    )[:16].hex()
