"""Security: the schemes of ``components/securitySchemes`` and the requirements of the document
and of each operation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...pointer import join
from .. import ir
from .context import Context, json_kind
from .http import HTTP_TOKEN
from .references import References


def read_security(ctx: Context, node: Any, pointer: str) -> tuple[str, ...]:
    """The names of the schemes that security requirements list (none where not given)."""
    if node is None:
        return ()
    if not isinstance(node, list):
        raise ctx.error(pointer, f"must be a list, got {json_kind(node)}")
    return tuple(
        name
        for i, req in enumerate(node)
        for name in ctx.mapping(req, join(pointer, i), "a requirement")
    )


def read_requirements(ctx: Context, node: Any, pointer: str) -> tuple[tuple[str, ...], ...] | None:
    """Security requirements as alternatives of scheme names (``None`` where not given)."""
    if node is None:
        return None
    if not isinstance(node, list):
        raise ctx.error(pointer, f"must be a list, got {json_kind(node)}")
    return tuple(
        tuple(str(name) for name in ctx.mapping(req, join(pointer, i), "a requirement"))
        for i, req in enumerate(node)
    )


def read_security_schemes(
    ctx: Context, refs: References, components: Mapping[str, Any], pointer: str
) -> tuple[ir.SecurityScheme, ...]:
    """The security schemes of the components; an API key in a header or a cookie must be named
    by an HTTP token."""
    schemes = ctx.mapping(components.get("securitySchemes", {}), pointer, "securitySchemes")
    result = []
    for name, node in schemes.items():
        node, here = refs.follow(node, join(pointer, name))
        node = ctx.mapping(node, here, "a security scheme")
        kind = ctx.string(node, "type", here)
        if kind is None:
            raise ctx.error(here, "a security scheme needs a type")
        carrier = ctx.string(node, "name", here)
        if kind == "apiKey" and node.get("in") in ("header", "cookie"):
            if carrier is None or not HTTP_TOKEN.fullmatch(carrier):
                raise ctx.error(join(here, "name"), f"{carrier!r} is not an HTTP token (RFC 9110)")
        result.append(
            ir.SecurityScheme(
                name=name,
                type=kind,
                scheme=ctx.string(node, "scheme", here),
                bearer_format=ctx.string(node, "bearerFormat", here),
                description=ctx.string(node, "description", here),
                location=ctx.string(node, "in", here),
                parameter=carrier,
            )
        )
    return tuple(result)
