"""A request body and a response: the media type read (the first JSON one, else the first) and
its schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...pointer import join
from .. import ir
from .http import is_json

if TYPE_CHECKING:
    from .schemas import SchemaReader


def _media(
    reader: SchemaReader, node: Mapping[str, Any], pointer: str
) -> tuple[str | None, ir.Schema | None]:
    """The media type read of a body's ``content`` and its schema (``None`` where absent)."""
    content = reader.ctx.mapping(node.get("content", {}), join(pointer, "content"), "content")
    if not content:
        return None, None
    content_type = next((t for t in content if is_json(t)), None)
    if content_type is None:
        content_type = next(iter(content))
    media = reader.ctx.mapping(
        content[content_type], join(pointer, "content", content_type), "a media type"
    )
    if "schema" not in media:
        return content_type, None
    return content_type, reader.schema(
        media["schema"], join(pointer, "content", content_type, "schema")
    )


def read_request_body(reader: SchemaReader, node: Any, pointer: str) -> ir.RequestBody:
    """A request body (or the one its ``$ref`` names), which needs a media type."""
    node, at = reader.refs.follow(node, pointer)
    node = reader.ctx.mapping(node, at, "a request body")
    content_type, schema = _media(reader, node, at)
    if content_type is None:
        raise reader.ctx.error(join(at, "content"), "a request body needs at least one media type")
    return ir.RequestBody(
        pointer=at,
        required=reader.ctx.boolean(node, "required", at),
        content_type=content_type,
        schema=schema,
        description=reader.ctx.string(node, "description", at),
    )


def read_response(reader: SchemaReader, status: str, node: Any, pointer: str) -> ir.Response:
    """The response of ``status`` (or the one its ``$ref`` names)."""
    if not (status == "default" or (len(status) == 3 and status[0] in "12345")):
        raise reader.ctx.error(pointer, f"{status!r} is not a response status code")
    node, at = reader.refs.follow(node, pointer)
    node = reader.ctx.mapping(node, at, "a response")
    content_type, schema = _media(reader, node, at)
    content = node.get("content") or {}
    return ir.Response(
        pointer=at,
        status=status,
        description=reader.ctx.string(node, "description", at) or "",
        content_type=content_type,
        schema=schema,
        content_types=tuple(str(t) for t in content) if isinstance(content, Mapping) else (),
    )
