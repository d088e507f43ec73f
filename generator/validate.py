"""Validation of spec documents: the OpenAPI schema (openapi-spec-validator), then the generator's parser."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator
from openapi_spec_validator.validation.validators import SpecValidator

from .errors import SpecError
from .loader import load_yaml
from .parser import parse_document
from .pointer import join

_TOP_LEVEL = (
    "openapi",
    "info",
    "jsonSchemaDialect",
    "servers",
    "paths",
    "webhooks",
    "components",
    "security",
    "tags",
    "externalDocs",
)
_MAX_MESSAGE = 240


@dataclass(frozen=True)
class Problem:
    """One reason a document is invalid, at a JSON pointer."""

    source: str
    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}#{self.pointer or '/'}: {self.message}"


def validate_file(path: Path) -> list[Problem]:
    """Every problem found in the document at ``path``; empty when it is valid."""
    return _read_then(path, validate_document)


def file_problems(path: Path) -> list[Problem]:
    """What openapi-spec-validator finds wrong with the document at ``path`` (see
    :func:`schema_problems`); a document that cannot be read is one problem."""
    return _read_then(path, schema_problems)


def _read_then(path: Path, check: Callable[[Any, str], list[Problem]]) -> list[Problem]:
    """``check`` of the document at ``path``, or the one problem that it cannot be read."""
    try:
        raw = load_yaml(path)
    except SpecError as exc:
        return [Problem(str(path), exc.pointer, exc.message)]
    return check(raw, str(path))


def validate_document(raw: Any, source: str) -> list[Problem]:
    problems: list[Problem] = []
    try:
        parse_document(raw, source=source)
    except SpecError as exc:
        problems.append(Problem(source, exc.pointer, exc.message))
    if not isinstance(raw, dict):
        return problems or [Problem(source, "", "the document must be an object")]
    return problems + schema_problems(raw, source, quiet=bool(problems))


def schema_problems(raw: Any, source: str, *, quiet: bool = False) -> list[Problem]:
    """What openapi-spec-validator finds wrong with the document (``quiet``: an exception it
    raises, rather than reports, is left out)."""
    if not isinstance(raw, dict):
        return [Problem(source, "", "the document must be an object")]
    version = str(raw.get("openapi", ""))
    validator = _V31 if version.startswith("3.1") else _V30
    problems: list[Problem] = []
    try:
        for error in validator(raw).iter_errors():
            problems.append(Problem(source, _pointer(list(error.path)), _shorten(error.message)))
    except Exception as exc:  # the validator raises, rather than reports, what it cannot resolve
        if not quiet:
            problems.append(Problem(source, "", f"{type(exc).__name__}: {_shorten(str(exc))}"))
    return problems


class _SeenIds(list[int]):
    """A list whose membership test is a set's: the validator's schema validator keeps the ids
    of the schemas it has checked in lists and asks each new schema whether it is in them, which
    makes a document of thousands of schemas take minutes; it only appends and asks."""

    def __init__(self) -> None:
        super().__init__()
        self._members: set[int] = set()

    def append(self, value: int) -> None:
        self._members.add(value)
        super().append(value)

    def __contains__(self, value: object) -> bool:
        return value in self._members


def _linear(validator: type[SpecValidator]) -> type[SpecValidator]:
    """``validator`` with its schema validator keeping the ids it has seen in :class:`_SeenIds`:
    the same checks, in time linear in the document."""
    schema_validator = validator.keyword_validators["schema"]

    class SchemaValidator(schema_validator):  # type: ignore[valid-type,misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.visited_schema_ids = _SeenIds()
            self.meta_checked_schema_ids = _SeenIds()

    return type(
        validator.__name__,
        (validator,),
        {"keyword_validators": {**validator.keyword_validators, "schema": SchemaValidator}},
    )


_V30 = _linear(OpenAPIV30SpecValidator)
_V31 = _linear(OpenAPIV31SpecValidator)


def _pointer(path: list[Any]) -> str:
    pointer = join("", *path)
    if path and path[0] not in _TOP_LEVEL:
        # The validator reports errors inside a schema relative to that schema.
        return "…" + pointer
    return pointer


def _shorten(message: str) -> str:
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 1] + "…"
