"""Errors raised by the generator; each names the place in the input it is about."""

from __future__ import annotations

from .pointer import locate


class GeneratorError(Exception):
    """Base class of every error the generator reports to its user."""


class SpecError(GeneratorError):
    """A spec document the generator cannot use, at a JSON pointer inside it."""

    def __init__(self, pointer: str, message: str, *, source: str | None = None) -> None:
        self.pointer = pointer or "/"
        self.message = message
        self.source = source
        where = locate(source, self.pointer) if source else self.pointer
        super().__init__(f"{where}: {message}")


class UnsupportedConstructError(SpecError):
    """A valid OpenAPI construct that the generator does not support yet."""


class RevisionError(GeneratorError):
    """The revision index (spec/revisions.yaml) is missing, malformed or inconsistent."""
