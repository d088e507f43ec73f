"""The models of the Swagger Petstore API, revision 1.0.0.

Request models check what they send: a wrong type, a value outside the bounds, lengths or
pattern of the schema, an unknown field or an unknown enum value raises ValidationError naming
its JSON path. Response models are tolerant, since a newer (or faulty) server may answer:
unknown enum values are kept as strings, unknown fields in ``extra``, and fields missing or
not as the schema says are kept as received and listed in ``problems``. Fields left out are
UNSET and not sent.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeAlias

from ._runtime import (
    UNSET,
    Model,
    Unset,
    check_integer,
    check_string,
    put,
    received,
)

__all__ = [
    "Error",
    "Pet",
    "Pets",
]


@dataclass(kw_only=True)
class Pet(Model):
    """The ``Pet`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"id", "name", "tag", "$ref"})
    _STRICT: ClassVar[bool] = False

    id: int

    name: str

    tag: str | Unset = UNSET

    ref: str | Unset = UNSET

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Pet:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            id=received(fields, "id", path, check_integer, problems, required=True),
            name=received(fields, "name", path, check_string, problems, required=True),
            tag=received(fields, "tag", path, check_string, problems),
            ref=received(fields, "$ref", path, check_string, problems),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "id", self.id, path, check_integer, self.problems)
        put(data, "name", self.name, path, check_string, self.problems)
        put(data, "tag", self.tag, path, check_string, self.problems)
        put(data, "$ref", self.ref, path, check_string, self.problems)
        return data


@dataclass(kw_only=True)
class Error(Model):
    """The ``Error`` object."""

    _FIELDS: ClassVar[frozenset[str]] = frozenset({"code", "message"})
    _STRICT: ClassVar[bool] = False

    code: int

    message: str

    extra: dict[str, Any] = field(default_factory=dict)
    """Fields the server sent that this revision does not define, as received."""

    problems: dict[str, str] = field(default_factory=dict)
    """Fields the server did not send as the schema says, by JSON name, with what was wrong: each
    holds UNSET (left out), or the value as received (null, or another type)."""

    @classmethod
    def from_dict(cls, data: object, path: str = "") -> Error:
        fields, extra = cls._fields_of(data, path)
        problems: dict[str, str] = {}
        return cls(
            code=received(fields, "code", path, check_integer, problems, required=True),
            message=received(fields, "message", path, check_string, problems, required=True),
            extra=extra,
            problems=problems,
        )

    def to_dict(self, path: str = "") -> dict[str, Any]:
        data: dict[str, Any] = dict(self.extra)
        put(data, "code", self.code, path, check_integer, self.problems)
        put(data, "message", self.message, path, check_string, self.problems)
        return data


Pets: TypeAlias = list[Pet]
"""The ``Pets`` schema."""
