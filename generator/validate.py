"""Validation of spec documents: the OpenAPI schema (openapi-spec-validator), then the generator's parser."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .caching import Store, digest
from .errors import SpecError
from .loader import load_yaml
from .parser import parse_document
from .pointer import join

if TYPE_CHECKING:
    from openapi_spec_validator.validation.validators import SpecValidator

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


def file_problems(path: Path, cache_dir: Path | None = None) -> list[Problem]:
    """What openapi-spec-validator finds wrong with the document at ``path`` (see
    :func:`schema_problems`); a document that cannot be read is one problem. With a
    ``cache_dir``, the findings are kept by the document's content hash (see
    :func:`known_problems`)."""
    problems = _read_then(path, schema_problems)
    if cache_dir is not None:
        try:
            key = digest(path.read_bytes())
        except OSError:
            return problems
        store = Store(cache_dir, "openapi-spec-validator", _validator_versions())
        store.put(key, json.dumps([[p.pointer, p.message] for p in problems]).encode())
    return problems


def known_problems(path: Path, cache_dir: Path | None) -> list[Problem] | None:
    """The findings of :func:`file_problems` kept for the document's content, where there are:
    on a large document the validator takes longer than generating, and a document read again
    gets the same findings."""
    if cache_dir is None:
        return None
    try:
        key = digest(path.read_bytes())
    except OSError:
        return None
    known = Store(cache_dir, "openapi-spec-validator", _validator_versions()).get(key)
    try:
        found = json.loads(known) if known is not None else None
        return None if found is None else [Problem(str(path), p, m) for p, m in found]
    except (ValueError, TypeError):
        return None  # an entry that cannot be read is a miss


@functools.cache
def _validator_versions() -> dict[str, str]:
    """What the findings depend on besides the document: the validator's version, that of the
    JSON Schema library under it, and this module (which words them)."""
    from importlib import metadata

    return {
        "openapi-spec-validator": metadata.version("openapi-spec-validator"),
        "jsonschema": metadata.version("jsonschema"),
        "validate.py": digest(Path(__file__).read_bytes()),
    }


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
    validator = _validator("3.1" if version.startswith("3.1") else "3.0")
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
    """``validator`` with its schema validator keeping the ids it has seen in :class:`_SeenIds`,
    and the OpenAPI schema's validator resolving in a registry crawled once (:func:`_crawled`):
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
        {
            "keyword_validators": {**validator.keyword_validators, "schema": SchemaValidator},
            "schema_validator": _crawled(validator.schema_validator),
        },
    )


def _crawled(schema_validator: Any) -> Any:
    """``schema_validator`` (the JSON Schema validator of the OpenAPI schema) with its references
    resolved in a registry crawled once. jsonschema crawls the registry it is given on each lookup
    of an anchor it does not hold yet, and keeps the crawled registry for that lookup only: the
    OpenAPI 3.1 schema's ``$dynamicRef`` to its ``meta`` anchor crawls the whole schema again for
    each schema object of the document (half the validation time of a large document). The same
    checks; a validator of another kind (a backend openapi-spec-validator may be set to) is kept."""
    import referencing.jsonschema
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]

    try:
        schema = schema_validator.schema
        specification = referencing.jsonschema.specification_with(
            schema.get("$schema", ""), default=referencing.jsonschema.DRAFT202012
        )
        resource = specification.create_resource(schema)
        uri = resource.id() or ""
        registry = REGISTRY.with_resource(uri, resource).crawl()
        return schema_validator.__class__(
            schema,
            _resolver=registry.resolver(base_uri=uri),
            format_checker=schema_validator.format_checker,
        )
    except (AttributeError, TypeError):  # not a jsonschema validator
        return schema_validator


@functools.cache
def _validator(version: str) -> type[SpecValidator]:
    """The validator of OpenAPI ``version`` (imported only when a document is validated: it
    takes half a second, which a ``generate`` whose findings are cached does not spend)."""
    from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator

    return _linear(OpenAPIV31SpecValidator if version == "3.1" else OpenAPIV30SpecValidator)


def _pointer(path: list[Any]) -> str:
    pointer = join("", *path)
    if path and path[0] not in _TOP_LEVEL:
        # The validator reports errors inside a schema relative to that schema.
        return "…" + pointer
    return pointer


def _shorten(message: str) -> str:
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 1] + "…"
