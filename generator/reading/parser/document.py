"""A whole document: its info, servers and security, every component schema, the operations of
every path, and the schemas that ``$ref`` s name elsewhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...pointer import join
from .. import ir
from ..loader import load_yaml
from .context import Context, Mode, json_kind
from .operations import read_path_item
from .polymorphism import with_subtypes
from .references import References
from .schemas import SchemaReader
from .security import read_requirements, read_security, read_security_schemes
from .unsupported import without_unsupported


def parse_file(path: Path, *, lenient: bool = False, mode: Mode | None = None) -> ir.Document:
    """Load and parse the document at ``path`` (and the files its ``$ref`` s name, beside it)."""
    return parse_document(load_yaml(path), source=str(path), lenient=lenient, mode=mode)


def parse_document(
    raw: Any, *, source: str | None = None, lenient: bool = False, mode: Mode | None = None
) -> ir.Document:
    """Parse a loaded document into an :class:`ir.Document`.

    Strictly, a construct the generator does not support is an error. ``lenient``ly, the schema
    or operation that uses it is left out, and so is whatever reaches it, each listed in
    :attr:`ir.Document.omitted` with its pointer and reason. In the ``complete`` mode it is kept
    as an :class:`ir.Opaque` schema (see :data:`Mode`).

    A ``$ref`` to another file is read relative to the file that holds it, and must stay within
    the folder of ``source`` (the root document).
    """
    chosen: Mode = mode or ("lenient" if lenient else "strict")
    ctx = Context(source, chosen)
    refs = References(ctx, raw)
    return _read_document(SchemaReader(ctx, refs))


def _read_document(reader: SchemaReader) -> ir.Document:
    """The document ``reader`` reads: component schemas first, then the paths, then the schemas
    that their ``$ref`` s named elsewhere, in the order they were met."""
    raw = reader.ctx.mapping(reader.refs.files[""], "", "the document")
    version = raw.get("openapi")
    if not isinstance(version, str) or not version.startswith("3."):
        raise reader.ctx.error(
            "/openapi", f"only OpenAPI 3.x documents are supported, got {version!r}"
        )
    info = reader.ctx.mapping(raw.get("info"), "/info", "info")
    components = reader.ctx.mapping(raw.get("components", {}), "/components", "components")
    raw_schemas = reader.ctx.mapping(
        components.get("schemas", {}), "/components/schemas", "schemas"
    )
    reader.refs.component_names = {str(name) for name in raw_schemas}
    schemas: dict[str, ir.Schema] = {}
    for name in raw_schemas:
        schemas[str(name)] = reader.component(str(name))
    paths = reader.ctx.mapping(raw.get("paths", {}), "/paths", "paths")
    operations: list[ir.Operation] = []
    for path, item in paths.items():
        operations += read_path_item(reader, str(path), item)
    while reader.refs.queue:
        name, _ = reader.refs.queue[0]
        schemas[name] = reader.component(name)
        reader.refs.queue.pop(0)
    _check_aliases(reader.ctx, schemas)
    if reader.ctx.mode == "lenient":
        schemas, operations = without_unsupported(reader.ctx, schemas, operations)
    schemas, operations = with_subtypes(reader, schemas, operations)
    return ir.Document(
        openapi=version,
        title=str(info.get("title", "")),
        version=str(info.get("version", "")),
        description=reader.ctx.string(info, "description", "/info"),
        servers=_servers(reader.ctx, raw.get("servers") or ()),
        security=read_security(reader.ctx, raw.get("security"), "/security"),
        requirements=read_requirements(reader.ctx, raw.get("security"), "/security") or (),
        security_schemes=read_security_schemes(
            reader.ctx, reader.refs, components, "/components/securitySchemes"
        ),
        operations=tuple(operations),
        schemas=schemas,
        diagnostics=tuple(reader.ctx.diagnostics),
        omitted=tuple(reader.ctx.omitted),
        files=tuple(sorted(name for name in reader.refs.files if name)),
    )


def _servers(ctx: Context, node: Any) -> tuple[str, ...]:
    """The URLs of the document's ``servers``, which must be a list of objects."""
    if not isinstance(node, (list, tuple)):
        raise ctx.error("/servers", f"must be a list, got {json_kind(node)}")
    return tuple(
        str(ctx.mapping(s, join("/servers", i), "a server").get("url", ""))
        for i, s in enumerate(node)
    )


def _check_aliases(ctx: Context, schemas: dict[str, ir.Schema]) -> None:
    """A component that is only a ``$ref`` must lead, through others, to a schema."""
    for name, schema in schemas.items():
        seen = {name}
        while isinstance(schema, ir.Ref):
            if schema.name in seen:
                raise ctx.error(
                    join(schemas[name].pointer, "$ref"),
                    f"$ref cycle: {name} only refers to itself through {schema.name}",
                )
            seen.add(schema.name)
            schema = schemas.get(schema.name, ir.AnyValue(pointer=""))
