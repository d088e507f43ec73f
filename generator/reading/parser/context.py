"""What one parse shares: the mode, the document's name, what it notes and what it leaves out;
the errors it raises and the readers of small fields that raise them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias, cast

from ...errors import SpecError, UnsupportedConstructError
from ...pointer import join
from .. import ir

Mode: TypeAlias = Literal["strict", "lenient", "complete"]
"""How the parser treats a construct the generator does not support: ``strict``, an error;
``lenient``, the schema or operation that uses it is left out (``generate --spec``);
``complete``, it is kept as an :class:`ir.Opaque` schema (for the diff, which compares
documents whatever the generator supports)."""


class Context:
    """The state of one parse that every part of the parser reads or adds to."""

    def __init__(self, source: str | None, mode: Mode) -> None:
        self.source = source
        """The root document's path, named in every error (``None`` for a document in memory)."""
        self.mode = mode
        self.omitted: list[ir.Omission] = []
        """The schemas and operations left out (leniently), in the order they were met."""
        self.diagnostics: list[ir.Diagnostic] = []
        """What was accepted but changed or ignored, in the order it was met."""

    def error(self, pointer: str, message: str) -> SpecError:
        """The error of a malformed construct at ``pointer``, to raise."""
        return SpecError(pointer, message, source=self.source)

    def unsupported(self, pointer: str, construct: str) -> UnsupportedConstructError:
        """The error of a ``construct`` at ``pointer`` that the generator cannot represent."""
        return UnsupportedConstructError(
            pointer, f"{construct} is not supported by the generator yet", source=self.source
        )

    def note(self, pointer: str, message: str) -> None:
        """Note what was accepted but changed or ignored at ``pointer``."""
        self.diagnostics.append(ir.Diagnostic(pointer=pointer, message=message))

    def mapping(self, node: Any, pointer: str, what: str) -> Mapping[str, Any]:
        """``node``, which must be an object (``what`` names it in the error)."""
        if not isinstance(node, Mapping):
            raise self.error(pointer, f"{what} must be an object, got {json_kind(node)}")
        return cast(Mapping[str, Any], node)

    def string(self, node: Mapping[str, Any], key: str, pointer: str) -> str | None:
        """The string at ``key`` of ``node``, if any."""
        value = node.get(key)
        if value is not None and not isinstance(value, str):
            raise self.error(join(pointer, key), f"must be a string, got {json_kind(value)}")
        return value

    def boolean(self, node: Mapping[str, Any], key: str, pointer: str) -> bool:
        """The boolean at ``key`` of ``node`` (``false`` where absent)."""
        value = node.get(key, False)
        if not isinstance(value, bool):
            raise self.error(join(pointer, key), f"must be a boolean, got {json_kind(value)}")
        return value


def json_kind(value: Any) -> str:
    """A JSON name for the type of ``value``, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
