"""Validation of spec documents: the OpenAPI schema (openapi-spec-validator), then the generator's parser."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator

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
    source = str(path)
    try:
        raw = load_yaml(path)
    except SpecError as exc:
        return [Problem(source, exc.pointer, exc.message)]
    return validate_document(raw, source)


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
    validator = OpenAPIV31SpecValidator if version.startswith("3.1") else OpenAPIV30SpecValidator
    problems: list[Problem] = []
    try:
        for error in validator(raw).iter_errors():
            problems.append(Problem(source, _pointer(list(error.path)), _shorten(error.message)))
    except Exception as exc:  # the validator raises, rather than reports, what it cannot resolve
        if not quiet:
            problems.append(Problem(source, "", f"{type(exc).__name__}: {_shorten(str(exc))}"))
    return problems


def _pointer(path: list[Any]) -> str:
    pointer = join("", *path)
    if path and path[0] not in _TOP_LEVEL:
        # The validator reports errors inside a schema relative to that schema.
        return "…" + pointer
    return pointer


def _shorten(message: str) -> str:
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 1] + "…"
